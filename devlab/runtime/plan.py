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
import collections
import heapq
from dataclasses import replace

import numpy as np

from ..framework import dtypes, errors
from ..ops.kernel_registry import host_memory_args
from ..ops.table import lookup, opdef_of
from ..placer.placer import graph_order
from .steps import KernelContext, LoopStep, OpStep, TransferStep, flat_steps
from .variable_store import ResourceRef, VarRef


class Plan:
    """Everything a run of (fetches, feeds) needs, computed once and not changed afterwards (what
    runs make of it, such as a compiled program, lives in the session's ``plan_cache``)."""

    def __init__(self, steps, num_slots, initial, variable_slots, feed_slots, fetches, fetch_slots, fetch_devices,
                 fetch_copy, ops):
        self.steps = steps  # ops, transfers and loops (a LoopStep holds its frame's steps)
        self.num_slots = num_slots
        self.initial = initial  # the value table a run starts from: the constants in their slots
        self.variable_slots = variable_slots  # (slot, name, declared shape or None, xp, VarRef or ResourceRef)
        self.feed_slots = feed_slots  # (slot, tensor, device) per feed, in feed order
        self.fetches = fetches  # the fetched Tensors and Operations
        self.fetch_slots = fetch_slots  # per fetch: its slot, or None for an Operation
        self.fetch_devices = fetch_devices  # per fetch: the device its value is on
        self.fetch_copy = fetch_copy  # per fetch: whether its value may alias state
        self.ops = ops  # the ops this plan runs, in execution order
        self.transfers = [s for s in flat_steps(steps) if isinstance(s, TransferStep)]
        self.writes_variables = any(
            s.op.outputs and s.op.outputs[0].dtype.is_ref and s.op.type not in ("VariableV2", "Variable")
            for s in flat_steps(steps) if isinstance(s, OpStep)) or any(  # or a resource variable's
            s.op.inputs and s.op.inputs[0].dtype == dtypes.resource and lookup(s.op.type).ref_inputs
            for s in flat_steps(steps) if isinstance(s, OpStep))
        self.written_variables = written_variables(flat_steps(steps))  # their locks are held by a run
        self.has_control_flow = False  # tf.cond or tf.while_loop: DEAD values and loop frames
        self._partition_graphs = None  # built on first use (the one thing a Plan adds to itself)

    def flat_steps(self):
        """Every op and transfer step of the plan, loops opened."""
        return flat_steps(self.steps)

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
        for slot, name, shape, xp, kind in self.variable_slots:
            values[slot] = kind(run, name, shape, xp)
        for (slot, _, _), value in zip(self.feed_slots, feed_values):
            values[slot] = value
        return values


def resource_variable_name(handle):
    """The store name of the resource variable whose handle is ``handle`` (its VarHandleOp's
    shared_name), following the ops that pass a handle on; None for another resource."""
    t = handle
    while t.op.type in HANDLE_FORWARDERS and t.op.inputs:
        t = t.op.inputs[0]
    if t.op.type != "VarHandleOp":
        return None
    return t.op.get_attr("shared_name") or t.op.name


HANDLE_FORWARDERS = ("Identity", "Switch", "Enter", "Exit", "Merge", "NextIteration")
REF_FORWARDERS = ("RefSwitch", "RefEnter", "RefExit", "RefMerge", "RefNextIteration", "RefIdentity")


def written_variables(steps):
    """The names of the variables the steps may write: those a stateful op takes by reference."""
    names = set()
    for step in steps:
        if not isinstance(step, OpStep):
            continue
        opdef = lookup(step.op.type)
        if not (opdef.stateful and opdef.ref_inputs):
            continue
        for i in opdef.ref_inputs:
            if i < len(step.op.inputs) and step.op.inputs[i].dtype.is_ref:
                t = step.op.inputs[i]
                while t.op.type in REF_FORWARDERS and t.op.inputs:
                    t = t.op.inputs[0]
                names.add(t.op.name)
            elif i < len(step.op.inputs) and step.op.inputs[i].dtype == dtypes.resource:
                name = resource_variable_name(step.op.inputs[i])
                if name is not None:
                    names.add(name)
    return tuple(sorted(names))


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


