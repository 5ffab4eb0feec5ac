"""Building ops that make, reshape and convert tensors: ``constant``, ``placeholder``, ``reshape``...

Each function builds what TensorFlow's builds, down to the names of the constants it feeds its
op: ``tf.reshape(x, [2, 3])`` is a ``Reshape`` whose second input is the Const ``Reshape/shape``,
and ``tf.shape(x)`` of a fully known ``x`` is already a Const (TF folds it while building).
"""
import builtins
import numbers

import numpy as np

from ..framework import dtypes
from ..framework.dimension import Dimension
from ..framework.indexed_slices import IndexedSlices
from ..framework.scopes import name_scope
from ..framework.tensor import Tensor
from ..framework.tensor_shape import TensorShape
from ..ops.build import apply_op, apply_op_output, constant, convert_input, convert_to_tensor, op, op_output, to_numpy
from .elementwise import binary
from ..unimplemented import reject
from ..ops import allocation
from ..ops.recorded import OP_DEFS
from ..ops.sparse_tensor import SparseTensor, SparseTensorValue
from ..ops.validate import make_int
from ..ops.tensor_util import constant_value as _constant_value

newaxis = None


def _static_shape(shape):
    """A shape argument (a list, a TensorShape, Dimensions) as a tuple of sizes, or None."""
    try:
        return TensorShape(shape).sizes
    except (TypeError, ValueError) as e:
        raise ValueError(f"Error converting shape to a TensorShape: {e}.") from None


def placeholder(dtype, shape=None, name=None):
    """A value fed at run time; running it unfed is TF's InvalidArgumentError."""
    return apply_op_output("Placeholder", [], {"dtype": dtypes.as_dtype(dtype), "shape": _static_shape(shape)},
                           name or "Placeholder")


def placeholder_with_default(input, shape, name=None):  # noqa: A002 - TF's argument name
    """``input`` unless a value is fed (its static shape is ``shape``, which may be less specific)."""
    return op_output("PlaceholderWithDefault", name, [("input", input, None)], {"shape": _static_shape(shape)})


def identity(input, name=None):  # noqa: A002
    if isinstance(input, SparseTensor):  # TF: each component through its own Identity (name ignored)
        return SparseTensor(identity(input.indices), identity(input.values), identity(input.dense_shape))
    try:
        x = convert_to_tensor(input)
    except ValueError as e:  # TF's op-def layer names the argument it could not convert
        raise ValueError(f"Tried to convert 'input' to a tensor and failed. Error: {e}") from None
    return apply_op_output("Identity", [x], None, name or "Identity")


def identity_n(input, name=None):  # noqa: A002
    """Each tensor of the list ``input`` passed through one ``IdentityN`` op (TF's ``tf.identity_n``)."""
    xs = [convert_to_tensor(x) for x in input]
    return apply_op("IdentityN", xs, {"T": [x.dtype.base_dtype for x in xs]}, name or "IdentityN").outputs


def stop_gradient(input, name=None):  # noqa: A002
    return apply_op_output("StopGradient", [convert_to_tensor(input)], None, name or "StopGradient")


def prevent_gradient(input, message="", name=None):  # noqa: A002
    """``input`` unchanged, through a ``PreventGradient`` op whose gradient is an error naming ``message``."""
    return apply_op_output("PreventGradient", [convert_to_tensor(input)], {"message": message},
                           name or "PreventGradient")


_subtract = binary("Sub", "Sub")  # transpose's perm for an unknown rank


def _index_dtype(value):
    """int32, or int64 where a tensor given as an index list is int64 (TF's ``Tshape``/``Tidx``)."""
    return None if isinstance(value, Tensor) else dtypes.int32


