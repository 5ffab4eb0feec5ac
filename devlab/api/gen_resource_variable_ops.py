"""The raw builders of TF's resource-variable ops, as TF's generated ``gen_resource_variable_ops``
names them: one op each, inputs that are not tensors made Consts named after their argument.

A resource variable is a ``VarHandleOp`` (its handle, a scalar of dtype ``resource``) and the
ops that take that handle: ``ReadVariableOp`` reads it, ``AssignVariableOp`` writes it. None of
them is colocated with the handle when built; the placer puts each beside it (a resource edge).
"""
from ..framework import dtypes
from ..framework.tensor_shape import TensorShape
from ..ops.build import apply_op, constant, op
from ..ops.resource_variable_kernels import variable_dims
from ..unimplemented import argument, call


def var_handle_op(dtype, shape, container="", shared_name="", debug_name="", allowed_devices=(), name=None):
    """The handle of the resource variable ``shared_name`` (of ``dtype`` and ``shape``)."""
    sizes = TensorShape(shape).sizes
    attrs = {"dtype": dtypes.as_dtype(dtype).base_dtype, "shape": None if sizes is None else list(sizes),
             "container": _bytes(container), "shared_name": shared_name or "", "debug_name": debug_name or "",
             "allowed_devices": list(allowed_devices)}
    return apply_op("VarHandleOp", [], attrs, name or "VarHandleOp").outputs[0]


def read_variable_op(resource, dtype, name=None):
    """The variable's current value (a new tensor each call)."""
    return op("ReadVariableOp", name, [("resource", resource, dtypes.resource)],
              {"dtype": dtypes.as_dtype(dtype).base_dtype}).outputs[0]


def assign_variable_op(resource, value, validate_shape=False, name=None):
    """Writes ``value`` into the variable (creating it, on its first write). Returns the Operation."""
    return op("AssignVariableOp", name, [("resource", resource, dtypes.resource), ("value", value, None)],
              {"validate_shape": bool(validate_shape)})


def assign_add_variable_op(resource, value, name=None):
    return op("AssignAddVariableOp", name, [("resource", resource, dtypes.resource), ("value", value, None)])


def assign_sub_variable_op(resource, value, name=None):
    return op("AssignSubVariableOp", name, [("resource", resource, dtypes.resource), ("value", value, None)])


def disable_copy_on_read(resource, name=None):
    return op("DisableCopyOnRead", name, [("resource", resource, dtypes.resource)])


def var_is_initialized_op(resource, name=None):
    """True once the variable has been written."""
    return op("VarIsInitializedOp", name, [("resource", resource, dtypes.resource)]).outputs[0]


def resource_gather(resource, indices, dtype, batch_dims=0, validate_indices=True, name=None):
    """Rows ``indices`` of the variable, read where the variable lives."""
    if batch_dims:
        raise argument("batch_dims", "tf.raw_ops.ResourceGather")
    return op("ResourceGather", name, [("resource", resource, dtypes.resource), ("indices", indices, None)],
              {"dtype": dtypes.as_dtype(dtype).base_dtype, "batch_dims": 0,
               "validate_indices": bool(validate_indices)}).outputs[0]


def _scatter(op_type):
    def build(resource, indices, updates, name=None):
        """Writes ``updates`` into rows ``indices`` of the variable. Returns the Operation."""
        return op(op_type, name, [("resource", resource, dtypes.resource), ("indices", indices, None),
                                  ("updates", updates, None)])
    build.__name__ = "resource_scatter_" + op_type[len("ResourceScatter"):].lower()
    return build


resource_scatter_add = _scatter("ResourceScatterAdd")
resource_scatter_sub = _scatter("ResourceScatterSub")
resource_scatter_update = _scatter("ResourceScatterUpdate")


def resource_count_up_to(resource, limit, T, name=None):
    return op("ResourceCountUpTo", name, [("resource", resource, dtypes.resource)],
              {"limit": int(limit), "T": dtypes.as_dtype(T).base_dtype}).outputs[0]


def variable_shape_op(handle, out_type=dtypes.int32, name=None):
    """TF's VariableShape: the shape of the variable behind ``handle``, read when the op runs."""
    return op("VariableShape", name, [("input", handle, dtypes.resource)],
              {"out_type": dtypes.as_dtype(out_type)}).outputs[0]


def variable_shape(handle, out_type=dtypes.int32):
    """The shape of the variable behind ``handle``: a constant, as TF makes it when the shape is
    fully known (devlab does not build TF's VariableShape op for the other case)."""
    dims = variable_dims(handle)
    if dims is None or None in dims:
        raise call("tf.raw_ops.VariableShape (the shape of a resource variable of unknown shape)")
    return constant(list(dims), dtype=out_type)


def _bytes(text):
    """A string attr as TF's get_attr returns it (bytes)."""
    return text.encode() if isinstance(text, str) else bytes(text or b"")