def execution_order(ops, fed, deps=None):
    """``ops`` in the order they run (``deps(op)``: what op waits for). As in TensorFlow's
    executor an op runs once what it waits for has run, ready ops first come first served from
    the ops that wait for nothing (in creation order); and where TF leaves the order of a read
    and a write open (neither waits for the other), the read goes first: an op that writes a
    variable runs only when nothing else is ready, and an op that may wait for another run (a
    queue's) after those. So a run's reads see the writes they wait for, and no other. A cycle is TF's InvalidArgumentError naming the ops on it."""
    ordered = sorted(ops, key=lambda op: op.id)
    if deps is None:
        deps = lambda op: [t.op for t in op.inputs if t not in fed] + list(op.control_inputs)  # noqa: E731
    waiting = {op: 0 for op in ordered}
    users = {op: [] for op in ordered}
    for op in ordered:
        for dep in dict.fromkeys(deps(op)):
            if dep in waiting:
                waiting[op] += 1
                users[dep].append(op)
    ready = collections.deque(), collections.deque(), collections.deque()  # (others, writes, waits)
    for op in ordered:
        if waiting[op] == 0:
            ready[_kind(op)].append(op)
    out = []
    while ready[0] or ready[1] or ready[2]:
        op = (ready[0] or ready[1] or ready[2]).popleft()
        out.append(op)
        for user in users[op]:
            waiting[user] -= 1
            if waiting[user] == 0:
                ready[_kind(user)].append(user)
    if len(out) < len(ordered):
        stuck = sorted((op for op in ordered if waiting[op] > 0), key=lambda op: op.id)
        names = ", ".join(op.name for op in stuck[:10])
        raise errors.InvalidArgumentError(
            None, stuck[0], f"Graph is invalid, contains a cycle with {len(stuck)} nodes, including: {names}")
    return out


def _kind(op):
    """0 for most ops; 1 for an op that writes a variable; 2 for one that may wait for another
    run (a queue's dequeue): it goes last, so the ops TF would run beside it run first (an Assert
    failing fails the run instead of the run waiting forever)."""
    return 2 if lookup(op.type).blocking else int(_writes(op))


def _writes(op):
    """Whether ``op`` writes a variable it takes by reference (Assign, Apply*...)."""
    opdef = lookup(op.type)
    return bool(opdef.ref_inputs) and opdef.stateful


def compile_plan(fetches, feeds, placement, rngs, client_task=None):
    """Builds the Plan for ``fetches`` (Tensors/Operations) given ``feeds`` (Tensors).

    ``client_task`` is the (job, task) a ``grpc://`` session talks to: a variable fetched from
    another task travels to it as TF's ``_Send`` does, copied as soon as the variable op runs,
    so a fetch in the same run as its update gets the value from before the update."""
    fed = set(feeds)
    fetch_ops = [f.op if hasattr(f, "value_index") else f for f in fetches if f not in fed]
    needed = needed_ops(fetch_ops, fed)
    control_flow = any(op.type in CONTROL_FLOW for op in needed)
    items = frame_order(needed, fed) if control_flow else execution_order(needed, fed)
    _check_feeds(sorted(needed, key=lambda op: op.id), fed)
    device_of = placement.assigned
    replicas = _replicated_constants(needed, placement, fed)
    if control_flow:
        device_of = _control_flow_devices(items, device_of, needed, fed, replicas)
    builder = _StepBuilder(device_of, rngs, fed, replicas, placement.devices)
    feed_slots = [(builder.slot(t, builder.value_device(t.op)), t, builder.value_device(t.op)) for t in feeds]
    steps = builder.build(items)
    fetch_devices = [builder.value_device(f.op) if hasattr(f, "value_index") else None for f in fetches]
    fetch_slots = [builder.fetch_slot(f, d) if d is not None else None for f, d in zip(fetches, fetch_devices)]
    if client_task is not None:
        _send_remote_variables(steps, builder, placement, client_task, fetches, fetch_devices, fetch_slots)
    flat = list(flat_steps(steps))
    for i, step in enumerate(flat):
        step.index = i
    if control_flow:
        builder.link_control_tokens(flat)  # values live across iterations: nothing is freed early
    else:
        _set_frees(flat, {s for s in fetch_slots if s is not None})
    _name_transfers(flat)
    fetch_copy = _may_alias_state(flat, builder.initial, builder.variable_slots, feed_slots, fetch_slots)
    plan = Plan(steps, len(builder.initial), builder.initial, builder.variable_slots, feed_slots, list(fetches),
                fetch_slots, fetch_devices, fetch_copy, builder.executed)
    plan.has_control_flow = control_flow
    return plan