# -- shapes ----------------------------------------------------------------------------------------
def reshape(tensor, shape, name=None):
    """``tensor`` with the same elements in ``shape`` (one -1 is inferred)."""
    with name_scope(name, "Reshape", [tensor, shape]) as scope:
        x = convert_to_tensor(tensor, name="tensor")
        if isinstance(shape, (list, tuple)) and not shape:  # TF converts [] to float32 first, then again
            constant(shape, name="shape")
        s = convert_input("Reshape", "shape", shape, _index_dtype(shape))
        return apply_op_output("Reshape", [x, s], None, scope)


def transpose(a, perm=None, name="transpose"):
    """Permutes the dims (reverses them when ``perm`` is None: a matrix transpose)."""
    with name_scope(name, "transpose", [a]) as scope:
        x = convert_to_tensor(a, name="a")
        if perm is None:
            if x.shape.ndims is None:
                r = rank(x)
                perm = _subtract(_subtract(r, 1, name="sub"), range(0, r, 1), name="sub_1")
            else:
                perm = np.arange(x.shape.ndims - 1, -1, -1, dtype=np.int32)
        return op_output("Transpose", scope, [("x", x, None), ("perm", perm, _index_dtype(perm))])


def concat(values, axis, name="concat"):
    """Joins ``values`` along ``axis``: one ``ConcatV2`` with the Const ``concat/axis``."""
    if not isinstance(values, (list, tuple)):
        values = [values]
    if len(values) == 1:  # TF checks the axis, then passes the one value through
        with name_scope(name) as scope:
            convert_to_tensor(axis, name="concat_dim", dtype=dtypes.int32)
            return identity(values[0], name=name or "concat")
    with name_scope(name, "ConcatV2", values) as scope:
        xs = [convert_to_tensor(v, name=f"values_{i}") for i, v in enumerate(values)]
        ax = convert_to_tensor(axis, dtype=_index_dtype(axis), name="axis")
        return apply_op_output("ConcatV2", xs + [ax], {"N": len(xs)}, scope)


def stack(values, axis=0, name="stack"):
    """Stacks same-shaped tensors along a new axis (a Const when every value is one already)."""
    if not isinstance(values, (list, tuple, np.ndarray)):
        if axis == 0:  # TF's stack first tries the values as one constant
            return convert_to_tensor(values, name=name)
        raise TypeError(f"Expected list for 'values' argument to 'Pack' Op, not {values!r}.")
    if axis == 0 and not any(isinstance(v, Tensor) or hasattr(v, "_to_tensor") for v in values):
        try:
            return convert_to_tensor(values, name=name)
        except (TypeError, ValueError):
            if any(isinstance(v, (list, tuple)) for v in values):  # ragged: a Pack of its parts says why
                with name_scope(name, "Pack", values) as scope:
                    xs = [convert_to_tensor(v, name=f"values_{i}") for i, v in enumerate(values)]
                    return apply_op_output("Pack", xs, {"axis": 0, "N": len(xs)}, scope)
    if any(isinstance(v, IndexedSlices) for v in values):
        # Not autopacked (TF packs only lists holding a Tensor); TF's stack converts values[0] for its
        # shape first, an op left unused, then the Pack converts each value itself.
        convert_to_tensor(values[0], name=name)
    elif axis == 0:
        return convert_to_tensor(list(values), name=name)  # autopacking: one Pack named ``name``
    with name_scope(name, "Pack", values) as scope:
        xs = [convert_to_tensor(v, name=f"values_{i}") for i, v in enumerate(values)]
        return apply_op_output("Pack", xs, {"axis": make_int(axis, "axis"), "N": len(xs)}, scope)


def unstack(value, num=None, axis=0, name="unstack"):
    x = convert_to_tensor(value)
    axis = make_int(axis, "axis")
    rank = x.shape.ndims
    if rank is not None and not -rank <= axis < rank:
        raise ValueError(f"Argument `axis` = {axis} not in range [{-rank}, {rank})")
    if num is None:
        num = x.shape.sizes[axis] if x.shape.sizes else None
        if num is None:
            raise ValueError(f"Cannot infer argument `num` from shape {x.shape}")
    return op("Unpack", name, [("value", x, None)], {"num": num, "axis": axis}, default_name="unstack").outputs


