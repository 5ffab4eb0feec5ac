"""Kernels and shape rules of TF's resource-variable ops (``VarHandleOp``, ``ReadVariableOp``,
``AssignVariableOp``, ``ResourceGather``, ``ResourceApply*``...).

A resource variable's value lives in the session's variable store beside the ref variables',
under its ``shared_name`` (TF's ResourceMgr keys it by container and that name). A run hands
each ``VarHandleOp`` a ``ResourceRef`` into the store, as it hands a ``VariableV2`` its
``VarRef``: the ops taking the handle read and write through it, so a run's writes stay its own
until it commits. The ``ResourceApply*`` ops are the ``Apply*`` kernels on handles, without an
output; the sparse ones likewise.
"""
import numpy as np

from ..framework import dtypes, errors
from . import kernels as K
from . import shapes as S


# -- shape rules -------------------------------------------------------------------------------
def handle(inputs, attrs):
    """A VarHandleOp's output: a scalar resource handle."""
    return [(dtypes.resource, ())]


def variable_dims(handle_tensor):
    """The declared dims of the variable behind a handle (TF's handle data), found by following
    the handle back to its VarHandleOp through the ops that pass it on; None when unknown."""
    t, seen = handle_tensor, 0
    while t.op.type != "VarHandleOp" and t.op.inputs and seen < 64:
        if t.op.type not in ("Identity", "Switch", "Enter", "Merge", "Exit", "NextIteration", "RefIdentity"):
            return None
        t, seen = t.op.inputs[0], seen + 1
    if t.op.type != "VarHandleOp":
        return None
    shape = t.op.attrs.get("shape")
    return None if shape is None else tuple(shape)


def read(inputs, attrs):
    """A ReadVariableOp's output: the variable's dtype and declared shape."""
    return [(attrs["dtype"].base_dtype, variable_dims(inputs[0]))]


def gather_shape(inputs, attrs):
    """Rows ``indices`` of the variable (TF's ResourceGather, batch_dims 0)."""
    params = variable_dims(inputs[0])
    indices = S.dims(inputs[1])
    dims = None if params is None or indices is None or not params else tuple(indices) + tuple(params[1:])
    return [(attrs["dtype"].base_dtype, dims)]


def count_up_to(inputs, attrs):
    return [(attrs["T"].base_dtype, variable_dims(inputs[0]))]


def same_shape_update(inputs, attrs):
    """AssignAddVariableOp / AssignSubVariableOp: the value must have the variable's shape (TF's
    shape function, at build time)."""
    var, value = variable_dims(inputs[0]), S.dims(inputs[1])
    if var is not None and value is not None:
        shapes = f"Shapes are [{','.join(_text(d) for d in var)}] and [{','.join(_text(d) for d in value)}]."
        if len(var) != len(value):
            raise S.ShapeError(f"Shapes must be equal rank, but are {len(var)} and {len(value)}")
        for i, (a, b) in enumerate(zip(var, value)):
            if a is not None and b is not None and a != b:
                raise S.ShapeError(f"Dimension {i} in both shapes must be equal, but are {a} and {b}. {shapes}")
    return []


def _text(d):
    return "?" if d is None else str(d)


def variable_shape(inputs, attrs):
    dims = variable_dims(inputs[0])
    return [(attrs["out_type"].base_dtype, None if dims is None else (len(dims),))]


def no_output(inputs, attrs):
    return []


# -- kernels -----------------------------------------------------------------------------------
def var_handle_op(k):
    raise AssertionError("a variable's handle is put in place by the run, never computed")


def read_variable_op(k, ref):
    try:
        return ref.read()
    except errors.NotFoundError as e:  # TF's words for reading a variable not yet initialized
        raise errors.FailedPreconditionError(
            None, None, f"Could not find variable {ref.name}. This could mean that the variable has been deleted. "
            f"In TF1, it can also mean the variable is uninitialized. Debug info: container=localhost, status error "
            f"message={e.message}") from None


def assign_variable_op(k, ref, value):
    ref.assign(value, validate_shape=False)


def assign_add_variable_op(k, ref, value):
    old = ref.read()
    K._same_size(old, value)
    ref.assign(k.xp.add(old, value))


def assign_sub_variable_op(k, ref, value):
    old = ref.read()
    K._same_size(old, value)
    ref.assign(k.xp.subtract(old, value))


def var_is_initialized_op(k, ref):
    return k.xp.asarray(ref.is_initialized())


def resource_gather(k, ref, indices):
    """The rows ``indices`` of the variable, with TF's error for an index out of range."""
    xp, params = k.xp, ref.read()
    flat = indices.reshape(-1)
    bad = xp.flatnonzero((flat < 0) | (flat >= params.shape[0]))
    if bad.size:
        i = int(bad[0])
        where = ",".join(str(int(d)) for d in np.unravel_index(i, indices.shape)) if indices.ndim else ""
        raise errors.InvalidArgumentError(
            None, None, f"indices[{where}] = {int(flat[i])} is not in [0, {params.shape[0]})")
    return xp.take(params, indices, axis=0)


def disable_copy_on_read(k, ref):
    """TF stops copying the variable's buffer on later writes; devlab's writes never change a buffer a read holds."""


def variable_shape_op(k, ref):
    return k.xp.asarray(ref.read().shape, dtype=k.attrs["out_type"].as_numpy_dtype)


def resource_count_up_to(k, ref):
    return K.count_up_to(k, ref)


def without_output(kernel):
    """A ``Resource*`` kernel from the ref kernel ``kernel``: the same update, no output."""
    def run(k, *inputs):
        kernel(k, *inputs)
    run.__name__ = "resource_" + kernel.__name__
    return run
