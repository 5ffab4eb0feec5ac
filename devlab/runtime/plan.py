"""Compiling a run: prune the graph to what the fetches need, split it by device, add one
transfer per (tensor, destination device), and lay the steps out in an order that respects
every data and control edge.

The result is a ``Plan``, built once per (fetches, feeds) and reused by later runs, so a steady
``Session.run`` costs little more than its kernels. Its ``partition_graphs`` show what
TensorFlow's partitioner would produce: each device's ops plus a ``_Send``/``_Recv`` pair for
each transfer, named ``<producer>/_<n>`` as DirectSession names them.
"""
from dataclasses import dataclass, field

from ..framework import errors
from ..framework.operation import NodeDef
from ..ops.table import lookup
from .protos import GraphDef


@dataclass(eq=False)
class Step:
    """One unit of execution: an op on its device, or a transfer of one tensor."""
    kind: str  # "op" or "transfer"
    device: object
    op: object = None  # the Operation (for a transfer: the producer)
    inputs: tuple = ()  # value-table slots read
    outputs: tuple = ()  # value-table slots written
    deref: tuple = ()  # per input: read the variable behind a reference
    src_device: object = None  # transfer only
    tensor: object = None  # transfer only: the Tensor moved
    send_name: str = ""
    recv_name: str = ""
    context: object = None  # the kernel context, built once

    @property
    def name(self):
        return self.recv_name if self.kind == "transfer" else self.op.name


@dataclass
class Plan:
    steps: list
    slot_of: dict  # (tensor, device name) -> slot
    fetch_slots: list  # per fetch: slot, or None for an op fetch
    feed_slots: list  # per feed: (slot, tensor, device)
    num_slots: int
    partition_graphs: list = field(default_factory=list)
    transfers: list = field(default_factory=list)


def needed_ops(fetch_ops, fed):
    """Every op the fetches depend on, through data and control edges, stopping at fed tensors."""
    seen, stack = set(), list(fetch_ops)
    while stack:
        op = stack.pop()
        if op in seen:
            continue
        seen.add(op)
        for t in op.inputs:
            if t not in fed:
                stack.append(t.op)
        stack.extend(op.control_inputs)
    return sorted(seen, key=lambda op: op.id)  # creation order is a topological order


def compile_plan(fetches, feeds, placement, make_context):
    """Builds the Plan for ``fetches`` (Tensors/Operations) given ``feeds`` (Tensors)."""
    fed = set(feeds)
    fetch_ops = [f.op if hasattr(f, "value_index") else f for f in fetches if f not in fed]
    ops = needed_ops(fetch_ops, fed)
    slot_of, steps, transfers = {}, [], []
    device_of = placement.assigned

    def slot(tensor, device):
        key = (tensor, device.name)
        if key not in slot_of:
            slot_of[key] = len(slot_of)
        return slot_of[key]

    feed_slots = [(slot(t, device_of[t.op.name]), t, device_of[t.op.name]) for t in feeds]
    for op in ops:
        if op.type == "Placeholder" and not any(t in fed for t in op.outputs):
            t = op.outputs[0]
            shape = "unknown" if t.shape.dims is None else "[" + ",".join("?" if d is None else str(d) for d in t.shape.dims) + "]"
            raise errors.InvalidArgumentError(
                op.node_def, op, f"You must feed a value for placeholder tensor '{op.name}' with dtype "
                f"{t.dtype.tf_type_name} and shape {shape}\n\t [[{{{{node {op.name}}}}}]]")
    for op in ops:
        if any(t in fed for t in op.outputs):
            continue  # a fed op is not run; its outputs come from the feed
        device = device_of[op.name]
        opdef = lookup(op.type)
        in_slots = []
        for t in op.inputs:
            src = device_of[t.op.name]
            if src is not device:
                if (t, device.name) not in slot_of:
                    step = Step("transfer", device, op=t.op, inputs=(slot(t, src),), outputs=(slot(t, device),),
                                src_device=src, tensor=t)
                    transfers.append(step)
                    steps.append(step)
            in_slots.append(slot(t, device))
        deref = tuple(i not in opdef.ref_inputs for i in range(len(op.inputs)))
        steps.append(Step("op", device, op=op, inputs=tuple(in_slots), deref=deref,
                          outputs=tuple(slot(t, device) for t in op.outputs), context=make_context(op, device)))
    _name_transfers(transfers)
    fetch_slots = [slot_of[(f, device_of[f.op.name].name)] if hasattr(f, "value_index") else None
                   for f in fetches]
    plan = Plan(steps, slot_of, fetch_slots, feed_slots, len(slot_of), transfers=transfers)
    plan.partition_graphs = _partition_graphs(ops, fed, device_of, transfers)
    return plan


def _name_transfers(transfers):
    for n, step in enumerate(transfers):
        step.send_name = f"{step.op.name}/_{2 * n}"
        step.recv_name = f"{step.op.name}/_{2 * n + 1}"


def _partition_graphs(ops, fed, device_of, transfers):
    """One GraphDef per device: its ops, with each transfer as a _Send here and a _Recv there."""
    graphs = {}
    for op in ops:
        if any(t in fed for t in op.outputs):
            continue
        device = device_of[op.name]
        nd = op.node_def
        graphs.setdefault(device.name, GraphDef()).node.append(
            NodeDef(op.name, op.type, nd.input, device.name, nd.attr))
    for step in transfers:
        src, dst, t = step.src_device, step.device, step.tensor
        attrs = {"tensor_name": f"edge_{t.op.id}_{t.op.name}", "send_device": src.name, "recv_device": dst.name,
                 "client_terminated": False}
        graphs.setdefault(src.name, GraphDef()).node.append(
            NodeDef(step.send_name, "_Send", [t.name if t.value_index else t.op.name], src.name, attrs))
        graphs.setdefault(dst.name, GraphDef()).node.append(
            NodeDef(step.recv_name, "_Recv", [], dst.name, attrs))
    return [graphs[k] for k in sorted(graphs)]
