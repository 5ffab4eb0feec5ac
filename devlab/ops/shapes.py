"""Static shape and dtype rules: each returns the list of (dtype, shape) of an op's outputs.

A rule sees the input Tensors (with their static dtype and shape, ``None`` for unknown dims)
and the op's attrs. Wrong shapes raise ValueError in TensorFlow's words.
"""
import numpy as np

from ..framework import dtypes
from ..framework.tensor_shape import TensorShape
from .strided import Masks, output_dims
from .tensor_util import constant_value_as_shape, static_value


class ShapeError(ValueError):
    """A shape rule failed; the op builder adds the node description TF puts in the message, and
    the values of the inputs ``computed`` names (those the rule read, as TF lists them)."""

    def __init__(self, message, computed=()):
        super().__init__(message)
        self.computed = computed


def dims(t):
    return t.shape.sizes


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
    if a == b:  # the common case: the same shape (an unknown dim stays unknown)
        return tuple(a)
    out = []
    for i in range(max(len(a), len(b)), 0, -1):  # from the left, as TF checks (its first mismatch is named)
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
    return tuple(out)


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


def batch_matmul(inputs, attrs):
    a, b = dims(inputs[0]), dims(inputs[1])
    dtype = inputs[0].dtype.base_dtype
    if a is None or b is None:
        return [(dtype, None)]
    for s in (a, b):
        if len(s) < 2:
            raise ShapeError(f"In[0] and In[1] has different ndims: {_show(a)} vs. {_show(b)}"
                             if len(a) != len(b) else f"Shape must be at least rank 2 but is rank {len(s)}")
    m, ka = (a[-1], a[-2]) if attrs.get("adj_x") else (a[-2], a[-1])
    kb, n = (b[-1], b[-2]) if attrs.get("adj_y") else (b[-2], b[-1])
    if ka is not None and kb is not None and ka != kb:
        raise ShapeError(f"Dimensions must be equal, but are {ka} and {kb}")
    return [(dtype, tuple(broadcast_dims(a[:-2], b[:-2])) + (m, n))]


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


def placeholder_with_default(inputs, attrs):
    """The ``shape`` attr (it may be less specific than the default value's)."""
    shape = attrs.get("shape")
    return [(inputs[0].dtype.base_dtype, None if shape is None else tuple(shape))]


def random(inputs, attrs):
    """A random op's output: the shape its first input denotes, the ``dtype`` attr."""
    return [(attrs["dtype"], _sizes_of(inputs[0]))]


def _sizes_of(t):
    """The shape a shape tensor denotes (None where unknown); TF's error for a negative size."""
    value = static_value(t)
    for d in () if value is None else np.asarray(value).reshape(-1).tolist():
        if d < -1:
            raise ValueError(f"Invalid value in tensor used for shape: {d}")
    return _partial(constant_value_as_shape(t))


def from_attrs(inputs, attrs):
    return [(attrs["dtype"], attrs.get("shape"))]


def reduction(inputs, attrs):
    """Sum, Mean, Max...: the reduced axes are the second input (a Const, or only known at run time)."""
    x = inputs[0]
    shape = dims(x)
    axes = static_value(inputs[1])
    if shape is None:
        return [(x.dtype.base_dtype, None)]
    rank = len(shape)
    if axes is None:
        out = (None,) * rank if attrs.get("keep_dims") else None
        return [(x.dtype.base_dtype, out)]
    axes = [int(a) for a in np.asarray(axes).reshape(-1)]
    for a in axes:
        if not -rank <= a < max(rank, 1):
            raise ShapeError(f"Invalid reduction dimension {a} for input with {rank} dimensions.", (1,))
    axes = {a % rank if rank else a for a in axes}
    if attrs.get("keep_dims"):
        out = tuple(1 if i in axes else d for i, d in enumerate(shape))
    else:
        out = tuple(d for i, d in enumerate(shape) if i not in axes)
    return [(x.dtype.base_dtype, out)]


