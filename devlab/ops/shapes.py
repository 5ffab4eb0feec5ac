"""Static shape and dtype rules: each returns the list of (dtype, shape) of an op's outputs.

A rule sees the input Tensors (with their static dtype and shape, ``None`` for unknown dims)
and the op's attrs. Wrong shapes raise ValueError in TensorFlow's words.
"""
from ..framework import dtypes
from ..framework.tensor_shape import TensorShape


class ShapeError(ValueError):
    """A shape rule failed; the op builder adds the node description TF puts in the message."""


def dims(t):
    return t.shape.dims


def same_as_first(inputs, attrs):
    return [(inputs[0].dtype.base_dtype, dims(inputs[0]))]


def broadcast(inputs, attrs):
    a, b = dims(inputs[0]), dims(inputs[1])
    return [(inputs[0].dtype.base_dtype, broadcast_dims(a, b))]


def broadcast_bool(inputs, attrs):
    return [(dtypes.bool, broadcast_dims(dims(inputs[0]), dims(inputs[1])))]


def broadcast_dims(a, b):
    if a is None or b is None:
        return None
    out = []
    for i in range(1, max(len(a), len(b)) + 1):
        x = a[-i] if i <= len(a) else 1
        y = b[-i] if i <= len(b) else 1
        if x == 1:
            out.append(y)
        elif y == 1 or y == x:
            out.append(x)
        elif x is None or y is None:
            out.append(x if y is None else y)
        else:
            raise ShapeError(f"Dimensions must be equal, but are {x} and {y}")
    return tuple(reversed(out))


def matmul(inputs, attrs):
    a, b = dims(inputs[0]), dims(inputs[1])
    if a is None or b is None:
        return [(inputs[0].dtype.base_dtype, None)]
    if len(a) != 2 or len(b) != 2:
        bad = a if len(a) != 2 else b
        raise ShapeError(f"Shape must be rank 2 but is rank {len(bad)}")
    m, ka = (a[1], a[0]) if attrs.get("transpose_a") else (a[0], a[1])
    kb, n = (b[1], b[0]) if attrs.get("transpose_b") else (b[0], b[1])
    if ka is not None and kb is not None and ka != kb:
        raise ShapeError(f"Dimensions must be equal, but are {ka} and {kb}")
    return [(inputs[0].dtype.base_dtype, (m, n))]


def add_n(inputs, attrs):
    shape = dims(inputs[0])
    for t in inputs[1:]:
        other = dims(t)
        if shape is not None and other is not None:
            if len(shape) != len(other) or any(x is not None and y is not None and x != y
                                               for x, y in zip(shape, other)):
                raise ShapeError(f"Shapes must be equal rank, but are {len(shape)} and {len(other)}"
                                 if len(shape) != len(other) else
                                 f"Dimension 0 in both shapes must be equal, but are {shape} and {other}")
    return [(inputs[0].dtype.base_dtype, shape)]


def const(inputs, attrs):
    return [(attrs["dtype"], attrs["value"].shape)]


def from_attrs(inputs, attrs):
    return [(attrs["dtype"], attrs.get("shape"))]


def reduction(inputs, attrs):
    shape = dims(inputs[0])
    axes = attrs["axis"]
    if shape is None:
        return [(inputs[0].dtype.base_dtype, None)]
    rank = len(shape)
    axes = range(rank) if axes is None else [a % rank if rank else a for a in axes]
    for a in (attrs["axis"] or []):
        if not -rank <= a < max(rank, 1):
            raise ShapeError(f"Invalid reduction dimension {a} for input with {rank} dimensions.")
    if attrs.get("keep_dims"):
        out = tuple(1 if i in axes else d for i, d in enumerate(shape))
    else:
        out = tuple(d for i, d in enumerate(shape) if i not in axes)
    return [(inputs[0].dtype.base_dtype, out)]


def reshape(inputs, attrs):
    target = list(attrs["shape"])
    src = TensorShape(dims(inputs[0]))
    n = src.num_elements()
    if target.count(-1) > 1:
        raise ShapeError("Cannot infer multiple unknown dimensions")
    known = 1
    for d in target:
        if d != -1:
            known *= d
    if -1 in target:
        if n is not None and known and n % known:
            raise ShapeError(f"Cannot reshape a tensor with {n} elements to shape {target}")
        target[target.index(-1)] = n // known if n is not None and known else None
    elif n is not None and n != known:
        raise ShapeError(f"Cannot reshape a tensor with {n} elements to shape {target} "
                         f"({known} elements)")
    return [(inputs[0].dtype.base_dtype, tuple(target))]


def transpose(inputs, attrs):
    shape = dims(inputs[0])
    perm = attrs["perm"]
    if shape is None:
        return [(inputs[0].dtype.base_dtype, None)]
    perm = perm if perm is not None else list(reversed(range(len(shape))))
    if sorted(perm) != list(range(len(shape))):
        raise ShapeError(f"Dimension must be {len(shape)} but is {len(perm)}")
    return [(inputs[0].dtype.base_dtype, tuple(shape[p] for p in perm))]