def expand_dims(input, axis=None, name=None, dim=None):  # noqa: A002
    axis = dim if axis is None else axis
    return op_output("ExpandDims", name, [("input", input, None), ("dim", axis, _index_dtype(axis))])


def squeeze(input, axis=None, name=None, squeeze_dims=None):  # noqa: A002
    """Removes dims of size 1 (only those in ``axis`` when given)."""
    axis = squeeze_dims if axis is None else axis
    if np.isscalar(axis):
        axis = [axis]
    return op_output("Squeeze", name, [("input", input, None)],
                     {"squeeze_dims": [make_int(a, "axis") for a in axis or []]})


def fill(dims, value, name=None):
    """A tensor of shape ``dims`` filled with ``value``."""
    return op_output("Fill", name, [("dims", dims, _index_dtype(dims)), ("value", value, None)])


def _constant_or_fill(value, shape, dtype, name):
    """TF's zeros/ones: a Const when it has fewer than 1000 elements, else a Fill."""
    dtype = dtypes.as_dtype(dtype)
    if not isinstance(shape, Tensor):
        try:  # as TF: any sequence of sizes (a TensorShape of it), else the value as an int32 tensor
            dims_ = TensorShape(shape).as_list()
            if isinstance(shape, (list, tuple)) and not all(isinstance(d, (numbers.Integral, Dimension)) for d in shape):
                raise TypeError("a shape's sizes are ints")
            if None in dims_:
                raise ValueError("a shape to fill is fully known")
        except (TypeError, ValueError):
            shape = convert_to_tensor(shape, dtype=dtypes.int32)
            if shape.shape.ndims == 0:
                shape = reshape(shape, [-1])
        else:
            if int(np.prod(dims_, dtype=object)) < 1000:
                return constant(value, dtype=dtype, shape=dims_, name=name)
            shape = constant(dims_, dtype=dtypes.int32 if max(dims_) < 2**31 else dtypes.int64,
                             name="shape_as_tensor")
    return apply_op_output("Fill", [shape, constant(value, dtype=dtype)], None, name)


def zeros(shape, dtype=dtypes.float32, name=None):
    dt = dtypes.as_dtype(dtype).base_dtype
    zero = False if dt.is_bool else "" if dt == dtypes.string else 0  # TF's zero of each dtype
    with name_scope(name, "zeros", [shape]) as scope:
        return _constant_or_fill(zero, shape, dtype, scope)


def ones(shape, dtype=dtypes.float32, name=None):
    with name_scope(name, "ones", [shape]) as scope:
        return _constant_or_fill(True if dtypes.as_dtype(dtype).is_bool else 1, shape, dtype, scope)


def zeros_like(tensor, dtype=None, name=None, optimize=True):
    """Zeros shaped like ``tensor``: a Const (or Fill) when its shape is static, else ZerosLike."""
    with name_scope(name, "zeros_like", [tensor]) as scope:
        x = convert_to_tensor(tensor, name="tensor")
        if optimize and x.shape.is_fully_defined():
            return zeros(list(x.shape.sizes), dtype=dtype or x.dtype.base_dtype, name=scope)
        if dtype is not None and dtypes.as_dtype(dtype) != x.dtype.base_dtype:
            return zeros(shape(x), dtype=dtype, name=scope)
        return apply_op_output("ZerosLike", [x], None, scope)


