"""TF's ``EnsureShape`` op: its input unchanged, checked against the ``shape`` attr. While building,
the input's static shape is merged with it (a contradiction is a shape error); when run, the
kernel checks the actual shape (InvalidArgumentError in TF's words, naming the input)."""
from ..framework import errors
from .shapes import ShapeError, dims


def _text(shape):
    return "[" + ",".join("?" if d is None else str(d) for d in shape) + "]"


def shape(inputs, attrs):
    """The attr's shape merged with the input's (TF's ``Merge(shape, input)``, and its words)."""
    want, got = attrs.get("shape"), dims(inputs[0])
    if want is None or got is None:
        out = got if want is None else want
    elif len(want) != len(got):
        raise ShapeError(f"Shapes must be equal rank, but are {len(want)} and {len(got)}")
    else:
        out = []
        for i, (w, g) in enumerate(zip(want, got)):
            if w is not None and g is not None and w != g:
                raise ShapeError(f"Dimension {i} in both shapes must be equal, but are {w} and {g}. Shapes are "
                                 f"{_text(want)} and {_text(got)}.")
            out.append(g if w is None else w)
    return [(inputs[0].dtype.base_dtype, None if out is None else tuple(out))]


def kernel(k, x):
    want = k.attrs.get("shape")
    if want is not None and (len(want) != x.ndim or any(w is not None and w != g for w, g in zip(want, x.shape))):
        source = k.op.inputs[0].name
        source = source[:-2] if source.endswith(":0") else source  # TF names the input as its node does
        raise errors.InvalidArgumentError(None, None, f"Shape of tensor {source} {_text(x.shape)} is not compatible "
                                                      f"with expected shape {_text(want)}.")
    return x
