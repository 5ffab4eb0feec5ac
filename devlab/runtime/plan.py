"""Compiling a run: prune the graph to what the fetches need, order it, split it by device, add
one transfer per (tensor, destination device), and decide where every value lives.

The result is a ``Plan``, built once per (fetches, feeds) and reused by later runs, so a steady
``Session.run`` costs little more than its kernels:

* steps are typed (``OpStep``, ``TransferStep``) with their kernels chosen here;
* constants are computed once, here, and preloaded into every run's value table;
* a transfer between two numpy-backed devices is an alias (no copy at run time, still a step);
* each slot is freed after its last reader, so a long chain never holds all its arrays;
* a fetch is copied only if it may alias state (a variable, a constant or a feed).

``partition_graphs`` (TF's per-device GraphDefs with ``_Send``/``_Recv``) are built by
``partition.py`` only when a run asks for them.
"""
import heapq

from ..framework import errors
from ..ops.table import lookup
from .steps import KernelContext, OpStep, TransferStep
from .variable_store import VarRef


class Plan:
    """Everything a run of (fetches, feeds) needs, computed once."""

    def __init__(self, steps, num_slots, initial, variable_slots, feed_slots, fetches, fetch_slots, fetch_devices,
                 fetch_copy, ops):
        self.steps = steps
        self.num_slots = num_slots
        self.initial = initial  # the value table a run starts from: the constants in their slots
        self.variable_slots = variable_slots  # (slot, name, declared shape or None, xp)
        self.feed_slots = feed_slots  # (slot, tensor, device) per feed, in feed order
        self.fetches = fetches  # the fetched Tensors and Operations
        self.fetch_slots = fetch_slots  # per fetch: its slot, or None for an Operation
        self.fetch_devices = fetch_devices  # per fetch: the device its value is on
        self.fetch_copy = fetch_copy  # per fetch: whether its value may alias state
        self.ops = ops  # the ops this plan runs, in execution order
        self.transfers = [s for s in steps if isinstance(s, TransferStep)]
        self.writes_variables = any(
            s.op.outputs and s.op.outputs[0].dtype.is_ref and s.op.type != "VariableV2"
            for s in steps if isinstance(s, OpStep))
        self.runs = 0  # how many times it ran: a plan that runs again gets a compiled program
        self.program = None
        self._partition_graphs = None

    @property
    def partition_graphs(self):
        """TF's partition graphs: each device's ops plus a _Send/_Recv pair per transfer."""
        if self._partition_graphs is None:
            from .partition import partition_graphs
            self._partition_graphs = partition_graphs(self)
        return self._partition_graphs

    def start_values(self, run, feed_values):
        """The value table a run starts from: constants, variable references, fed values."""
        values = list(self.initial)
        for slot, name, shape, xp in self.variable_slots:
            values[slot] = VarRef(run, name, shape, xp)
        for (slot, _, _), value in zip(self.feed_slots, feed_values):
            values[slot] = value
        return values


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
    return seen


def execution_order(ops, fed):
    """``ops`` in an order that respects every data and control edge; creation order where the
    graph allows (so runs are deterministic). A cycle is TF's InvalidArgumentError."""
    ordered = sorted(ops, key=lambda op: op.id)
    position = {op: i for i, op in enumerate(ordered)}
    if all(all(position.get(t.op, -1) < i for t in op.inputs if t not in fed)
           and all(position.get(c, -1) < i for c in op.control_inputs) for i, op in enumerate(ordered)):
        return ordered  # the usual case: ops were created after their inputs
    waiting = {op: 0 for op in ordered}
    users = {op: [] for op in ordered}
    for op in ordered:
        for dep in {t.op for t in op.inputs if t not in fed} | set(op.control_inputs):
            if dep in waiting:
                waiting[op] += 1
                users[dep].append(op)
    ready = [(op.id, op) for op in ordered if waiting[op] == 0]
    heapq.heapify(ready)
    out = []
    while ready:
        _, op = heapq.heappop(ready)
        out.append(op)
        for user in users[op]:
            waiting[user] -= 1
            if waiting[user] == 0:
                heapq.heappush(ready, (user.id, user))
    if len(out) < len(ordered):
        stuck = sorted((op for op in ordered if waiting[op] > 0), key=lambda op: op.id)
        names = ", ".join(op.name for op in stuck[:10])
        raise errors.InvalidArgumentError(
            None, stuck[0], f"Graph is invalid, contains a cycle with {len(stuck)} nodes, including: {names}")
    return out