def reshape(inputs, attrs):
    """Reshape's output: the target shape (its second input), one -1 inferred from the size."""
    x = inputs[0]
    value = static_value(inputs[1])
    if value is None:
        return [(x.dtype.base_dtype, _partial(constant_value_as_shape(inputs[1])))]
    target = [int(d) for d in np.asarray(value).reshape(-1)]
    n = TensorShape(dims(x)).num_elements()
    if target.count(-1) > 1:
        raise ShapeError("Cannot infer multiple unknown dimensions")
    known = 1
    for d in target:
        if d != -1:
            known *= d
    if -1 in target:
        if n is not None and known and n % known:
            raise ShapeError(f"Dimension size must be evenly divisible by {known} but is {n}")
        target[target.index(-1)] = n // known if n is not None and known else None
    elif n is not None and n != known:
        raise ShapeError(f"Cannot reshape a tensor with {n} elements to shape {target} "
                         f"({known} elements)")
    return [(x.dtype.base_dtype, tuple(target))]


def _partial(shape):
    return None if shape is None else tuple(shape)


def transpose(inputs, attrs):
    shape = dims(inputs[0])
    perm = static_value(inputs[1])
    if shape is None or perm is None:
        return [(inputs[0].dtype.base_dtype, None if shape is None else (None,) * len(shape))]
    perm = [int(p) for p in np.asarray(perm).reshape(-1)]
    if len(perm) != len(shape):
        raise ShapeError(f"Dimension must be {len(shape)} but is {len(perm)}")
    if sorted(perm) != list(range(len(shape))):  # TF builds it; its kernel names the missing dimension
        return [(inputs[0].dtype.base_dtype, (None,) * len(shape))]
    return [(inputs[0].dtype.base_dtype, tuple(shape[p] for p in perm))]


def concat(inputs, attrs):
    """ConcatV2: the values, then the axis (a Const)."""
    values, axis = inputs[:-1], static_value(inputs[-1])
    shapes = [dims(t) for t in values]
    if any(s is None for s in shapes):
        return [(values[0].dtype.base_dtype, None)]
    rank = len(shapes[0])
    if axis is None:
        return [(values[0].dtype.base_dtype, (None,) * rank)]
    axis = int(axis)
    if not -rank <= axis < rank:
        raise ShapeError(f"Shape must be at least rank {axis + 1 if axis >= 0 else -axis} but is rank {rank}")
    axis %= rank
    out = list(shapes[0])
    for s in shapes[1:]:
        if len(s) != rank:
            raise ShapeError(f"Shape must be rank {rank} but is rank {len(s)}")
        for i, (x, y) in enumerate(zip(out, s)):
            if i == axis:
                out[i] = None if x is None or y is None else x + y
            elif x is not None and y is not None and x != y:
                def show(shape):
                    return "[" + ",".join("?" if d is None else str(d) for j, d in enumerate(shape) if j != axis) + "]"
                raise ShapeError(f"Dimension {i} in both shapes must be equal, but are {x} and {y}. "
                                 f"Shapes are {show(shapes[0])} and {show(s)}.")
    return [(values[0].dtype.base_dtype, tuple(out))]


def stack(inputs, attrs):
    shape = dims(inputs[0])
    for t in inputs[1:]:
        shape = _same_shape(shape, dims(t))
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


def size_of(inputs, attrs):
    return [(attrs["out_type"], ())]


def cast(inputs, attrs):
    return [(attrs["DstT"], dims(inputs[0]))]


def none(inputs, attrs):
    return []


def enter(inputs, attrs):
    """Enter's output: its input's shape for a loop constant (``is_constant``), else unknown (TF's
    shape function; ``tf.while_loop`` then sets the shape it knows)."""
    return [(inputs[0].dtype.base_dtype, dims(inputs[0]) if attrs.get("is_constant") else None)]


def ref_enter(inputs, attrs):
    return [(inputs[0].dtype, enter(inputs, attrs)[0][1])]


def ref_of_first(inputs, attrs):
    return [(inputs[0].dtype, dims(inputs[0]))]


def broadcast_args(inputs, attrs):
    """BroadcastArgs: a vector as long as the longer of two shape vectors (each must be rank 1)."""
    a, b = dims(inputs[0]), dims(inputs[1])
    for shape in (a, b):
        if shape is not None and len(shape) != 1:
            raise ShapeError(f"Shape must be rank 1 but is rank {len(shape)}")
    length = None if a is None or b is None or a[0] is None or b[0] is None else max(a[0], b[0])
    return [(inputs[0].dtype.base_dtype, (length,))]


