"""``group``, ``no_op`` and ``tuple``: ops that only order other ops."""
from ..framework.graph import get_default_graph
from ..framework.scopes import colocate_with, control_dependencies, name_scope
from ..framework.operation import Operation
from ..framework.tensor import Tensor
from ..framework.indexed_slices import IndexedSlices
from ..ops.build import apply_op, convert_to_tensor
from . import nest
from .array_ops import identity
from .ref_ops import ref_identity


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


def _identity(data, name=None):
    """TF's ``control_flow_ops._Identity``: an Identity, a RefIdentity for a reference (so it can
    still be written through), one per component for an IndexedSlices or SparseTensor."""
    if nest.is_composite(data):
        return nest.map_structure(_identity, data, expand_composites=True)
    data = convert_to_tensor(data, as_ref=True)
    if data.dtype.is_ref:
        return ref_identity(data, name=name)
    return identity(data, name=name)


_Identity = _identity  # noqa: N816 - TF's name


def with_dependencies(dependencies, output_tensor, name=None):
    """``output_tensor``, readable only after ``dependencies`` ran (an Identity beside it; for an
    IndexedSlices, of its values)."""
    with name_scope(name, "control_dependency", list(dependencies) + [output_tensor]) as scope:
        target = output_tensor
        if nest.is_composite(target):
            target = target.values  # TF colocates with the composite's op: its values' op
        elif not isinstance(target, (Tensor, Operation)) and not hasattr(target, "_as_graph_element") \
                and not hasattr(target, "handle"):
            target = convert_to_tensor(target, as_ref=True)  # a plain value: TF converts it to colocate
        with colocate_with(target), control_dependencies(dependencies):
            if not nest.is_composite(output_tensor):
                output_tensor = convert_to_tensor(output_tensor, as_ref=True)
            if isinstance(output_tensor, IndexedSlices):
                return IndexedSlices(_identity(output_tensor.values, name=scope), output_tensor.indices,
                                     output_tensor.dense_shape)
            return _identity(output_tensor, name=scope)


def tuple_(tensors, name=None, control_inputs=None):
    """The same tensors, each readable only after all of them (and ``control_inputs``) ran."""
    tensors = [t if t is None or isinstance(t, (Tensor, Operation)) or hasattr(t, "values") else convert_to_tensor(t)
               for t in tensors]  # as TF: a plain value becomes a tensor (an IndexedSlices stays one)
    for c in control_inputs or []:
        if not isinstance(c, (Tensor, Operation)):
            raise TypeError(f"'control_inputs' must only contain Operation or Tensor. Received: {type(c)}")
    control_inputs = [c.op if isinstance(c, Tensor) else c for c in control_inputs or []]
    with name_scope(name, "tuple", tensors):
        gating = sorted({t.op for t in tensors if t is not None} | set(control_inputs or []), key=lambda op: op.id)
        if not gating:
            raise ValueError(f"'tensors' must have at least one Tensor. Received: {tensors}.")
        gate = group(*gating)
        out = []
        for t in tensors:
            if isinstance(t, Operation):  # an op: a group that runs after the gate
                with control_dependencies([gate]):
                    out.append(group(t))
            else:
                out.append(None if t is None else with_dependencies([gate], t))
        return out
