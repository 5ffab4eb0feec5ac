"""Building ops that make, reshape and convert tensors: ``constant``, ``placeholder``, ``reshape``..."""
import numpy as np

from ..framework import dtypes
from ..framework.scopes import name_scope
from .build import apply_op_output, convert_to_tensor, to_numpy


def constant(value, dtype=None, shape=None, name="Const", verify_shape=False):
    """A ``Const`` op holding ``value`` (reshaped or broadcast to ``shape`` when given)."""
    dtype = None if dtype is None else dtypes.as_dtype(dtype)
    arr = to_numpy(value, dtype)
    if shape is not None:
        shape = tuple(int(d) for d in (shape if isinstance(shape, (list, tuple)) else [shape]))
        size = int(np.prod(shape, dtype=np.int64))
        if arr.size == 1:
            arr = np.full(shape, arr.reshape(()), dtype=arr.dtype)
        elif arr.size == size:
            arr = arr.reshape(shape)
        elif arr.size > size:
            raise TypeError(f"Too many elements provided. Needed at most {size}, but received {arr.size}")
        else:
            raise TypeError(f"Expected Tensor's shape: {shape}, but got {arr.shape}.")
    dt = dtypes.as_dtype(arr.dtype) if arr.dtype.kind not in "OUS" else dtypes.string
    return apply_op_output("Const", [], {"value": arr, "dtype": dt}, name)


def placeholder(dtype, shape=None, name=None):
    """A value fed at run time; running it unfed is TF's InvalidArgumentError."""
    shape = None if shape is None else tuple(shape)
    return apply_op_output("Placeholder", [], {"dtype": dtypes.as_dtype(dtype), "shape": shape},
                           name or "Placeholder")


def placeholder_with_default(input, shape, name=None):  # noqa: A002 - TF's argument name
    x = convert_to_tensor(input)
    return apply_op_output("PlaceholderWithDefault", [x], {"shape": shape}, name or "PlaceholderWithDefault")


def identity(input, name=None):  # noqa: A002
    return apply_op_output("Identity", [convert_to_tensor(input)], None, name or "Identity")


def stop_gradient(input, name=None):  # noqa: A002
    return apply_op_output("StopGradient", [convert_to_tensor(input)], None, name or "StopGradient")


def _static_ints(value, what):
    if hasattr(value, "_as_graph_element") or hasattr(value, "op"):
        raise TypeError(f"devlab needs a static {what} (a Python list), got a tensor")
    return [int(v) for v in np.asarray(value).reshape(-1)]


def reshape(tensor, shape, name=None):
    with name_scope(name, "Reshape", [tensor]) as scope:
        x = convert_to_tensor(tensor, name="tensor")
        return apply_op_output("Reshape", [x], {"shape": _static_ints(shape, "shape")}, scope)


def transpose(a, perm=None, name="transpose"):
    with name_scope(name, "transpose", [a]) as scope:
        x = convert_to_tensor(a, name="a")
        perm = None if perm is None else _static_ints(perm, "perm")
        if perm is None and x.shape.ndims is not None:
            perm = list(reversed(range(x.shape.ndims)))
        return apply_op_output("Transpose", [x], {"perm": perm}, scope)


def concat(values, axis, name="concat"):
    with name_scope(name, "concat", values) as scope:
        xs = [convert_to_tensor(v) for v in values]
        if len(xs) == 1:
            return identity(xs[0], name=scope)
        return apply_op_output("ConcatV2", xs, {"axis": int(axis), "N": len(xs)}, scope)


def stack(values, axis=0, name="stack"):
    with name_scope(name, "stack", values) as scope:
        xs = [convert_to_tensor(v) for v in values]
        return apply_op_output("Pack", xs, {"axis": int(axis), "N": len(xs)}, scope)


def expand_dims(input, axis, name=None):  # noqa: A002
    with name_scope(name, "ExpandDims", [input]) as scope:
        return apply_op_output("ExpandDims", [convert_to_tensor(input)], {"axis": int(axis)}, scope)


def fill(dims, value, name=None):
    """A tensor of shape ``dims`` filled with ``value`` (devlab needs ``dims`` static)."""
    shape = tuple(_static_ints(dims, "dims"))
    with name_scope(name, "Fill", [value]) as scope:
        d = constant(list(shape), dtype=dtypes.int32, name="dims")
        v = convert_to_tensor(value, name="value")
        return apply_op_output("Fill", [d, v], {"shape": shape, "index_type": dtypes.int32}, scope)


def zeros(shape, dtype=dtypes.float32, name=None):
    with name_scope(name, "zeros") as scope:
        return constant(0, dtype=dtype, shape=shape, name=scope)


def ones(shape, dtype=dtypes.float32, name=None):
    with name_scope(name, "ones") as scope:
        return constant(1, dtype=dtype, shape=shape, name=scope)


def zeros_like(tensor, dtype=None, name=None):
    with name_scope(name, "zeros_like", [tensor]) as scope:
        return apply_op_output("ZerosLike", [convert_to_tensor(tensor)], None, scope)


def ones_like(tensor, dtype=None, name=None):
    with name_scope(name, "ones_like", [tensor]) as scope:
        return apply_op_output("OnesLike", [convert_to_tensor(tensor)], None, scope)


def shape(input, name=None, out_type=dtypes.int32):  # noqa: A002
    return apply_op_output("Shape", [convert_to_tensor(input)], {"out_type": dtypes.as_dtype(out_type)},
                           name or "Shape")


def size(input, name=None):  # noqa: A002
    return apply_op_output("Size", [convert_to_tensor(input)], None, name or "Size")


def rank(input, name=None):  # noqa: A002
    return apply_op_output("Rank", [convert_to_tensor(input)], None, name or "Rank")


def cast(x, dtype, name=None):
    dtype = dtypes.as_dtype(dtype)
    with name_scope(name, "Cast", [x]) as scope:
        x = convert_to_tensor(x, name="x")
        if x.dtype.base_dtype == dtype:
            return x
        return apply_op_output("Cast", [x], {"SrcT": x.dtype.base_dtype, "DstT": dtype}, scope)


def one_hot(indices, depth, on_value=None, off_value=None, axis=None, dtype=None, name=None):
    with name_scope(name, "one_hot", [indices]) as scope:
        idx = convert_to_tensor(indices, name="indices")
        out = dtypes.as_dtype(dtype or dtypes.float32)
        return apply_op_output("OneHot", [idx], {"depth": int(depth), "dtype": out, "T": out, "TI": idx.dtype.base_dtype},
                               scope)