class _StepBuilder:
    """Turns ordered ops (and loop frames) into steps, giving every value its slot."""

    def __init__(self, device_of, rngs, fed, replicas=None, devices=()):
        self.device_of, self.rngs, self.fed = device_of, rngs, fed
        self.hosts = {}  # (job, replica, task) -> its first CPU: where a GPU kernel's host-memory inputs go
        self.lives_on = {}  # op name -> where it runs and its outputs are (see value_device)
        for d in devices:
            if d.device_type == "CPU":
                self.hosts.setdefault((d.job, d.replica, d.task), d)
        self.replicas = replicas or {}  # a small constant -> {consumer's device name: device of its copy}
        self.live = set()  # slots that hold a variable's reference read "live" (see _op)
        self.slot_of, self.initial, self.variable_slots, self.executed = {}, [], [], []
        self.op_steps = {}  # op -> its step

    def slot(self, tensor, device):
        key = (tensor, device.name)
        s = self.slot_of.get(key)
        if s is None:
            s = self.slot_of[key] = len(self.initial)
            self.initial.append(None)
        return s

    def fetch_slot(self, tensor, device):
        """The slot a fetch reads. A fetched constant that TF copied to its readers' devices
        (``_replicated_constants``) is not run itself: the fetch reads one of its copies."""
        s = self.slot_of.get((tensor, device.name))
        if s is None and tensor.op in self.replicas:
            copies = sorted(set(self.replicas[tensor.op].values()), key=lambda d: d.sort_key())
            return self.slot_of[(tensor, copies[0].name)]
        return self.slot_of[(tensor, device.name)] if s is None else s

    def build(self, items, parent=None):
        """Steps for ``items`` (ops and frames); transfers into a frame's Enter go to ``parent``."""
        steps = []
        for item in items:
            if isinstance(item, _Frame):
                steps.append(self._loop(item, steps))
            else:
                self._op(item, steps, parent if item.type in ENTERS else steps)
        return steps

    def _op(self, op, steps, transfers_to):
        outputs = op.values()
        if self.fed and any(t in self.fed for t in outputs):
            return  # a fed op is not run; its outputs come from the feed
        if op in self.replicas:
            self._replicate(op, steps)
            return
        device = self.device_of[op.name]
        # A real GPU's kernel reads some inputs (shapes, axes, sizes, most int32s) from host memory,
        # as TF's GPU kernels do with their HostMemory args: those values come to the task's CPU.
        # A kernel whose outputs are all in host memory runs there (TF's int32 "GPU" kernels).
        on_host = host_memory_args(op)[0] if device.backend == "cupy" else ()
        host = self.hosts.get((device.job, device.replica, device.task), device)
        device = self.value_device(op)
        in_slots = []
        for i, t in enumerate(op.inputs):
            wanted = host if i in on_host and _array(t) else device
            in_slots.append(self._input_slot(t, wanted, steps, transfers_to))
        opdef = opdef_of(op)
        deref = ()  # inputs read as values: variable references, and reads of one made "live"
        for i, t in enumerate(op.inputs):
            if (t.dtype.is_ref and i not in opdef.ref_inputs) or in_slots[i] in self.live:
                deref += (i,)
        out_slots = tuple(self.slot(t, device) for t in outputs)
        ctx = KernelContext(op, device, self.rngs)
        if op.type == "Identity" and deref == (0,) and op.inputs[0].dtype.is_ref:
            # TF's ``v/read`` hands on the variable's own buffer, so an op that runs after an
            # in-place update in the same run sees the new value. devlab keeps the reference and
            # reads it when each consumer runs, which sees the same values.
            deref, opdef = (), replace(opdef, kernel=_live_read, returns_view=True)
            self.live.add(out_slots[0])
        elif op.type == "Enter" and deref == (0,) and in_slots[0] in self.live and op.get_attr("is_constant"):
            # such a read entering a loop as an invariant stays live in it: each iteration's consumers
            # read the variable when they run (TF's Enter forwards the variable's buffer itself)
            deref, opdef = (), replace(opdef, kernel=_live_read, returns_view=True)
            self.live.add(out_slots[0])
        step = OpStep(op, device, ctx, tuple(in_slots), deref, out_slots, opdef)
        self.executed.append(op)
        self.op_steps[op] = step
        if step.preloaded:
            if op.type == "Const":
                self.initial[out_slots[0]] = step.kernel(ctx)
            else:
                shape = op.get_attr("shape")
                shape = tuple(shape) if shape is not None and None not in shape else None
                if op.type == "VarHandleOp":  # a resource variable: stored under its shared_name
                    self.variable_slots.append((out_slots[0], op.get_attr("shared_name") or op.name, None,
                                                device.xp, ResourceRef))
                else:
                    self.variable_slots.append((out_slots[0], op.name, shape, device.xp, VarRef))
        steps.append(step)

    def value_device(self, op):
        """Where ``op`` runs and its outputs are: its device, or for a real GPU's op whose outputs
        TF's GPU kernel keeps in host memory, its task's CPU. Decided once per op, so an input
        read before its producer's step is built (a loop's back edge) finds the same place."""
        where = self.lives_on.get(op.name)
        if where is None:
            where = device = self.device_of[op.name]
            if device.backend == "cupy" and op.outputs and all(_array(t) for t in op.outputs) \
                    and not any(t.dtype.is_ref for t in op.inputs) and host_memory_args(op)[1]:
                # (a kernel reading a variable's reference stays beside the variable)
                where = self.hosts.get((device.job, device.replica, device.task), device)
            self.lives_on[op.name] = where
        return where

    def _input_slot(self, t, device, steps, transfers_to):
        """The slot holding ``t`` on ``device``, after a transfer, once per (tensor, destination)."""
        s = self.slot_of.get((t, device.name))
        if s is not None:
            return s
        src = self._replica_for(t.op, device) if t.op in self.replicas else self.value_device(t.op)
        if src is device:
            return self.slot(t, device)
        source = self.slot(t, src)
        # handles and strings are Python objects on the host wherever their op runs: never copied
        alias = not t.dtype.is_ref and (src.backend == device.backend == "numpy" or not _array(t))
        if alias:
            self.slot_of[(t, device.name)] = source
        s = self.slot(t, device)
        (transfers_to if transfers_to is not None else steps).append(TransferStep(t, src, device, source, s, alias))
        return s

    def _replica_for(self, const, device):
        """The device of the copy of a replicated constant that a reader on ``device`` reads: the
        copy made for that device's readers, one already there, or else the first copy."""
        copies = self.replicas[const]
        if device.name in copies:
            return copies[device.name]
        places = sorted(set(copies.values()), key=lambda d: d.sort_key())
        return device if device in places else places[0]

    def _replicate(self, op, steps):
        """A constant TF copies to each device that reads it: one step per copy, each preloaded."""
        for device in sorted(set(self.replicas[op].values()), key=lambda d: d.sort_key()):
            out = self.slot(op.outputs[0], device)
            ctx = KernelContext(op, device, self.rngs)
            step = OpStep(op, device, ctx, (), (), (out,), lookup(op.type))
            step.label = f"{op.name}/replicate/_{len(self.initial)}"
            self.initial[out] = step.kernel(ctx)
            steps.append(step)
        self.executed.append(op)

    def _loop(self, frame, parent_steps):
        steps = self.build(frame.items, parent_steps)
        own = [s for s in steps if isinstance(s, OpStep)]
        entry = tuple(i for i, s in enumerate(steps) if isinstance(s, OpStep) and s.op.type in ENTERS)
        variable_enters = tuple(s.outputs[0] for s in own if s.op.type in ENTERS and not s.op.get_attr("is_constant"))
        next_slots = tuple(s.outputs[0] for s in own if s.op.type == "NextIteration")
        conds = [s.outputs[0] for s in own if s.op.type == "LoopCond"]
        if not conds and not next_slots:  # Enters and Exits, no loop: the frame runs once (as TF's)
            return LoopStep(frame.name, steps, entry, variable_enters, next_slots, None)
        if len(conds) != 1:
            raise errors.InvalidArgumentError(None, None, f"Loop frame {frame.name} has {len(conds)} LoopCond ops")
        return LoopStep(frame.name, steps, entry, variable_enters, next_slots, conds[0])

    def link_control_tokens(self, flat):
        """Gives each op that another op waits on a token slot, and each waiting op its tokens
        (a control edge from an op that did not run passes DEAD on, as in TF)."""
        for step in flat:
            if not isinstance(step, OpStep):
                continue
            tokens = []
            for c in step.op.control_inputs:
                source = self.op_steps.get(c)
                if source is None:
                    continue
                if source.token is None:
                    source.token = len(self.initial)
                    self.initial.append(None)
                tokens.append(source.token)
            step.controls = tuple(tokens)