def ones_like(tensor, dtype=None, name=None, optimize=True):
    """Ones shaped like ``tensor``: a Fill of its shape (a Const when the shape is static)."""
    with name_scope(name, "ones_like", [tensor]) as scope:
        x = convert_to_tensor(tensor, name="tensor")
        if optimize and x.shape.is_fully_defined():
            with name_scope(None, "Shape"):
                dims_ = constant(list(x.shape.sizes), dtype=dtypes.int32, name="shape_as_tensor")
        else:
            dims_ = shape(x)
        dtype = dtypes.as_dtype(dtype or x.dtype.base_dtype)
        one = constant(True if dtype.is_bool else 1, dtype=dtype)  # TF's ones of bool are True
        return apply_op_output("Fill", [dims_, one], None, scope)


def unique(x, out_idx=dtypes.int32, name=None):
    """The distinct values of a vector (in order of first appearance) and, for each element, the
    index of its value among them."""
    y, idx = op("Unique", name, [("x", x, None)], {"out_idx": dtypes.as_dtype(out_idx)}).outputs
    return y, idx


def shape(input, name=None, out_type=dtypes.int32):  # noqa: A002
    """The shape as a tensor: a Const when fully known while building (as TF folds it), else Shape."""
    with name_scope(name, "Shape", [input]) as scope:
        if isinstance(input, (SparseTensor, SparseTensorValue)):  # its dense shape, as out_type
            return apply_op_output("Cast", [convert_to_tensor(input.dense_shape, dtypes.int64)],
                                   {"DstT": dtypes.as_dtype(out_type), "Truncate": False}, "Cast")
        x = convert_to_tensor(input)
        if x.shape.is_fully_defined():
            return constant(list(x.shape.sizes), dtype=out_type, name=scope)
        return apply_op_output("Shape", [x], {"out_type": dtypes.as_dtype(out_type)}, scope)


def shape_n(input, out_type=dtypes.int32, name=None):  # noqa: A002
    """The shapes of several tensors, from one ``ShapeN`` op (never folded, as in TF)."""
    xs = [convert_to_tensor(x) for x in input]
    return apply_op("ShapeN", xs, {"out_type": dtypes.as_dtype(out_type), "N": len(xs)}, name or "ShapeN").outputs


def size(input, name=None, out_type=dtypes.int32):  # noqa: A002
    with name_scope(name, "Size", [input]) as scope:
        x = convert_to_tensor(input)
        if x.shape.is_fully_defined():
            return constant(x.shape.num_elements(), dtype=out_type, name=scope)
        return apply_op_output("Size", [x], {"out_type": dtypes.as_dtype(out_type)}, scope)


def rank(input, name=None):  # noqa: A002
    with name_scope(name, "Rank", [input]) as scope:
        x = convert_to_tensor(input)
        if x.shape.ndims is not None:
            return constant(x.shape.ndims, dtype=dtypes.int32, name=scope)
        return apply_op_output("Rank", [x], None, scope)


def cast(x, dtype, name=None):
    """``x`` converted to ``dtype`` (a tensor already of that dtype is returned as it is)."""
    dtype = dtypes.as_dtype(dtype)
    if (isinstance(x, Tensor) or hasattr(x, "_should_act_as_resource_variable")) and x.dtype.base_dtype == dtype:
        return x  # a resource variable too: TF counts it a Tensor here
    with name_scope(name, "Cast", [x]) as scope:
        x = convert_to_tensor(x, name="x")
        if x.dtype.base_dtype == dtype:
            return x
        return apply_op_output("Cast", [x], {"SrcT": x.dtype.base_dtype, "DstT": dtype}, scope)


def to_float(x, name="ToFloat"):
    return cast(x, dtypes.float32, name=name)


def to_int32(x, name="ToInt32"):
    return cast(x, dtypes.int32, name=name)


def to_int64(x, name="ToInt64"):
    return cast(x, dtypes.int64, name=name)