def concat(inputs, attrs):
    axis = attrs["axis"]
    shapes = [dims(t) for t in inputs]
    if any(s is None for s in shapes):
        return [(inputs[0].dtype.base_dtype, None)]
    rank = len(shapes[0])
    axis = axis % rank
    out = list(shapes[0])
    for s in shapes[1:]:
        if len(s) != rank:
            raise ShapeError(f"Shape must be rank {rank} but is rank {len(s)}")
        for i, (x, y) in enumerate(zip(out, s)):
            if i == axis:
                out[i] = None if x is None or y is None else x + y
            elif x is not None and y is not None and x != y:
                raise ShapeError(f"Dimension {i} in both shapes must be equal, but are {x} and {y}")
    return [(inputs[0].dtype.base_dtype, tuple(out))]


def stack(inputs, attrs):
    shape = dims(inputs[0])
    for t in inputs[1:]:
        if dims(t) != shape:
            raise ShapeError(f"Shapes must be equal rank, but are {len(shape)} and {len(dims(t))}"
                             if len(dims(t)) != len(shape) else
                             f"Dimension 0 in both shapes must be equal, but are {shape} and {dims(t)}")
    if shape is None:
        return [(inputs[0].dtype.base_dtype, None)]
    out = list(shape)
    axis = attrs["axis"] % (len(shape) + 1)
    out.insert(axis, len(inputs))
    return [(inputs[0].dtype.base_dtype, tuple(out))]


def shape_of(inputs, attrs):
    shape = dims(inputs[0])
    return [(attrs["out_type"], (None if shape is None else len(shape),))]


def scalar_int(inputs, attrs):
    return [(dtypes.int32, ())]


def cast(inputs, attrs):
    return [(attrs["DstT"], dims(inputs[0]))]


def none(inputs, attrs):
    return []


def ref_of_first(inputs, attrs):
    return [(inputs[0].dtype, dims(inputs[0]))]


def assign(inputs, attrs):
    ref, value = inputs
    if attrs.get("validate_shape", True) and not ref.shape.is_compatible_with(value.shape):
        raise ShapeError(f"Shapes must be equal rank, but are {len(ref.shape)} and {len(value.shape)}"
                         if ref.shape.ndims != value.shape.ndims else
                         f"Dimension 0 in both shapes must be equal, but are {dims(ref)} and {dims(value)}")
    return [(ref.dtype, dims(ref) if attrs.get("validate_shape", True) else dims(value))]


def argmax(inputs, attrs):
    shape = dims(inputs[0])
    axis = attrs["axis"] % len(shape)
    return [(attrs["output_type"], tuple(d for i, d in enumerate(shape) if i != axis))]


def softmax_xent(inputs, attrs):
    logits = dims(inputs[0])
    return [(inputs[0].dtype.base_dtype, (logits[0],)), (inputs[0].dtype.base_dtype, logits)]


def one_hot(inputs, attrs):
    shape = dims(inputs[0])
    return [(attrs["dtype"], tuple(shape) + (attrs["depth"],))]


def expand_dims(inputs, attrs):
    shape = list(dims(inputs[0]))
    axis = attrs["axis"]
    axis = axis if axis >= 0 else len(shape) + 1 + axis
    shape.insert(axis, 1)
    return [(inputs[0].dtype.base_dtype, tuple(shape))]


def string_scalar_like(inputs, attrs):
    return [(dtypes.string, dims(inputs[0]))]


def string_scalar(inputs, attrs):
    return [(dtypes.string, ())]



def variable(inputs, attrs):
    """A ref variable's output: the reference form of its dtype (``float32_ref``)."""
    return [(attrs["dtype"]._as_ref, attrs.get("shape"))]


def fill(inputs, attrs):
    """Fill's output: the static ``shape`` attr (from its dims Const), the value's dtype."""
    return [(inputs[1].dtype.base_dtype, attrs["shape"])]


def switch(inputs, attrs):
    """Switch: two outputs shaped like the data (false side, true side)."""
    data = inputs[0]
    return [(data.dtype, dims(data)), (data.dtype, dims(data))]


def merge(inputs, attrs):
    """Merge: the inputs' common shape (unknown dims where they differ), and the value index."""
    shape = TensorShape(dims(inputs[0]))
    for t in inputs[1:]:
        other = TensorShape(dims(t))
        if shape.dims is None or other.dims is None or len(shape.dims) != len(other.dims):
            shape = TensorShape(None)
        else:
            shape = TensorShape([a if a == b else None for a, b in zip(shape.dims, other.dims)])
    return [(inputs[0].dtype, shape.dims), (dtypes.int32, ())]


def scalar_bool(inputs, attrs):
    return [(dtypes.bool, ())]


def logical(inputs, attrs):
    return [(dtypes.bool, broadcast_dims(dims(inputs[0]), dims(inputs[-1])))]

def py_func(inputs, attrs):
    """One output of unknown shape per ``Tout`` dtype (TF cannot see inside the function)."""
    return [(dtype, None) for dtype in attrs["Tout"]]