# -- loop frames ---------------------------------------------------------------------------------------
CONTROL_FLOW = ("Switch", "RefSwitch", "Merge", "Enter", "RefEnter", "Exit", "NextIteration", "LoopCond")
ENTERS = ("Enter", "RefEnter")


class _Frame:
    """The ops of one while loop (TF's execution frame), with the frames nested in it."""

    def __init__(self, name, parent):
        self.name, self.parent = name, parent
        self.ops, self.children = [], []
        self.items = []  # ops and child frames, in execution order
        self.depth = 0 if parent is None else parent.depth + 1

    def all_ops(self):
        yield from self.ops
        for child in self.children:
            yield from child.all_ops()

    @property
    def first_id(self):
        return min(op.id for op in self.all_ops())


REPLICATE_UP_TO = 16  # elements: TF copies a constant this small rather than send it


def _send_remote_variables(steps, builder, placement, client_task, fetches, fetch_devices, fetch_slots):
    """For a grpc session: each fetched variable (a reference) that lives on another task than the
    client's is copied to the client's CPU right after the variable op's step, as TF's ``_Send``
    to the client copies it then; the fetch reads that copy. On the client's own task the fetch
    reads the variable at the end of the run, as a local session does (TF 2.21 shows both)."""
    client = next((d for d in sorted(placement.devices, key=lambda d: d.sort_key())
                   if (d.job, d.task) == client_task and d.device_type == "CPU"), None)
    if client is None:
        return
    for i, (f, device) in enumerate(zip(fetches, fetch_devices)):
        if device is None or not f.dtype.is_ref or (device.job, device.task) == client_task:
            continue
        producer = builder.op_steps.get(f.op)
        if producer is None or producer not in steps:  # made inside a loop: left as it is
            continue
        out = builder.slot(f, client)
        steps.insert(steps.index(producer) + 1, TransferStep(f, device, client, fetch_slots[i], out, False))
        fetch_slots[i], fetch_devices[i] = out, client