def scatter_update(inputs, attrs):
    """ScatterUpdate/Add/Sub: the variable's ref; the updates (unless a scalar) must merge with
    ``indices.shape + var.shape[1:]`` (TF's ScatterUpdateShape, and its words)."""
    var, indices, updates = (dims(t) for t in inputs[:3])
    if var is not None and indices is not None and updates is not None and len(updates) != 0:
        want = tuple(indices) + tuple(var[1:])
        text = lambda s: "[" + ",".join("?" if d is None else str(d) for d in s) + "]"  # noqa: E731
        if len(updates) != len(want):
            raise ShapeError(f"Shapes must be equal rank, but are {len(updates)} and {len(want)}")
        for i, (u, w) in enumerate(zip(updates, want)):
            if u is not None and w is not None and u != w:
                raise ShapeError(f"Dimension {i} in both shapes must be equal, but are {u} and {w}. Shapes are "
                                 f"{text(updates)} and {text(want)}.")
    return [(inputs[0].dtype, var)]


def assign(inputs, attrs):
    ref, value = inputs
    if attrs.get("validate_shape", True) and not ref.shape.is_compatible_with(value.shape):
        raise ShapeError(f"Shapes must be equal rank, but are {len(ref.shape)} and {len(value.shape)}"
                         if ref.shape.ndims != value.shape.ndims else
                         f"Dimension 0 in both shapes must be equal, but are {dims(ref)} and {dims(value)}")
    return [(ref.dtype, dims(ref) if attrs.get("validate_shape", True) else dims(value))]


def argmax(inputs, attrs):
    shape = dims(inputs[0])
    axis = static_value(inputs[1])
    if shape is None or axis is None or np.size(axis) != 1:
        return [(attrs["output_type"], None)]
    axis = int(np.asarray(axis).reshape(-1)[0])
    if not -len(shape) <= axis < len(shape):
        return [(attrs["output_type"], None)]  # TF builds it; its kernel says the dimension is out of range
    axis %= len(shape)
    return [(attrs["output_type"], tuple(d for i, d in enumerate(shape) if i != axis))]


def softmax_xent(inputs, attrs):
    logits = dims(inputs[0])
    return [(inputs[0].dtype.base_dtype, (logits[0],)), (inputs[0].dtype.base_dtype, logits)]


def one_hot(inputs, attrs):
    """OneHot(indices, depth, on_value, off_value): a new axis of ``depth`` (last by default)."""
    shape, depth = dims(inputs[0]), static_value(inputs[1])
    dtype = inputs[2].dtype.base_dtype
    if dims(inputs[1]) is not None and len(dims(inputs[1])) != 0:
        raise ShapeError(f"Input must be scalar but has rank {len(dims(inputs[1]))}", (1,))
    if depth is not None and int(depth) < 0:
        raise ShapeError(f"Dimension size, given by scalar input 1, must be non-negative but is {int(depth)}", (1,))
    axis = attrs.get("axis", -1)
    if shape is not None and not -1 <= axis <= len(shape):
        raise ShapeError(f"Expected axis to be -1 or between [0, {len(shape)}).  But received: {axis}")
    if shape is None:
        return [(dtype, None)]
    out = list(shape)
    out.insert(len(out) if axis == -1 else axis, None if depth is None else int(depth))
    return [(dtype, tuple(out))]


def expand_dims(inputs, attrs):
    shape = dims(inputs[0])
    axis = static_value(inputs[1])
    if dims(inputs[1]) is not None and None not in dims(inputs[1]) and int(np.prod(dims(inputs[1]))) != 1:
        raise ShapeError("'dim' input must be a tensor with a single value", (1,))
    if shape is None or axis is None:
        return [(inputs[0].dtype.base_dtype, None)]
    shape = list(shape)
    axis = int(np.asarray(axis).reshape(-1)[0])
    if not -len(shape) - 1 <= axis <= len(shape):
        raise ShapeError(f"dim {axis} not in the interval [{-len(shape) - 1}, {len(shape)}].", (1,))
    shape.insert(axis if axis >= 0 else len(shape) + 1 + axis, 1)
    return [(inputs[0].dtype.base_dtype, tuple(shape))]


