"""``group``, ``no_op`` and ``tuple``: ops that only order other ops."""
from ..framework.graph import get_default_graph
from ..framework.scopes import colocate_with, control_dependencies, name_scope
from ..framework.operation import Operation
from ..framework.tensor import Tensor
from ..ops.build import apply_op, convert_to_tensor
from .array_ops import identity


def no_op(name=None):
    return apply_op("NoOp", [], None, name or "NoOp")


def group(*inputs, name=None):
    """A NoOp that runs after every input. When the inputs sit on several devices, TF groups
    them per device first, then joins those groups (so the final NoOp has no device)."""
    ops = []
    for x in inputs:
        for item in (x if isinstance(x, (list, tuple)) else [x]):
            if hasattr(item, "_handle") and hasattr(item, "op"):  # a resource variable: its op, not a read (TF)
                item = item.op
            elif hasattr(item, "_as_graph_element"):
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


def with_dependencies(dependencies, output_tensor, name=None):
    """``output_tensor``, readable only after ``dependencies`` ran (an Identity beside it)."""
    with name_scope(name, "control_dependency", list(dependencies) + [output_tensor]) as scope:
        with colocate_with(output_tensor), control_dependencies(dependencies):
            return identity(output_tensor, name=scope)


def tuple_(tensors, name=None, control_inputs=None):
    """The same tensors, each readable only after all of them (and ``control_inputs``) ran."""
    tensors = [t if t is None or isinstance(t, (Tensor, Operation)) or hasattr(t, "values") else convert_to_tensor(t)
               for t in tensors]  # as TF: a plain value becomes a tensor
    for c in control_inputs or []:
        if not isinstance(c, (Tensor, Operation)):
            raise TypeError(f"'control_inputs' must only contain Operation or Tensor. Received: {type(c)}")
    control_inputs = [c.op if isinstance(c, Tensor) else c for c in control_inputs or []]
    with name_scope(name, "tuple", tensors):
        gating = sorted({t.op for t in tensors if t is not None} | set(control_inputs or []), key=lambda op: op.id)
        gate = group(*gating)
        return [None if t is None else with_dependencies([gate], t) for t in tensors]