def _replicated_constants(needed, placement, fed):
    """The small constants TF copies to the devices that read them, after placement and after
    the placement log (TF's ReplicateConstantsPass, run before partitioning): a Const of at most
    16 elements, on a CPU, with no control edge out, read on several devices. Each reader's copy
    lives on that reader's device when it is a CPU, else on CPU:0 of the reader's task; the
    original is not run. Returns {const op: {reader's device name: device of its copy}}."""
    placed = placement.assigned
    readers, control_out = {}, set()
    for op in needed:
        for t in op.inputs:
            if t.op.type == "Const" and t not in fed:
                readers.setdefault(t.op, []).append(op)
        control_out.update(op.control_inputs)
    cpu0 = {(d.job, d.replica, d.task): d for d in placement.devices if d.device_type == "CPU" and d.index == 0}
    out = {}
    for const, users in readers.items():
        if len(users) <= 1 or const in control_out or placed[const.name].device_type != "CPU":
            continue
        if np.size(const.get_attr("value")) > REPLICATE_UP_TO:
            continue
        groups = {}
        for user in users:
            d = placed[user.name]
            groups[d.name] = d if d.device_type == "CPU" else cpu0.get((d.job, d.replica, d.task), placed[const.name])
        if len(set(groups.values())) > 1:
            out[const] = groups
    return out


