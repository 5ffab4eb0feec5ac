"""``tf.linspace`` (TF's ``linspace_nd``): ``num`` evenly spaced values from ``start`` to ``stop``
along ``axis``, for tensors of any shape, built from ordinary ops as TF 2.21 builds it; with
``tf.broadcast_dynamic_shape`` and ``tf.broadcast_to``, which it uses."""
from ..framework import dtypes
from ..framework.scopes import name_scope
from ..ops.build import apply_op_output, convert_to_tensor, op_output
from . import array_ops
from .check_ops import _tf_str
from .math_ops import equal, maximum


def broadcast_dynamic_shape(shape_x, shape_y):
    """The shape (a 1-D tensor) that shapes ``shape_x`` and ``shape_y`` broadcast to, when run."""
    return op_output("BroadcastArgs", None, [("s0", shape_x, None), ("s1", shape_y, None)])


def broadcast_to(input, shape, name=None):  # noqa: A002 - TF's argument name
    """``input`` broadcast to ``shape`` (a ``BroadcastTo`` op)."""
    return op_output("BroadcastTo", name, [("input", input, None), ("shape", shape, None)])


def convert_to_int_tensor(tensor, name, dtype=dtypes.int32):
    """``tensor`` as an integer tensor cast to ``dtype`` (always through a Cast op, as TF's); TF's
    TypeError for a tensor that is not of an integer type."""
    tensor = convert_to_tensor(tensor, name=name, preferred_dtype=dtype)
    if not tensor.dtype.is_integer:
        raise TypeError(f"Argument `tensor` (name: {name}) must be of type integer. Received `tensor` = "
                        f"{_tf_str(tensor)} of dtype: <dtype: '{tensor.dtype.name}'>")
    return apply_op_output("Cast", [tensor], {"DstT": dtypes.as_dtype(dtype), "SrcT": tensor.dtype.base_dtype,
                                              "Truncate": False}, "Cast")


def linspace_nd(start, stop, num, name=None, axis=0):
    """``num`` values from ``start`` to ``stop`` (both included, broadcast together) along a new
    ``axis``: start, then ``start + delta * i`` for the inner points, then stop exactly."""
    with name_scope(name, "linspace", [start, stop]):
        start = convert_to_tensor(start, name="start")
        stop = convert_to_tensor(stop, name="stop", dtype=start.dtype)
        num_int = convert_to_int_tensor(num, name="num")
        num = array_ops.cast(num_int, dtype=start.dtype)
        del num  # TF computes it and leaves it unused
        broadcast_shape = broadcast_dynamic_shape(array_ops.shape(start), array_ops.shape(stop))
        start = broadcast_to(start, broadcast_shape)
        stop = broadcast_to(stop, broadcast_shape)
        expanded_start = array_ops.expand_dims(start, axis=axis)
        expanded_stop = array_ops.expand_dims(stop, axis=axis)
        shape = array_ops.shape(expanded_start)
        ndims = array_ops.shape(shape)[0]
        axis = array_ops.where_v2(axis >= 0, axis, ndims + axis)
        num_fill = maximum(num_int - 2, 0)
        n_steps = maximum(num_int - 1, 1)
        delta = (expanded_stop - expanded_start) / array_ops.cast(n_steps, expanded_stop.dtype)
        expanded_start = array_ops.cast(expanded_start, delta.dtype)
        expanded_stop = array_ops.cast(expanded_stop, delta.dtype)
        range_end = array_ops.where_v2(num_int >= 0, n_steps, -1)
        desired_range = array_ops.cast(array_ops.range(1, range_end, dtype=dtypes.int64), delta.dtype)
        mask = equal(axis, array_ops.range(ndims))
        desired_range_shape = array_ops.where_v2(mask, num_fill, 1)
        desired_range = array_ops.reshape(desired_range, desired_range_shape)
        res = expanded_start + delta * desired_range
        concatenated = array_ops.concat((expanded_start, res, expanded_stop), axis=axis)
        begin = array_ops.zeros_like(shape)
        size = array_ops.concat((shape[0:axis], array_ops.reshape(num_int, [1]), shape[axis + 1:]), axis=0)
        return array_ops.slice(concatenated, begin, size)


linspace = linspace_nd
lin_space = linspace_nd
