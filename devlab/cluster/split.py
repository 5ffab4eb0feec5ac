"""Splitting a plan by task: what each task's worker runs, written as plain data.

Operations are not picklable (they belong to a graph), so a task receives a *description* of
its steps: for an op its name, type, attrs, device, input/output slots and deref flags; for a
copy between two devices of the task its devices and slots; for a tensor that crosses tasks a
``send`` on the producer's task and a ``recv`` on the consumer's, sharing a key. The worker
rebuilds executable steps from the op table (``task_steps.py``).

Slots keep the plan's numbering: each task's value table has the plan's size and uses only its
own slots (a value that crosses tasks by alias keeps its slot number on both sides).
Control edges that cross tasks become a send/recv pair with no value (TF's control ``_Send``).

Each task runs its steps in the plan's order. The plan's order respects every edge, so a recv
only ever waits for a send that an earlier step of another task makes: the tasks cannot
deadlock.

A ``tf.cond`` may span tasks (the global step read of TF's hooks does: its RefSwitch sits with the
variable on a parameter server, its Merge on the worker): the untaken side's DEAD value crosses
tasks like any value, and a control edge carries the token of its op (True, or DEAD when the op
did not run), so each task skips what TF would skip. ``tf.while_loop`` frames stay in one process.
"""
from dataclasses import dataclass, field

from ..framework import errors
from ..ops.table import lookup
from ..runtime.steps import LoopStep, OpStep


def task_of(device):
    """(job, task index) of a device."""
    return (device.job, device.task)


def task_name(task):
    """TF's name of a task: ``/job:ps/replica:0/task:0``."""
    return f"/job:{task[0]}/replica:0/task:{task[1]}"


def task_of_name(name):
    """(job, task index) of a task's name: ``/job:ps/replica:0/task:0`` -> ("ps", 0)."""
    parts = dict(p.split(":", 1) for p in name.strip("/").split("/"))
    return (parts["job"], int(parts["task"]))


@dataclass
class TaskPart:
    """One task's share of a plan, as data a worker can receive."""
    task: tuple
    num_slots: int
    graph_seed: object
    devices: list = field(default_factory=list)  # (name, job, task, type, index, simulated)
    initial: dict = field(default_factory=dict)  # slot -> constant value
    # (slot, variable name, declared shape or None, VarRef or ResourceRef)
    variable_slots: list = field(default_factory=list)
    feeds: list = field(default_factory=list)  # (position in the plan's feeds, slot)
    steps: list = field(default_factory=list)  # plain tuples, see below
    fetches: list = field(default_factory=list)  # (position in the plan's fetches, slot, op name, traceback)
    writes: bool = False  # whether a step may write a variable: the task then takes part in the commit
    peers: tuple = ()  # the tasks this part sends to
    has_control_flow: bool = False  # a tf.cond: DEAD values and control tokens (see the module docstring)


@dataclass(frozen=True)
class CrossTask:
    """A tensor that crosses tasks: TF's ``_Send``/``_Recv`` pair between two workers."""
    index: int
    send_name: str
    recv_name: str
    tensor: str
    src: str  # device names
    dst: str
    src_task: tuple
    dst_task: tuple


@dataclass
class Split:
    """A plan split by task."""
    parts: dict  # task -> TaskPart
    cross: dict  # step index -> CrossTask
    writers: tuple  # tasks whose part may write variables, sorted