def _control_flow_devices(items, placed, needed, fed, replicas=None):
    """Where control-flow ops run, which TF's partitioner decides after placement (and after the
    placement log): a Switch runs with its data, an Exit with its input, an Enter or a
    NextIteration with the first op that reads it (graph_partition.cc,
    OptimizeControlFlowColocation). Every other op runs where the placer put it. A Switch of a
    small constant that TF copied to its device (``_replicated_constants``) reads that copy."""
    device_of = dict(placed)
    replicas = replicas or {}
    consumers = {}
    for op in sorted(needed, key=lambda op: op.id):
        for t in op.inputs:
            consumers.setdefault(t.op, []).append(op)

    for op in _dfs_order(needed):
        if op.type in ("Switch", "RefSwitch", "Exit"):
            data = op.inputs[0].op
            copies = replicas.get(data)
            device_of[op.name] = copies[placed[op.name].name] if copies else device_of[data.name]
        elif (op.type == "Enter" or op.type == "NextIteration") and consumers.get(op):
            device_of[op.name] = placed[consumers[op][0].name]
    return device_of


def _dfs_order(needed):
    """The order TF's OptimizeControlFlowColocation visits ops: a depth-first walk from the
    graph's source (the ops with no inputs, in graph order), entering an op when it is first
    popped from a stack onto which each op pushes its consumers in edge order (so the last
    consumer is walked first). Each move reads where the op's input is *at that moment*: a
    Switch entered before the Exit that feeds it is moved was moved, follows it where it was placed."""
    ordered = [op for op in graph_order(sorted(needed, key=lambda op: op.id)) if op in needed]
    consumers, back = {}, []
    for op in ordered:
        for t in op.inputs:
            if t.op in needed:
                if op.type in ("Merge", "RefMerge") and t.op.type in ("NextIteration", "RefNextIteration"):
                    back.append((t.op, op))  # a loop's back edge is added last
                else:
                    consumers.setdefault(t.op, []).append(op)
        for c in op.control_inputs:
            if c in needed:
                consumers.setdefault(c, []).append(op)
    for src, dst in back:
        consumers.setdefault(src, []).append(dst)
    starts = [op for op in ordered if not any(t.op in needed for t in op.inputs)
              and not any(c in needed for c in op.control_inputs)]
    out, seen, stack = [], set(), list(reversed(starts))
    while stack:
        op = stack.pop()
        if op in seen:
            continue
        seen.add(op)
        out.append(op)
        stack.extend(c for c in consumers.get(op, ()) if c not in seen)
    return out + [op for op in ordered if op not in seen]


def partition_devices(ops, placed):
    """{op name: Device} where each of ``ops`` (a whole graph) runs once TF's partitioner has moved
    its control-flow ops (``_control_flow_devices``); every other op runs where it was placed."""
    needed = set(ops)
    if not any(op.type in CONTROL_FLOW for op in needed):
        return dict(placed)
    return _control_flow_devices(frame_order(needed, set()), placed, needed, set())


def _deps(op, fed, needed):
    """The ops ``op`` waits for: data and control inputs, leaving out a loop's back edge (the
    NextIteration a Merge reads) and fed tensors."""
    deps = [t.op for t in op.inputs
            if t not in fed and t.op in needed and not (op.type == "Merge" and t.op.type == "NextIteration")]
    return deps + [c for c in op.control_inputs if c in needed]