def one_hot(indices, depth, on_value=None, off_value=None, axis=None, dtype=None, name=None):
    with name_scope(name, "one_hot", [indices, depth, on_value, off_value]) as scope:
        on_t = None if on_value is None else convert_to_tensor(on_value)
        off_t = None if off_value is None else convert_to_tensor(off_value)
        dtype = dtypes.as_dtype(dtype or (on_t.dtype.base_dtype if on_t is not None else None) or
                                (off_t.dtype.base_dtype if off_t is not None else None) or dtypes.float32)
        on = on_t if on_t is not None else convert_to_tensor(1, dtype=dtype, name="on_value")
        off = off_t if off_t is not None else convert_to_tensor(0, dtype=dtype, name="off_value")
        return op_output("OneHot", scope, [("indices", indices, None), ("depth", depth, dtypes.int32),
                                           ("on_value", on, None), ("off_value", off, None)],
                         {"axis": -1 if axis is None else make_int(axis, "axis")})


# -- indexing ------------------------------------------------------------------------------------
def tile(input, multiples, name=None):  # noqa: A002
    return op_output("Tile", name, [("input", input, None), ("multiples", multiples, _index_dtype(multiples))])


def pad(tensor, paddings, mode="CONSTANT", name=None, constant_values=0):
    """Pads with ``constant_values`` (``Pad``, or ``PadV2`` when not 0) or mirrors (``MirrorPad``)."""
    if not isinstance(mode, str):  # TF fails on mode.upper() (AttributeError); devlab names the argument
        raise TypeError(f"Expected string for argument 'mode' not {mode!r}.")
    mode = mode.upper()
    args = [("input", tensor, None), ("paddings", paddings, _index_dtype(paddings))]
    if mode == "CONSTANT":
        if not isinstance(constant_values, Tensor) and np.ndim(constant_values) == 0 and constant_values == 0:
            return op_output("Pad", name, args)
        x = convert_to_tensor(tensor) if not isinstance(tensor, Tensor) else tensor
        return op_output("PadV2", name, args + [("constant_values", constant_values, x.dtype.base_dtype)])
    if mode not in ("REFLECT", "SYMMETRIC"):
        raise ValueError(f"Value of argument `mode` expected to be one of \"CONSTANT\", \"REFLECT\", or "
                         f"\"SYMMETRIC\". Received `mode` = {mode}")
    return op_output("MirrorPad", name, args, {"mode": mode})


def gather(params, indices, validate_indices=None, name=None, axis=None, batch_dims=0):
    """params[indices] along ``axis`` (a ``GatherV2``, with the Const ``GatherV2/axis``)."""
    if batch_dims:
        raise NotImplementedError("devlab's gather supports batch_dims=0 only")
    axis = batch_dims if axis is None else axis
    if hasattr(params, "sparse_read") and (axis == 0 if isinstance(axis, (int, np.integer)) else
                                           isinstance(axis, Tensor) and _constant_value(axis) == 0):
        return params.sparse_read(indices, name=name)  # a resource variable: one ResourceGather (TF's dispatch)
    return op_output("GatherV2", name, [("params", params, None), ("indices", indices, None),
                                        ("axis", axis, _index_dtype(axis))], {"batch_dims": 0})


def where(condition, x=None, y=None, name=None):
    """TF1's where: the coordinates of true elements (``Where``), or a ``Select`` of x and y."""
    if x is None and y is None:
        with name_scope(name, "Where", [condition]) as scope:
            c = convert_to_tensor(condition, preferred_dtype=dtypes.bool, name="condition")
            return apply_op_output("Where", [c], None, scope)
    if x is None or y is None:
        raise ValueError("x and y must both be non-None or both be None.")
    return op_output("Select", name, [("condition", condition, None), ("t", x, None),
                                      ("e", y, _dtype_of(x))])


def where_v2(condition, x=None, y=None, name=None):
    """TF2's where: like ``where``, broadcasting condition, x and y (``SelectV2``)."""
    if x is None and y is None:
        return where(condition, name=name)
    return op_output("SelectV2", name, [("condition", condition, None), ("t", x, None),
                                        ("e", y, _dtype_of(x))])