def string_scalar_like(inputs, attrs):
    return [(dtypes.string, dims(inputs[0]))]


def string_scalar(inputs, attrs):
    return [(dtypes.string, ())]


def string_join(inputs, attrs):
    """StringJoin: a scalar when every input is one, else the merge of the inputs of known
    non-zero rank (scalars are repeated against them), as TF's shape function."""
    shapes = [dims(t) for t in inputs]
    if all(s is not None and len(s) == 0 for s in shapes):
        return [(dtypes.string, ())]
    out = None
    for s in shapes:
        if s is not None and len(s):
            out = _same_shape(out, s)
    return [(dtypes.string, out)]


def parallel_concat(inputs, attrs):
    """ParallelConcat: its ``shape`` attr (N inputs of shape [1, ...] stacked)."""
    shape = attrs.get("shape")
    return [(inputs[0].dtype.base_dtype, None if shape is None else tuple(shape))]


def read_file(inputs, attrs):
    """ReadFile: one file name (a scalar) gives its contents (a scalar string)."""
    _scalars(inputs)
    return [(dtypes.string, ())]


def no_outputs_of_scalars(inputs, attrs):
    """WriteFile: scalar inputs, no outputs."""
    _scalars(inputs)
    return []


def _scalars(inputs):
    for t in inputs:
        if dims(t) is not None and len(dims(t)) != 0:
            raise ShapeError(f"Shape must be rank 0 but is rank {len(dims(t))}")



def variable(inputs, attrs):
    """A ref variable's output: the reference form of its dtype (``float32_ref``)."""
    return [(attrs["dtype"]._as_ref, attrs.get("shape"))]


def fill(inputs, attrs):
    """Fill's output: the shape its ``dims`` input denotes, the value's dtype."""
    return [(inputs[1].dtype.base_dtype, _sizes_of(inputs[0]))]


def _ints_or_none(t):
    value = static_value(t)
    return None if value is None else [int(v) for v in np.asarray(value).reshape(-1)]


def _spec_length(t):
    shape = dims(t)
    return shape[0] if shape else None


# -- indexing -------------------------------------------------------------------------------
def strided_slice(inputs, attrs):
    x, begin, end, strides = inputs
    n = _spec_length(begin)
    masks = Masks.of(attrs)
    if n is None:
        return [(x.dtype.base_dtype, None)]
    try:
        out = output_dims(dims(x), _ints_or_none(begin), _ints_or_none(end), _ints_or_none(strides), n, masks)
    except IndexError as e:
        raise ShapeError(str(e)) from None
    return [(x.dtype.base_dtype, _partial(out))]


def strided_slice_grad(inputs, attrs):
    """The gradient of a slice has the shape of the sliced input (its first input's value)."""
    return [(inputs[4].dtype.base_dtype, _partial(constant_value_as_shape(inputs[0])))]


def slice_(inputs, attrs):
    x, begin, size = inputs
    _same_shape(dims(begin), dims(size))
    shape, begin, size = dims(x), _ints_or_none(begin), _ints_or_none(size)
    if shape is not None and dims(inputs[1]) is not None and dims(inputs[1])[0] not in (None, len(shape)):
        raise ShapeError(f"Shape must be rank {dims(inputs[1])[0]} but is rank {len(shape)}")
    if shape is None:  # TF's rule: the rank is size's length when that is known
        length = dims(inputs[2])
        if length is None or length[0] is None:
            return [(x.dtype.base_dtype, None)]
        return [(x.dtype.base_dtype, tuple(None if size is None or d == -1 else d for d in (size or [None] * length[0])))]
    if size is None:
        return [(x.dtype.base_dtype, (None,) * len(shape))]
    out = []
    for i, s in enumerate(size):
        if s != -1:
            out.append(s)
        elif begin is not None and shape[i] is not None:
            out.append(shape[i] - begin[i])
        else:
            out.append(None)
    return [(x.dtype.base_dtype, tuple(out))]