def frame_order(needed, fed):
    """The items (ops and loop frames, each frame holding its own ordered items) of a graph
    with control flow, each level in an order that respects its edges."""
    ops = execution_order(needed, fed, deps=lambda op: _deps(op, fed, needed))
    root = _Frame(None, None)
    frames, frame_of, out_frame = {}, {}, {}
    for op in ops:
        data = [t.op for t in op.inputs if t not in fed and t.op in needed
                and not (op.type == "Merge" and t.op.type == "NextIteration")]
        if op.type in ENTERS:
            parent = out_frame[data[0]] if data else root
            key = (parent, op.get_attr("frame_name"))
            frame = frames.get(key)
            if frame is None:
                frame = frames[key] = _Frame(key[1], parent)
                parent.children.append(frame)
        else:
            _check_one_frame(op, data, out_frame)
            sources = data or [c for c in op.control_inputs if c in needed]
            frame = max((out_frame[d] for d in sources), key=lambda f: f.depth, default=root)
        frame_of[op] = frame
        frame.ops.append(op)
        out_frame[op] = frame.parent if op.type == "Exit" and frame.parent is not None else frame
    _order_items(root, fed, needed)
    return root.items


def _check_one_frame(op, data, out_frame):
    """TF's check: an op's data inputs all come from one frame (two loops' Enters cannot meet)."""
    frames = {}
    for d in data:
        frames.setdefault(out_frame[d], d)
    if len(frames) > 1:
        (fa, a), (fb, b) = list(frames.items())[:2]
        raise errors.InvalidArgumentError(
            None, None, f"{{{{node {op.name}}}}} has inputs from different frames. The input {{{{node {a.name}}}}} is "
            f"in frame '{fa.name or ''}'. The input {{{{node {b.name}}}}} is in frame '{fb.name or ''}'.")


def _order_items(frame, fed, needed):
    """Orders a frame's own ops and child frames (each child counts as one item)."""
    rep = {op: op for op in frame.ops}
    for child in frame.children:
        _order_items(child, fed, needed)
        for op in child.all_ops():
            rep[op] = child
    items = list(frame.ops) + list(frame.children)
    key = {id(x): (x.first_id if isinstance(x, _Frame) else x.id) for x in items}
    waiting, users = {id(x): 0 for x in items}, {id(x): [] for x in items}
    seen = set()
    for op in frame.all_ops():
        b = rep[op]
        for d in _deps(op, fed, needed):
            a = rep.get(d)
            if a is None or a is b or (id(a), id(b)) in seen:
                continue
            seen.add((id(a), id(b)))
            waiting[id(b)] += 1
            users[id(a)].append(b)
    ready = [(key[id(x)], i, x) for i, x in enumerate(items) if waiting[id(x)] == 0]
    heapq.heapify(ready)
    out = []
    while ready:
        _, i, x = heapq.heappop(ready)
        out.append(x)
        for user in users[id(x)]:
            waiting[id(user)] -= 1
            if waiting[id(user)] == 0:
                heapq.heappush(ready, (key[id(user)], items.index(user), user))
    frame.items = out


def _array(t):
    """Whether ``t``'s values are arrays a GPU could hold (not references, handles or strings,
    which live on the host as Python objects)."""
    return not t.dtype.is_ref and t.dtype.base_dtype not in (dtypes.resource, dtypes.variant, dtypes.string)


def _live_read(k, ref):
    """The kernel of an Identity of a variable: the reference itself, read by its consumers."""
    return ref



def _check_feeds(ops, fed):
    for op in ops:
        if op.type == "Placeholder" and not any(t in fed for t in op.outputs):
            t = op.outputs[0]
            shape = ("unknown" if t.shape.sizes is None else
                     "[" + ",".join("?" if d is None else str(d) for d in t.shape.sizes) + "]")
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
        elif step.opdef.returns_view or any(
                t.dtype.is_ref for t in step.op.outputs):
            if any(s in state for s in step.inputs):
                state.update(step.outputs)
    return [s is not None and s in state for s in fetch_slots]