def _dtype_of(x):
    return x.dtype.base_dtype if isinstance(x, Tensor) or hasattr(x, "_to_tensor") else None


def slice(input_, begin, size, name=None):  # noqa: A001 - TF's name
    """The block of ``size`` starting at ``begin`` (-1 in size: to the end of that dim)."""
    return op_output("Slice", name, [("input", input_, None), ("begin", begin, _index_dtype(begin)),
                                     ("size", size, _index_dtype(size))])


def split(value, num_or_size_splits, axis=0, num=None, name="split"):
    """``Split`` into equal pieces (an int), or ``SplitV`` into pieces of the given sizes."""
    if isinstance(num_or_size_splits, Dimension) and num_or_size_splits.value is not None:
        num_or_size_splits = num_or_size_splits.value  # tf.split(x, x.shape[1], axis=1)
    if isinstance(num_or_size_splits, numbers.Integral):
        return op("Split", name, [("split_dim", axis, dtypes.int32), ("value", value, None)],
                  {"num_split": int(num_or_size_splits)}, default_name="split").outputs
    sizes = convert_to_tensor(num_or_size_splits)
    if sizes.shape.ndims == 0:
        raise ValueError(f"Rank-0 tensors are not supported as the num_or_size_splits argument to split. "
                         f"Argument provided: {num_or_size_splits}")
    if num is None:
        num = sizes.shape.sizes[0] if sizes.shape.sizes else None
        if num is None:
            raise ValueError(f"Cannot infer argument `num` from shape {num_or_size_splits}")
    return op("SplitV", name, [("value", value, None), ("size_splits", sizes, None),
                               ("split_dim", axis, dtypes.int32)], {"num_split": make_int(num, "num")},
              default_name="split").outputs


def strided_slice(input_, begin, end, strides=None, begin_mask=0, end_mask=0, ellipsis_mask=0, new_axis_mask=0,
                  shrink_axis_mask=0, var=None, name=None):
    reject("tf.strided_slice", var=(var, None))  # TF: the variable a sliced assignment writes
    if strides is None:
        strides = ones_like(begin)
    attrs = {"begin_mask": begin_mask, "end_mask": end_mask, "ellipsis_mask": ellipsis_mask,
             "new_axis_mask": new_axis_mask, "shrink_axis_mask": shrink_axis_mask}
    inputs = [("input", input_, None), ("begin", begin, _index_dtype(begin)), ("end", end, _index_dtype(end)),
              ("strides", strides, _index_dtype(strides))]
    return op_output("StridedSlice", name, inputs, attrs)


def getitem(tensor, slice_spec):
    """``tensor[spec]``, built as TF's ``_slice_helper`` builds it: one StridedSlice whose
    begin/end/strides are Consts named ``strided_slice/stack``, ``stack_1``, ``stack_2``
    (``Pack`` ops when a bound is a tensor) and whose masks say which bounds were left out,
    which dims are new (``None``) and which are indexed away (an int)."""
    if not isinstance(slice_spec, (list, tuple)):
        slice_spec = [slice_spec]
    begin, end, strides = [], [], []
    masks = {"begin_mask": 0, "end_mask": 0, "ellipsis_mask": 0, "new_axis_mask": 0, "shrink_axis_mask": 0}
    for index, s in enumerate(slice_spec):
        bit = 1 << index
        if isinstance(s, builtins.slice):
            dtype = next((t.dtype.base_dtype for t in (s.start, s.stop, s.step) if isinstance(t, Tensor)), None)

            def bound(value, default, mask):
                if value is not None:
                    _check_index(value)
                    return value
                if mask:
                    masks[mask] |= bit
                return default if dtype is None else constant(default, dtype=dtype)
            begin.append(bound(s.start, 0, "begin_mask"))
            end.append(bound(s.stop, 0, "end_mask"))
            strides.append(bound(s.step, 1, None))
        elif s is Ellipsis:
            begin.append(0), end.append(0), strides.append(1)
            masks["ellipsis_mask"] |= bit
        elif s is None:
            begin.append(0), end.append(0), strides.append(1)
            masks["new_axis_mask"] |= bit
        else:
            _check_index(s)
            begin.append(s)
            end.append(s + 1)
            strides.append(1)
            masks["shrink_axis_mask"] |= bit
    with name_scope(None, "strided_slice", [tensor]) as scope:
        packed = [stack(begin), stack(end), stack(strides)] if begin else [constant([], dtype=dtypes.int32)] * 3
        return op_output("StridedSlice", scope, [("input", tensor, None)] + [(n, p, None) for n, p in
                                                                            zip(("begin", "end", "strides"), packed)],
                         masks)