def split(inputs, attrs):
    """Split(axis, value): ``num_split`` equal pieces along the axis."""
    axis, value = static_value(inputs[0]), inputs[1]
    n, shape = attrs["num_split"], dims(value)
    if dims(inputs[0]) is not None and len(dims(inputs[0])) != 0:
        raise ShapeError(f"Input must be scalar but has rank {len(dims(inputs[0]))}", (0,))
    if shape is None or axis is None:
        return [(value.dtype.base_dtype, None if shape is None else (None,) * len(shape))] * n
    axis = int(axis)
    if not -len(shape) <= axis < len(shape):
        raise ShapeError(f"Dimension size, given by scalar input {axis} must be in range [{-len(shape)}, "
                         f"{len(shape)})", (0,))
    axis %= len(shape)
    out = list(shape)
    if out[axis] is not None:
        if out[axis] % n:
            raise ShapeError(f"Dimension size must be evenly divisible by {n} but is {out[axis]}")
        out[axis] //= n
    return [(value.dtype.base_dtype, tuple(out))] * n


def split_v(inputs, attrs):
    """SplitV(value, size_splits, axis): pieces of the given sizes (one -1 takes the rest)."""
    value, sizes, axis = inputs[0], _ints_or_none(inputs[1]), static_value(inputs[2])
    n, shape = attrs["num_split"], dims(value)
    if shape is None or axis is None or sizes is None:
        return [(value.dtype.base_dtype, None if shape is None else (None,) * len(shape))] * n
    axis = int(axis)
    if not -len(shape) <= axis < len(shape):
        raise ShapeError(f"Dimension size, given by scalar input {axis} must be in range [{-len(shape)}, "
                         f"{len(shape)})", (2,))
    axis %= len(shape)
    if -1 in sizes and shape[axis] is not None:
        sizes[sizes.index(-1)] = shape[axis] - (sum(sizes) + 1)
    if shape[axis] is not None and -1 not in sizes and sum(sizes) != shape[axis]:
        raise ShapeError(f"Determined shape must either match input shape along split_dim exactly if "
                         f"fully specified, or be less than the size of the input along split_dim if not "
                         f"fully specified.  Got: {sum(sizes)}")
    return [(value.dtype.base_dtype, tuple(s if i == axis else d for i, d in enumerate(shape)))
            for s in sizes]


def squeeze(inputs, attrs):
    shape, axes = dims(inputs[0]), attrs["squeeze_dims"]
    if shape is None:
        return [(inputs[0].dtype.base_dtype, None)]
    rank = len(shape)
    for i, a in enumerate(axes):
        if not -rank <= a < rank:
            raise ShapeError(f"squeeze_dims[{i}] not in [{-rank},{rank}).")
    axes = {a % rank for a in axes}
    for a in axes:
        if shape[a] is not None and shape[a] != 1:
            raise ShapeError(f"Can not squeeze dim[{a}], expected a dimension of 1, got {shape[a]}")
    out = tuple(d for i, d in enumerate(shape) if (i not in axes if axes else d != 1))
    if not axes and None in shape:
        return [(inputs[0].dtype.base_dtype, None)]
    return [(inputs[0].dtype.base_dtype, out)]


def unstack(inputs, attrs):
    shape, axis, n = dims(inputs[0]), attrs["axis"], attrs["num"]
    if shape is None:
        return [(inputs[0].dtype.base_dtype, None)] * n
    axis %= len(shape)
    if shape[axis] is not None and shape[axis] != n:
        raise ShapeError(f"Dimension must be {n} but is {shape[axis]}")
    return [(inputs[0].dtype.base_dtype, tuple(d for i, d in enumerate(shape) if i != axis))] * n


def gather_v2(inputs, attrs):
    params, indices, axis = dims(inputs[0]), dims(inputs[1]), static_value(inputs[2])
    dtype = inputs[0].dtype.base_dtype
    if params is None or indices is None or axis is None:
        return [(dtype, None)]
    axis = int(axis)
    if not -len(params) <= axis < len(params):
        raise ShapeError(f"Shape must be at least rank {axis + 1 if axis >= 0 else -axis} but is rank "
                         f"{len(params)}")
    axis %= len(params)
    return [(dtype, tuple(params[:axis]) + tuple(indices) + tuple(params[axis + 1:]))]