def compile_plan(fetches, feeds, placement, rngs):
    """Builds the Plan for ``fetches`` (Tensors/Operations) given ``feeds`` (Tensors)."""
    fed = set(feeds)
    fetch_ops = [f.op if hasattr(f, "value_index") else f for f in fetches if f not in fed]
    ops = execution_order(needed_ops(fetch_ops, fed), fed)
    _check_feeds(ops, fed)
    device_of = placement.assigned
    slot_of, steps, initial = {}, [], []
    variable_slots = []

    def slot(tensor, device):
        key = (tensor, device.name)
        s = slot_of.get(key)
        if s is None:
            s = slot_of[key] = len(initial)
            initial.append(None)
        return s

    feed_slots = [(slot(t, device_of[t.op.name]), t, device_of[t.op.name]) for t in feeds]
    executed = []
    for op in ops:
        outputs = op._outputs
        if fed and any(t in fed for t in outputs):
            continue  # a fed op is not run; its outputs come from the feed
        device = device_of[op.name]
        in_slots = []
        for t in op._inputs:
            s = slot_of.get((t, device.name))
            if s is None:
                src = device_of[t.op.name]
                if src is device:
                    s = slot(t, device)
                else:  # a transfer, once per (tensor, destination)
                    source = slot(t, src)
                    alias = src.backend == device.backend == "numpy" and not t.dtype.is_ref
                    if alias:
                        slot_of[(t, device.name)] = source
                    s = slot(t, device)
                    steps.append(TransferStep(t, src, device, source, s, alias))
            in_slots.append(s)
        opdef = lookup(op.type)
        deref = ()  # inputs that are variable references, read as values by this op
        for i, t in enumerate(op._inputs):
            if t.dtype.is_ref and i not in opdef.ref_inputs:
                deref += (i,)
        out_slots = tuple(slot(t, device) for t in outputs)
        ctx = KernelContext(op, device, rngs)
        step = OpStep(op, device, ctx, tuple(in_slots), deref, out_slots, opdef.kernel_for(device.device_type))
        executed.append(op)
        if step.preloaded:
            if op.type == "Const":
                initial[out_slots[0]] = step.kernel(ctx)
            else:
                shape = op.get_attr("shape")
                shape = tuple(shape) if shape is not None and None not in shape else None
                variable_slots.append((out_slots[0], op.name, shape, device.xp))
        steps.append(step)
    for i, step in enumerate(steps):
        step.index = i
    fetch_devices = [device_of[f.op.name] if hasattr(f, "value_index") else None for f in fetches]
    fetch_slots = [slot_of[(f, d.name)] if d is not None else None for f, d in zip(fetches, fetch_devices)]
    _set_frees(steps, {s for s in fetch_slots if s is not None})
    _name_transfers(steps)
    fetch_copy = _may_alias_state(steps, initial, variable_slots, feed_slots, fetch_slots)
    return Plan(steps, len(initial), initial, variable_slots, feed_slots, list(fetches), fetch_slots, fetch_devices,
                fetch_copy, executed)


def _check_feeds(ops, fed):
    for op in ops:
        if op.type == "Placeholder" and not any(t in fed for t in op.outputs):
            t = op.outputs[0]
            shape = ("unknown" if t.shape.dims is None else
                     "[" + ",".join("?" if d is None else str(d) for d in t.shape.dims) + "]")
            raise errors.InvalidArgumentError(
                op.node_def, op, f"You must feed a value for placeholder tensor '{op.name}' with dtype "
                f"{t.dtype.tf_type_name} and shape {shape}\n\t [[{{{{node {op.name}}}}}]]")


def step_reads(step):
    """The slots a step reads."""
    return step.inputs if isinstance(step, OpStep) else (step.input,)


def step_writes(step):
    """The slots a step writes (an alias transfer writes none: its output is its input)."""
    if isinstance(step, OpStep):
        return step.outputs
    return () if step.alias else (step.output,)


def _set_frees(steps, keep):
    """Gives each step the slots it reads or writes for the last time (fetched slots are kept)."""
    last = {}
    for step in steps:
        for s in step_writes(step):
            last[s] = step.index
        for s in step_reads(step):
            last[s] = step.index
    frees = {}
    for s, i in last.items():
        if s not in keep:
            frees.setdefault(i, []).append(s)
    for i, slots in frees.items():
        steps[i].frees = tuple(slots)


def _name_transfers(steps):
    """TF's DirectSession names a _Send/_Recv pair ``<producer>/_<n>``."""
    n = 0
    for step in steps:
        if isinstance(step, TransferStep):
            step.send_name = f"{step.tensor.op.name}/_{2 * n}"
            step.recv_name = f"{step.tensor.op.name}/_{2 * n + 1}"
            n += 1


def _may_alias_state(steps, initial, variable_slots, feed_slots, fetch_slots):
    """Per fetch: may its value share memory with a constant, a variable or a feed? Then the
    fetch is copied; a fresh kernel output is handed over as it is."""
    state = {s for s, v in enumerate(initial) if v is not None}
    state.update(s for s, *_ in variable_slots)
    state.update(s for s, _, _ in feed_slots)
    for step in steps:
        if isinstance(step, TransferStep):
            if step.input in state:
                state.add(step.output)
        elif getattr(step.kernel, "returns_view", False) or any(
                t.dtype.is_ref for t in step.op.outputs):
            if any(s in state for s in step.inputs):
                state.update(step.outputs)
    return [s is not None and s in state for s in fetch_slots]