def _check_index(idx):
    if isinstance(idx, numbers.Integral):
        return
    if isinstance(idx, Tensor) and idx.dtype.base_dtype in (dtypes.int16, dtypes.int32, dtypes.int64) \
            and idx.shape.ndims == 0:
        return
    raise TypeError("Only integers, slices (`:`), ellipsis (`...`), tf.newaxis (`None`) and scalar "
                    f"tf.int32/tf.int64 tensors are valid indices, got {idx!r}")


def range(start, limit=None, delta=1, dtype=None, name="range"):  # noqa: A001 - TF's name
    """[start, start + delta, ...) up to ``limit`` (``range(n)`` counts from 0)."""
    if limit is None:
        start, limit = 0, start
    with name_scope(name, "Range", [start, limit, delta]) as scope:
        args = [a if isinstance(a, Tensor) else convert_to_tensor(a, dtype=dtype, name=n)
                for a, n in zip((start, limit, delta), ("start", "limit", "delta"))]
        for a in args:
            if a.shape.ndims not in (0, None):
                raise ValueError(f"Shape must be rank 0 but is rank {a.shape.ndims}")
        if dtype is None:
            order = [dtypes.int32, dtypes.int64, dtypes.float16, dtypes.float32, dtypes.float64]
            dtype = max((a.dtype.base_dtype for a in args), key=order.index)
        args = [cast(a, dtype) for a in args]
        return apply_op_output("Range", args, {"Tidx": dtypes.as_dtype(dtype)}, scope)


def invert_permutation(x, name=None):
    return op_output("InvertPermutation", name, [("x", x, dtypes.int32)])


def gather_nd(params, indices, name=None, batch_dims=0, bad_indices_policy=""):
    """The slices of ``params`` at the index tuples in the last dimension of ``indices`` (an index
    out of range: an error, or zeros with ``bad_indices_policy="IGNORE"``)."""
    if batch_dims:
        raise NotImplementedError("devlab's gather_nd has no batch_dims")
    attrs = {"bad_indices_policy": bad_indices_policy} if bad_indices_policy else None
    return op_output("GatherNd", name, [("params", params, None), ("indices", indices, None)], attrs)


def scatter_nd(indices, updates, shape, bad_indices_policy="", name=None):
    """Zeros of ``shape`` with ``updates`` added at ``indices`` (``tf.scatter_nd``)."""
    attrs = {"bad_indices_policy": bad_indices_policy} if bad_indices_policy else None
    return op_output("ScatterNd", name, [("indices", indices, None), ("updates", updates, None),
                                         ("shape", shape, _index_dtype(indices))], attrs)


def sparse_to_dense(sparse_indices, output_shape, sparse_values, default_value=0, validate_indices=True, name=None):
    """A dense tensor of ``output_shape`` holding ``default_value`` but ``sparse_values`` at
    ``sparse_indices`` (TF1's ``tf.sparse_to_dense``: one SparseToDense op)."""
    with name_scope(name, "SparseToDense", [sparse_indices, output_shape, sparse_values, default_value]) as scope:
        indices = convert_to_tensor(sparse_indices, name="sparse_indices")
        shape = convert_to_tensor(output_shape, dtype=indices.dtype.base_dtype, name="output_shape")
        values = convert_to_tensor(sparse_values, name="sparse_values")
        default = convert_to_tensor(default_value, dtype=values.dtype.base_dtype, name="default_value")
        return apply_op_output("SparseToDense", [indices, shape, values, default],
                               {"validate_indices": bool(validate_indices)}, scope)


