"""Slot variables: an optimizer's or a moving average's per-variable state (``w/Momentum``,
``w/ExponentialMovingAverage``), created beside the variable they serve (``colocate_with``)."""
from ..framework.scopes import colocate_with, init_scope, name_scope
from ..ops.array_ops import zeros
from ..ops.variables import Variable


def create_slot(primary, initial_value, name, colocate_with_primary=True):
    """A non-trainable variable ``<primary>/<name>`` holding ``initial_value``."""
    full = f"{primary.op.name}/{name}"
    with init_scope(), name_scope(None):
        if colocate_with_primary:
            with colocate_with(primary):
                return Variable(initial_value, name=full, trainable=False)
        return Variable(initial_value, name=full, trainable=False)


def create_zeros_slot(primary, name, colocate_with_primary=True):
    """A slot of zeros shaped like ``primary``. A second slot of the same name is ``name_1``
    (Adam's ``v`` is ``w/Adam_1``), its initializer under that name too, as TF names them."""
    shape = primary.shape.as_list()
    dtype = primary.dtype.base_dtype
    with name_scope(None):  # unique at the top level, as the slot's own name is
        name = primary.graph.unique_name(f"{primary.op.name}/{name}", mark_as_used=False)[len(primary.op.name) + 1:]
    with init_scope():
        with colocate_with(primary) if colocate_with_primary else name_scope(None):
            init = zeros(shape, dtype=dtype, name=f"{primary.op.name}/{name}/Initializer/zeros")
    return create_slot(primary, init, name, colocate_with_primary)