def unsorted_segment_sum(inputs, attrs):
    data, ids, n = dims(inputs[0]), dims(inputs[1]), static_value(inputs[2])
    if data is None or ids is None:
        return [(inputs[0].dtype.base_dtype, None)]
    return [(inputs[0].dtype.base_dtype, (None if n is None else int(n),) + tuple(data[len(ids):]))]


def concat_offset(inputs, attrs):
    return [(t.dtype.base_dtype, dims(t)) for t in inputs[1:]]


def identity_n(inputs, attrs):
    """Each output is its input, dtype and shape."""
    return [(t.dtype.base_dtype, dims(t)) for t in inputs]


def shape_n(inputs, attrs):
    return [(attrs["out_type"], (None if dims(t) is None else len(dims(t)),)) for t in inputs]


def where(inputs, attrs):
    shape = dims(inputs[0])
    return [(dtypes.int64, (None, None if shape is None else len(shape)))]


def select(inputs, attrs):
    """Select(condition, x, y): x and y of one shape; the condition the same, or rank 1 (rows)."""
    c, x, y = (dims(t) for t in inputs)
    out = _same_shape(x, y)
    if c is not None and out is not None and not (len(c) == 1 and len(out) > 1):
        out = _same_shape(c, out)  # TF merges the condition's shape in: its known dims fill the output's
    return [(inputs[1].dtype.base_dtype, out)]


def _same_shape(a, b):
    if a is None or b is None:
        return a if b is None else b
    if len(a) != len(b):
        raise ShapeError(f"Shapes must be equal rank, but are {len(a)} and {len(b)}")
    out = []
    for i, (x, y) in enumerate(zip(a, b)):
        if x is not None and y is not None and x != y:
            raise ShapeError(f"Dimension {i} in both shapes must be equal, but are {x} and {y}. "
                             f"Shapes are {_show(a)} and {_show(b)}.")
        out.append(x if x is not None else y)
    return tuple(out)


def _show(shape):
    return "[" + ",".join("?" if d is None else str(d) for d in shape) + "]"


def select_v2(inputs, attrs):
    c, x, y = (dims(t) for t in inputs)
    return [(inputs[1].dtype.base_dtype, broadcast_dims(broadcast_dims(c, x), y) if c is not None else
             broadcast_dims(x, y))]


