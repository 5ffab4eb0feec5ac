"""``group``, ``no_op`` and ``tuple``: ops that only order other ops."""
from ..framework.graph import get_default_graph
from ..framework.scopes import control_dependencies, name_scope
from ..framework.tensor import Tensor
from .build import apply_op


def no_op(name=None):
    return apply_op("NoOp", [], None, name or "NoOp")


def group(*inputs, name=None):
    """A NoOp that runs after every input. When the inputs sit on several devices, TF groups
    them per device first, then joins those groups (so the final NoOp has no device)."""
    ops = []
    for x in inputs:
        for item in (x if isinstance(x, (list, tuple)) else [x]):
            if hasattr(item, "_as_graph_element"):
                item = item._as_graph_element()
            ops.append(item.op if isinstance(item, Tensor) else item)
    with name_scope(name, "group_deps", ops) as scope:
        by_device = {}
        for op in ops:
            by_device.setdefault(op.device, []).append(op)
        if len(by_device) <= 1:
            return _group_on(next(iter(by_device), ""), ops, scope)
        deps = [_group_on(dev, by_device[dev], "NoOp") for dev in sorted(by_device)]
        with control_dependencies(deps):
            return no_op(name=scope)


def _group_on(device, ops, name):
    """A NoOp depending on ``ops``, requested on their common ``device``."""
    with control_dependencies(ops), get_default_graph().device(device):
        return no_op(name=name)


def tuple_(tensors, name=None, control_inputs=None):
    """The same tensors, each readable only after all of them (and ``control_inputs``) ran."""
    from .array_ops import identity
    with name_scope(name, "tuple", tensors):
        gate = group(*[t for t in tensors if t is not None], *(control_inputs or []), name="control_dependency")
        with control_dependencies([gate]):
            return [None if t is None else identity(t, name="control_dependency") for t in tensors]