def split_plan(plan, graph_seed=None, py_funcs=None):
    """``plan`` as one TaskPart per task that has anything to do in it.

    ``py_funcs(op)`` gives the Python function of a ``PyFunc`` op (shipped with its attrs).
    """
    if any(isinstance(step, LoopStep) for step in plan.steps):
        raise errors.UnimplementedError(
            None, None, "devlab runs tf.while_loop in one process only: a cluster session on real "
            "workers cannot run a graph with a while loop yet (use the in-process cluster simulation)")
    parts = {}
    cross = {}

    def part(task):
        p = parts.get(task)
        if p is None:
            p = parts[task] = TaskPart(task, plan.num_slots, graph_seed, has_control_flow=plan.has_control_flow)
        return p

    devices = {}
    for step in plan.steps:
        for d in ((step.device,) if isinstance(step, OpStep) else (step.src, step.device)):
            devices[d.name] = d
    for d in devices.values():
        part(task_of(d)).devices.append((d.name, d.job, d.task, d.device_type, d.index, d.simulated))

    placed = {}  # op name -> (task, step index, token slot): where each executed op ran
    for step in plan.steps:
        if isinstance(step, OpStep):
            placed[step.op.name] = (task_of(step.device), step.index, step.token)

    control_sent = set()
    for step in plan.steps:
        if isinstance(step, OpStep):
            task = task_of(step.device)
            p = part(task)
            op = step.op
            for dep in op.control_inputs:  # a control edge from another task: wait for its token
                src = placed.get(dep.name)
                if src is None or src[0] == task:
                    continue
                key = f"^{dep.name}>{task_name(task)}"
                if key not in control_sent:  # the token slot (with control flow) keeps its number on both sides
                    control_sent.add(key)
                    part(src[0]).steps.append(((src[1], 1), ("send", src[1], key, src[2], task, (), dep.name, None)))
                p.steps.append(((step.index, -1), ("recv", step.index, key, src[2], src[0], ())))
            attrs = dict(op.attrs)
            if op.type == "Const":
                if not plan.has_control_flow:  # with control flow the kernel may run again (after a DEAD)
                    attrs = {k: v for k, v in attrs.items() if k != "value"}  # its value is in ``initial``
                p.initial[step.outputs[0]] = plan.initial[step.outputs[0]]
            elif op.type in ("PyFunc", "PyFuncStateless") and py_funcs is not None:
                attrs = dict(attrs, _func=py_funcs(op))
            opdef = lookup(op.type)
            p.writes = p.writes or bool(opdef.stateful and opdef.ref_inputs)
            p.steps.append(((step.index, 0), ("op", step.index, op.name, op.type, attrs, step.device.name,
                                              step.inputs, step.deref, step.outputs, step.frees, op.traceback,
                                              step.controls, step.token)))
        else:
            src, dst = task_of(step.src), task_of(step.device)
            producer = step.tensor.op
            if src == dst:
                part(src).steps.append(((step.index, 0), (
                    "copy", step.index, step.tensor.name, producer.name, producer.traceback, step.src.name,
                    step.device.name, step.input, step.output, step.alias, step.frees)))
                continue
            cross[step.index] = CrossTask(step.index, step.send_name, step.recv_name, step.tensor.name,
                                          step.src.name, step.device.name, src, dst)
            part(src).steps.append(((step.index, 0), (
                "send", step.index, step.index, step.input, dst, step.frees, producer.name, producer.traceback)))
            part(dst).steps.append(((step.index, 0), ("recv", step.index, step.index, step.output, src, step.frees)))

    producer = {s.outputs[0]: s for s in plan.steps if isinstance(s, OpStep) and s.preloaded}
    for slot, name, shape, _, kind in plan.variable_slots:
        part(task_of(producer[slot].device)).variable_slots.append((slot, name, shape, kind))
    for position, (slot, _, device) in enumerate(plan.feed_slots):
        part(task_of(device)).feeds.append((position, slot))
    for position, (leaf, slot, device) in enumerate(zip(plan.fetches, plan.fetch_slots, plan.fetch_devices)):
        if slot is not None:
            part(task_of(device)).fetches.append((position, slot, leaf.op.name, leaf.op.traceback))
    for p in parts.values():
        p.steps = [s for _, s in sorted(p.steps, key=lambda item: item[0])]
        p.peers = tuple(sorted({s[4] for s in p.steps if s[0] == "send"}))
    writers = tuple(sorted(t for t, p in parts.items() if p.writes))
    return Split(parts, cross, writers)
