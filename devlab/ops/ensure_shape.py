"""TF's ``EnsureShape`` op: its input unchanged, checked against the ``shape`` attr. While building,
the input's static shape is merged with it (a contradiction is a shape error); when run, the
kernel checks the actual shape (InvalidArgumentError in TF's words, naming the input)."""
from ..framework import errors
from ..framework.tensor_shape import TensorShape
from .shapes import ShapeError, dims


def _text(shape):
    return "[" + ",".join("?" if d is None else str(d) for d in shape) + "]"


def shape(inputs, attrs):
    want = attrs.get("shape")
    try:
        merged = TensorShape(dims(inputs[0])).merge_with(TensorShape(want))
    except ValueError as e:
        raise ShapeError(str(e)) from None
    return [(inputs[0].dtype.base_dtype, None if merged.ndims is None else tuple(merged.as_list()))]


def kernel(k, x):
    want = k.attrs.get("shape")
    if want is not None and (len(want) != x.ndim or any(w is not None and w != g for w, g in zip(want, x.shape))):
        source = k.op.inputs[0].name
        source = source[:-2] if source.endswith(":0") else source  # TF names the input as its node does
        raise errors.InvalidArgumentError(None, None, f"Shape of tensor {source} {_text(x.shape)} is not compatible "
                                                      f"with expected shape {_text(want)}.")
    return x