def sequence_mask(lengths, maxlen=None, dtype=dtypes.bool, name=None):
    """``mask[..., j] = j < lengths[...]`` for j in [0, maxlen) (maxlen: the largest length when
    None), built as TF builds it: ``Range(0, maxlen, 1) < Cast(ExpandDims(lengths, -1))``, then a
    Cast to ``dtype`` unless it is bool."""
    with name_scope(name, "SequenceMask", [lengths, maxlen]):
        lengths = convert_to_tensor(lengths)
        if maxlen is None:
            ndims = lengths.shape.ndims
            axes = constant(list(builtins.range(ndims)), dtype=dtypes.int32) if ndims is not None else \
                range(0, rank(lengths))
            maxlen = apply_op_output("Max", [lengths, axes], {"keep_dims": False}, "Max")
            maxlen = apply_op_output("Maximum", [constant(0, dtype=maxlen.dtype), maxlen], None, "Maximum")
        else:
            maxlen = convert_to_tensor(maxlen)
        if maxlen.shape.ndims is not None and maxlen.shape.ndims != 0:
            raise ValueError(f"Argument `maxlen` must be scalar for sequence_mask, received `maxlen` = {maxlen} "
                             f"with shape '{maxlen.shape}' instead")
        index_dtype = maxlen.dtype.base_dtype
        row = apply_op_output("Range", [constant(0, dtype=index_dtype), maxlen, constant(1, dtype=index_dtype)],
                              {"Tidx": index_dtype}, "Range")
        column = expand_dims(lengths, -1)
        column = apply_op_output("Cast", [column], {"SrcT": column.dtype.base_dtype, "DstT": index_dtype}, "Cast")
        result = apply_op_output("Less", [row, column], None, "Less")
        if dtype is None or dtypes.as_dtype(dtype) == dtypes.bool:
            return result
        return apply_op_output("Cast", [result], {"SrcT": dtypes.bool, "DstT": dtypes.as_dtype(dtype)}, "Cast")


def parallel_stack(values, name="parallel_stack"):
    """``stack(values)`` as one ParallelConcat of the values each given a leading dim (TF's
    parallel_stack: every input must have the first one's static shape; no gradient)."""
    if not isinstance(values, (list, tuple)):  # TF indexes it blindly (an IndexError): say what it needs
        raise TypeError(f"Expected list for 'values' argument to 'parallel_stack', not {values!r}.")
    if not values:
        raise ValueError("parallel_stack needs at least one value to stack (got an empty list)")
    with name_scope(name):
        first = convert_to_tensor(values[0])
        if first.shape.ndims is None:
            raise ValueError("parallel_stack needs values of known rank")
        shape = (len(values),) + tuple(first.shape.as_list())
        return apply_op_output("ParallelConcat", [expand_dims(v, 0) for v in values],
                               {"shape": shape, "N": len(values)}, "ParallelConcat")


def check_numerics(tensor, message, name=None):
    """``tensor``, checked when run: TF's InvalidArgumentError if it holds NaN or Inf values
    (a CheckNumerics op; floating types only)."""
    tensor = convert_to_tensor(tensor)
    if tensor.dtype.base_dtype.name not in ("bfloat16", "float16", "float32", "float64"):
        raise TypeError(f"Value passed to parameter 'tensor' has DataType {tensor.dtype.base_dtype.name} not in list "
                        "of allowed values: bfloat16, float16, float32, float64")
    return apply_op_output("CheckNumerics", [tensor], {"message": message}, name or "CheckNumerics")
