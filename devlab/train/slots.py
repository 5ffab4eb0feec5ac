"""Slot variables: an optimizer's or a moving average's per-variable state (``w/Momentum``,
``w/ExponentialMovingAverage``), created beside the variable they serve (``colocate_with``).

As TF's ``slot_creator``: a slot is ``get_variable("")`` inside ``variable_scope(None,
default_name="<primary>/<name>")``, so its name follows the current variable scope
(``scope2/scope1/v0/foo`` when built inside ``variable_scope("scope2")``) and is made unique
(``v0/foo_1``) if that scope was opened before.
"""
import contextlib

from ..framework.scopes import colocate_with
from ..api import init_ops
from ..api.array_ops import zeros_like
from ..api.resource_variable_ops import is_resource_variable
from ..api.partitioned_variables import SaveSliceInfo
from ..api.variable_scope import get_variable, get_variable_scope, variable_scope


def create_slot(primary, val, name, colocate_with_primary=True):
    """A non-trainable variable ``<primary>/<name>`` holding ``val``."""
    validate_shape = val.get_shape().is_fully_defined()
    with variable_scope(None, primary.op.name + "/" + name):
        with colocate_with(primary) if colocate_with_primary else contextlib.nullcontext():
            return _create_slot_var(primary, val, validate_shape, None, None)


def create_slot_with_initializer(primary, initializer, shape, dtype, name, colocate_with_primary=True):
    """A non-trainable variable ``<primary>/<name>`` built by ``initializer(shape, dtype)``."""
    validate_shape = shape.is_fully_defined()
    with variable_scope(None, primary.op.name + "/" + name):
        with colocate_with(primary) if colocate_with_primary else contextlib.nullcontext():
            return _create_slot_var(primary, initializer, validate_shape, shape, dtype)


def create_zeros_slot(primary, name, dtype=None, colocate_with_primary=True):
    """A slot of zeros shaped like ``primary``."""
    dtype = (dtype or primary.dtype).base_dtype
    shape = primary.get_shape()
    if shape.is_fully_defined():
        return create_slot_with_initializer(primary, init_ops.zeros_initializer(), shape, dtype, name,
                                            colocate_with_primary)
    # TF builds zeros(shape(primary)); devlab's zeros needs a static shape.
    return create_slot(primary, zeros_like(primary), name, colocate_with_primary)


def _create_slot_var(primary, val, validate_shape, shape, dtype):
    """The slot: a resource variable beside a resource variable, as TF's slot_creator makes it. The
    scope's partitioner is off meanwhile (a slot is one variable); the slot of a shard of a
    partitioned variable is a shard too: its first dimensions are sliced as the primary's."""
    scope = get_variable_scope()
    partitioner = scope.partitioner
    scope.set_partitioner(None)
    try:
        slot = get_variable("", initializer=val, trainable=False, shape=shape if callable(val) else None,
                            dtype=dtype, validate_shape=validate_shape, use_resource=is_resource_variable(primary))
    finally:
        scope.set_partitioner(partitioner)
    info = getattr(primary, "_save_slice_info", None)
    if info:
        n = slot.shape.ndims  # a slot of fewer dimensions (but not a scalar) takes the first n of the slice
        if n is None or n > 0:
            slot_name = slot.name[len(primary.op.name + "/"):-2]
            slot._set_save_slice_info(SaveSliceInfo(f"{info.full_name}/{slot_name}", info.full_shape[:n],
                                                    info.var_offset[:n], info.var_shape[:n]))
    return slot