def range_(inputs, attrs):
    values = [static_value(t) for t in inputs]
    dtype = attrs["Tidx"]
    if any(v is None for v in values):
        return [(dtype, (None,))]
    start, limit, delta = (v.item() for v in values)
    if delta == 0:
        raise ShapeError("Requires delta != 0", (0, 1, 2))
    if delta > 0 and start > limit:
        raise ShapeError(f"Requires start <= limit when delta > 0: {_g(start)}/{_g(limit)}", (0, 1, 2))
    if delta < 0 and start < limit:
        raise ShapeError(f"Requires start >= limit when delta < 0: {_g(start)}/{_g(limit)}", (0, 1, 2))
    # the size, worked out without making the range (TF: ceil(|limit - start| / |delta|))
    if not np.isfinite(abs((limit - start) / delta)) or abs((limit - start) / delta) > 2**63 - 1:
        raise ShapeError(f"Requires ((limit - start) / delta) <= {2**63 - 1}", (0, 1, 2))
    size = int(np.ceil(abs((limit - start) / delta))) if dtype.is_floating else -(-abs(limit - start) // abs(delta))
    return [(dtype, (size,))]


def _g(x):
    """A number as TF's shape errors print it (C's %g)."""
    return f"{x:g}"


def tile(inputs, attrs):
    shape, multiples = dims(inputs[0]), _ints_or_none(inputs[1])
    if shape is None:
        return [(inputs[0].dtype.base_dtype, None)]
    if dims(inputs[1]) and dims(inputs[1])[0] is not None and dims(inputs[1])[0] != len(shape):
        raise ShapeError(f"Shape must be rank {len(shape)} but is rank {dims(inputs[1])[0]}")
    if multiples is None:
        multiples = constant_value_as_shape(inputs[1]) or [None] * len(shape)
    return [(inputs[0].dtype.base_dtype, tuple(None if d is None or m is None else d * m
                                               for d, m in zip(shape, multiples)))]


def pad(inputs, attrs):
    shape, pairs = dims(inputs[0]), _ints_or_none(inputs[1])
    if shape is None:
        return [(inputs[0].dtype.base_dtype, None)]
    pshape = dims(inputs[1])
    if pshape is not None and pshape[1] is not None and pshape[1] != 2:
        raise ShapeError(f"Dimension must be 2 but is {pshape[1]}")
    if pshape is not None and pshape[0] is not None and pshape[0] != len(shape):
        raise ShapeError(f"Shape must be rank {pshape[0]} but is rank {len(shape)}")
    if pairs is None:
        return [(inputs[0].dtype.base_dtype, (None,) * len(shape))]
    return [(inputs[0].dtype.base_dtype, tuple(None if d is None else d + pairs[2 * i] + pairs[2 * i + 1]
                                               for i, d in enumerate(shape)))]


def mirror_pad_grad(inputs, attrs):
    shape, pairs = dims(inputs[0]), _ints_or_none(inputs[1])
    if shape is None or pairs is None:
        return [(inputs[0].dtype.base_dtype, None if shape is None else (None,) * len(shape))]
    return [(inputs[0].dtype.base_dtype, tuple(None if d is None else d - pairs[2 * i] - pairs[2 * i + 1]
                                               for i, d in enumerate(shape)))]


def scalar_like_first(inputs, attrs):
    return [(inputs[0].dtype.base_dtype, ())]


def broadcast_gradient_args(inputs, attrs):
    return [(inputs[0].dtype.base_dtype, (None,)), (inputs[1].dtype.base_dtype, (None,))]


def dynamic_stitch(inputs, attrs):
    """DynamicStitch: rows shaped like the data's; how many is known when every index list is
    (TF's shape inference evaluates constant index lists, even ones computed from constants)."""
    n = attrs["N"]
    data = inputs[n:]
    inner = dims(data[0])
    idx = dims(inputs[0])
    if inner is None or idx is None:
        return [(data[0].dtype.base_dtype, None)]
    known = [static_value(t) for t in inputs[:n]]
    rows = None
    if all(v is not None for v in known):
        rows = max((int(np.max(v)) + 1 for v in known if np.size(v)), default=0)
    return [(data[0].dtype.base_dtype, (rows,) + tuple(inner[len(idx):]))]


def broadcast_to(inputs, attrs):
    return [(inputs[0].dtype.base_dtype, _partial(constant_value_as_shape(inputs[1])))]


def switch(inputs, attrs):
    """Switch: two outputs shaped like the data (false side, true side); a variable's ref comes
    out as its value."""
    data = inputs[0]
    return [(data.dtype.base_dtype, dims(data)), (data.dtype.base_dtype, dims(data))]


def ref_switch(inputs, attrs):
    """RefSwitch: the ref itself on both sides (what assigns through a cond need)."""
    data = inputs[0]
    return [(data.dtype, dims(data)), (data.dtype, dims(data))]


def ref_select(inputs, attrs):
    """RefSelect(index, inputs): one of the refs, so their shape when all agree, else unknown."""
    refs = inputs[1:]
    first = dims(refs[0])
    same = first is not None and None not in first and all(dims(t) == first for t in refs[1:])
    return [(refs[0].dtype, first if same else None)]


def merge(inputs, attrs):
    """Merge: the inputs' common shape (unknown dims where they differ), and the value index."""
    shape = TensorShape(dims(inputs[0]))
    for t in inputs[1:]:
        other = TensorShape(dims(t))
        if shape.sizes is None or other.sizes is None or len(shape.sizes) != len(other.sizes):
            shape = TensorShape(None)
        else:
            shape = TensorShape([a if a == b else None for a, b in zip(shape.sizes, other.sizes)])
    return [(inputs[0].dtype, shape.sizes), (dtypes.int32, ())]


def scalar_bool(inputs, attrs):
    return [(dtypes.bool, ())]


def logical(inputs, attrs):
    return [(dtypes.bool, broadcast_dims(dims(inputs[0]), dims(inputs[-1])))]

def py_func(inputs, attrs):
    """One output of unknown shape per ``Tout`` dtype (TF cannot see inside the function)."""
    return [(dtype, None) for dtype in attrs["Tout"]]


def scatter_nd(inputs, attrs):
    """ScatterNd: the shape its third input holds, the dtype of the updates."""
    out = constant_value_as_shape(inputs[2])
    return [(inputs[1].dtype.base_dtype, None if out is None else tuple(out))]


def bool_like_first(inputs, attrs):
    """An elementwise predicate (IsFinite): bools shaped like the input."""
    return [(dtypes.bool, dims(inputs[0]))]


def unique(inputs, attrs):
    """Unique: the distinct values (how many is known only at run time) and one index per element."""
    x = dims(inputs[0])
    if x is not None and len(x) != 1:
        raise ShapeError(f"Shape must be rank 1 but is rank {len(x)}")
    return [(inputs[0].dtype.base_dtype, (None,)), (attrs.get("out_idx", dtypes.int32), x)]


def to_tout(inputs, attrs):
    """Complex, ComplexAbs, Real, Imag: the inputs' broadcast shape, in the dtype ``Tout``."""
    out = dims(inputs[0])
    for t in inputs[1:]:
        out = broadcast_dims(out, dims(t))
    return [(attrs["Tout"], out)]


def list_diff(inputs, attrs):
    """ListDiff: the values of x not in y and their positions (how many is known at run time)."""
    return [(inputs[0].dtype.base_dtype, (None,)), (attrs.get("out_idx", dtypes.int32), (None,))]


def dynamic_partition(inputs, attrs):
    """DynamicPartition: ``num_partitions`` outputs of rows shaped like data's rows (how many each
    gets is known at run time)."""
    data, parts = dims(inputs[0]), dims(inputs[1])
    inner = None if data is None or parts is None else (None,) + tuple(data[len(parts):])
    return [(inputs[0].dtype.base_dtype, inner)] * attrs["num_partitions"]


def sparse_to_dense(inputs, attrs):
    """SparseToDense: the shape ``output_shape`` denotes, the values' dtype."""
    output_shape = dims(inputs[1])
    if output_shape is not None and len(output_shape) != 1:
        raise ShapeError(f"Shape must be rank 1 but is rank {len(output_shape)}")
    return [(inputs[2].dtype.base_dtype, _partial(constant_value_as_shape(inputs[1])))]


def gather_nd(inputs, attrs):
    """GatherNd: indices' outer dims, then the params dims its index tuples do not consume."""
    params, indices = dims(inputs[0]), dims(inputs[1])
    dtype = inputs[0].dtype.base_dtype
    if params is None or indices is None or indices[-1] is None:
        return [(dtype, None)]
    return [(dtype, tuple(indices[:-1]) + tuple(params[indices[-1]:]))]


def reverse_sequence(inputs, attrs):
    """ReverseSequence: the input's shape, its batch dimension merged with the lengths' size."""
    shape, lengths = dims(inputs[0]), dims(inputs[1])
    if lengths is not None and len(lengths) != 1:
        raise ShapeError(f"Shape must be rank 1 but is rank {len(lengths)}")
    if shape is None:
        return [(inputs[0].dtype.base_dtype, None)]
    batch_dim, seq_dim = int(attrs.get("batch_dim", 0)), int(attrs["seq_dim"])
    if batch_dim >= len(shape):
        raise ShapeError(f"batch_dim must be < input rank: {batch_dim} vs. {len(shape)}")
    if seq_dim >= len(shape):
        raise ShapeError(f"seq_dim must be < input rank: {seq_dim} vs. {len(shape)}")
    batch, n = shape[batch_dim], lengths[0] if lengths is not None else None
    if batch is not None and n is not None and batch != n:
        raise ShapeError(f"Dimensions must be equal, but are {batch} and {n}")
    out = list(shape)
    out[batch_dim] = batch if batch is not None else n
    return [(inputs[0].dtype.base_dtype, tuple(out))]
