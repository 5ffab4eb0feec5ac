"""A *modelled* run: the plan of a real run walked without kernels, values replaced by shapes.

A graph opened from a file (``devlab.load_graph``) holds ops devlab has no kernel for, so it
cannot run for real; and a real run on simulated GPUs would only say how fast numpy is. A
modelled run compiles the same ``Plan`` as ``Session.run`` (placement, the partitioner's
control-flow moves, one transfer per tensor and destination) and walks its steps in order:

* each value is a ``Shaped``: its dtype and shape, from the feeds, the ops' static shapes and
  the shape rules (``ops/tf_shapes.py`` for TensorFlow's ops, the op table's for devlab's);
  a ``Const`` keeps its value, so shapes computed from constants (a Reshape's target) are exact;
* each op and each transfer gets the cost model's time (``devices/cost_model.py``), and the
  steps are scheduled as a machine would run them (``trace.schedule``: one compute lane per
  device, one copy lane per device pair, each step once its inputs are ready);
* the result has ``RunMetadata.step_stats`` (for the timeline), the transfers, the modelled step
  time, and a stepper that walks the same steps showing shapes.

What it cannot know, it says: an unknown dimension (a batch of ``None``) is taken as
``unknown_dim`` (1 unless given) and listed in ``assumed``; a tensor whose shape no rule could
tell counts no bytes and is listed in ``unknown``. Without values there is no branch to take
or loop condition to test: both sides of a ``tf.cond`` are modelled (the untaken side would
cost nothing in TensorFlow) and each loop runs ``loop_iterations`` times (default 1).
"""
from dataclasses import dataclass, field

import numpy as np

from ..devices.cost_model import DEFAULT, op_flops
from ..framework import dtypes
from ..framework.tensor_shape import TensorShape
from ..ops import tf_ops, tf_shapes
from ..ops.table import lookup
from ..placer import explain as explain_mod
from . import events
from . import fetches as fetch_mod
from .protos import DeviceStepStats, NodeExecStats, RunMetadata, StepStats
from .steps import LoopStep, OpStep, TransferStep
from .trace import StepRecord, schedule


class Shaped:
    """A value a modelled run does not compute: its dtype and shape (and, for a constant or a
    shape that was known, the value itself)."""

    __slots__ = ("dtype", "shape", "value")

    def __init__(self, dtype, shape, value=None):
        self.dtype, self.shape, self.value = dtype, tuple(shape) if shape is not None else None, value

    @property
    def nbytes(self):
        if self.shape is None or self.dtype.base_dtype.name in ("resource", "variant"):
            return 0
        n = 1
        for d in self.shape:
            n *= d
        return n * self.dtype.size

    @property
    def ndim(self):
        return None if self.shape is None else len(self.shape)

    def __repr__(self):
        dims = "?" if self.shape is None else ",".join(map(str, self.shape))
        return f"{self.dtype.base_dtype.name}[{dims}]"

    __str__ = __repr__


@dataclass
class ModelledStep:
    """One step of a modelled run: what it read and wrote (as Shaped) and its modelled time."""
    step: object
    inputs: tuple
    outputs: tuple
    flops: int
    nbytes: int
    start: float = 0.0  # seconds from the start of the run
    duration: float = 0.0
    iteration: tuple = ()

    @property
    def kind(self):
        return "op" if isinstance(self.step, OpStep) else "transfer"


@dataclass
class Transfer:
    """One modelled copy between devices."""
    tensor: str
    source: str
    destination: str
    nbytes: int
    seconds: float


@dataclass
class ModelledRun:
    """What a modelled run found: per-step shapes and times, the transfers and the step time."""
    session: object
    plan: object
    fetches: list
    steps: list  # ModelledStep, in execution order (a loop's steps once per modelled iteration)
    values: list  # per fetch: a Shaped (None for an op)
    cost_model: object = DEFAULT
    assumed: list = field(default_factory=list)  # tensor names whose unknown dims took unknown_dim
    unknown: list = field(default_factory=list)  # tensor names whose shape no rule could tell
    unknown_dim: int = 1  # what an unknown dimension was taken to be

    @property
    def step_time(self):
        """The modelled time of the whole run, in seconds (the last step's end)."""
        return max((s.start + s.duration for s in self.steps), default=0.0)

    @property
    def transfers(self):
        return [Transfer(s.step.tensor.name, s.step.src.name, s.step.device.name, s.nbytes, s.duration)
                for s in self.steps if s.kind == "transfer"]

    @property
    def without_kernel(self):
        """The ops of this run devlab could not have run for real."""
        return [s.op for s in self.plan.flat_steps() if isinstance(s, OpStep) and not tf_ops.has_kernel(s.op)]

    def busy_time(self):
        """{device name: modelled seconds its compute lane is busy}."""
        out = {}
        for s in self.steps:
            if s.kind == "op":
                out[s.step.device.name] = out.get(s.step.device.name, 0.0) + s.duration
        return out

    @property
    def step_stats(self):
        return _step_stats(self.steps)

    @property
    def run_metadata(self):
        """TF's RunMetadata of the run: modelled step stats and the partition graphs."""
        md = RunMetadata()
        md.step_stats = self.step_stats
        md.partition_graphs = list(self.plan.partition_graphs)
        return md

    def summary(self):
        """A few lines: the step time, the transfers, the busiest devices, what was assumed."""
        transfers = self.transfers
        moved = sum(t.nbytes for t in transfers)
        # "step time" is TF's word for one session.run; the run's op and copy count come after it
        lines = [f"modelled step time: {_time(self.step_time)} (one run of {sum(s.kind == 'op' for s in self.steps)} "
                 f"ops and {len(transfers)} transfers, moving {_bytes(moved)} in "
                 f"{_time(sum(t.seconds for t in transfers))} of copy time)"]
        for device, busy in sorted(self.busy_time().items(), key=lambda kv: -kv[1]):
            lines.append(f"  {device}: {_time(busy)} of compute")
        if self.assumed:
            lines.append(f"  {len(self.assumed)} tensors had unknown dimensions, taken as {self.unknown_dim}: "
                         + ", ".join(self.assumed[:5]) + (" ..." if len(self.assumed) > 5 else ""))
        if self.unknown:
            lines.append(f"  {len(self.unknown)} tensors of unknown shape count no bytes: "
                         + ", ".join(self.unknown[:5]) + (" ..." if len(self.unknown) > 5 else ""))
        return "\n".join(lines)

    def __repr__(self):
        return self.summary()


def _time(seconds):
    return f"{seconds * 1e6:.1f} us" if seconds < 1e-3 else f"{seconds * 1e3:.3f} ms"


def _bytes(n):
    for unit in ("B", "KiB", "MiB", "GiB"):
        if n < 1024 or unit == "GiB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024


# -- running ------------------------------------------------------------------------------------------------
def default_fetches(graph):
    """What to model when no fetches are given: every op nothing else reads (the graph's sinks),
    except initialization (a variable's own ``<variable>/Assign``, a NoOp grouping Assigns) and
    lone variable reads: what is left is one training (or inference) step."""
    ops = graph.get_operations()
    read = set()
    for op in ops:
        read.update(t.op for t in op.inputs)
        read.update(op.control_inputs)
    out = []
    for op in ops:
        if op in read:
            continue
        if op.type == "NoOp" and op.control_inputs and all(c.type == "Assign" for c in op.control_inputs):
            continue  # the initializer
        if op.type == "Assign" and op.inputs and op.name == op.inputs[0].op.name + "/Assign":
            continue  # a variable's initializer, as TF names it
        if op.type == "Identity" and op.inputs and op.inputs[0].dtype.is_ref:
            continue  # a variable's /read that nothing uses
        out.append(op)
    return out


def modelled_run(session, fetches=None, feed_dict=None, cost_model=None, loop_iterations=1, unknown_dim=1):
    """Models ``session.run(fetches, feed_dict)`` without running a kernel; returns a ModelledRun.

    ``fetches`` as for ``Session.run`` (default: the graph's sinks, ``default_fetches``);
    ``feed_dict`` values may be arrays, ``Shaped`` values or shapes (tuples); a placeholder that
    is not fed takes its declared shape. ``cost_model`` defaults to devlab's (an H100-class GPU).
    """
    plan, leaves, feed_shapes = _plan(session, fetches, feed_dict)
    walker = _Walker(session, plan, feed_shapes, loop_iterations, unknown_dim)
    records = walker.walk()
    cost_model = cost_model or DEFAULT
    _schedule(records, cost_model)
    values = [walker.fetched(leaf) for leaf in leaves]
    run = ModelledRun(session, plan, leaves, records, values, cost_model, walker.assumed, walker.unknown,
                      unknown_dim)
    events.emit(events.RunFinished(session, plan, None, modelled=run))  # the magic and `devlab place` see it
    return run


def _plan(session, fetches, feed_dict):
    graph = session.graph
    if fetches is None:
        fetches = default_fetches(graph)
    leaves = [graph.as_graph_element(f) for f in fetch_mod.flatten(fetches)]
    feed_shapes = {}
    for key, value in (feed_dict or {}).items():
        t = graph.as_graph_element(key, allow_operation=False)
        feed_shapes[t] = _shaped_feed(t, value)
    placement = session.ensure_placed()
    from .plan import compile_plan, needed_ops
    needed = needed_ops([getattr(f, "op", f) for f in leaves], set(feed_shapes))
    feeds = list(feed_shapes) + [op.outputs[0] for op in sorted(needed, key=lambda op: op.id)
                                 if op.type in ("Placeholder", "PlaceholderV2") and op.outputs[0] not in feed_shapes]
    plan = compile_plan(leaves, feeds, placement, session.random_generators)
    return plan, leaves, feed_shapes


def _shaped_feed(t, value):
    if isinstance(value, Shaped):
        return value
    if isinstance(value, (tuple, TensorShape)):
        return Shaped(t.dtype.base_dtype, tuple(TensorShape(value).as_list()))
    arr = np.asarray(value)
    return Shaped(t.dtype.base_dtype, arr.shape, arr if arr.size <= 64 else None)


class _In:
    """An input as the shape rules read it."""

    __slots__ = ("dtype", "shape", "value", "op")

    def __init__(self, dtype, shaped):
        self.dtype = dtype
        self.shape = TensorShape(None if shaped is None else shaped.shape)
        self.value = None if shaped is None else shaped.value
        self.op = None


class _Walker:
    """Walks a plan's steps, giving each slot a Shaped value and each step its FLOPs and bytes."""

    def __init__(self, session, plan, feed_shapes, loop_iterations, unknown_dim):
        self.session, self.plan = session, plan
        self.loop_iterations, self.unknown_dim = max(1, int(loop_iterations)), int(unknown_dim)
        self.values = [None] * plan.num_slots
        self.assumed, self.unknown = [], []
        self._noted = set()
        for slot, value in enumerate(plan.initial):
            if isinstance(value, np.ndarray):
                self.values[slot] = Shaped(dtypes.as_dtype(value.dtype), value.shape, value)
        for slot, tensor, _ in plan.feed_slots:
            fed = feed_shapes.get(tensor)
            self.values[slot] = fed if fed is not None else self._static(tensor)

    def walk(self):
        records = []
        self._walk(self.plan.steps, records, ())
        return records

    def _walk(self, steps, records, iteration):
        for step in steps:
            if isinstance(step, LoopStep):
                for i in range(self.loop_iterations):
                    for j, inner in enumerate(step.steps):
                        if i and j in step.entry:
                            continue
                        self._walk([inner], records, iteration + (i,))
            else:
                records.append(self._step(step, iteration))

    def _step(self, step, iteration):
        values = self.values
        if isinstance(step, TransferStep):
            value = values[step.input] or self._static(step.tensor)
            values[step.output] = value
            return ModelledStep(step, (value,), (value,), 0, value.nbytes, iteration=iteration)
        op = step.op
        ins = [values[s] or self._static(t) for s, t in zip(step.inputs, op.inputs)]
        outs = self._outputs(op, ins)
        for slot, value in zip(step.outputs, outs):
            values[slot] = value
        flops = op_flops(op.type, [v.shape or () for v in ins], [v.shape or () for v in outs])
        if op.type == "VariableV2" or step.preloaded:
            flops, moved = 0, 0
        else:
            moved = sum(v.nbytes for v in ins if not v.dtype.is_ref) + sum(v.nbytes for v in outs)
        return ModelledStep(step, tuple(ins), tuple(outs), flops, moved, iteration=iteration)

    def _outputs(self, op, ins):
        """The op's outputs: its rule's shapes on the actual input shapes, else its static ones."""
        inputs = [_In(t.dtype, v) for t, v in zip(op.inputs, ins)]
        if op.type == "Const":
            value = op._attrs.get("value")
            return [Shaped(op.outputs[0].dtype, np.shape(value), value)]
        folded = _fold(op, ins)
        if folded is not None:
            return folded
        dims = None
        try:
            if tf_ops.has_kernel(op):
                dims = [d for _, d in lookup(op.type).shape(inputs, dict(op._attrs))]
            else:
                dims = tf_shapes.infer(op.type, inputs, {**tf_ops.attr_defaults(op.type), **op._attrs})
        except Exception:  # noqa: BLE001 - a rule that does not take these shapes: the static shapes
            dims = None
        out = []
        for i, t in enumerate(op.outputs):
            d = dims[i] if dims is not None and i < len(dims) else None
            static = t.shape.sizes
            if d is None:
                d = static
            elif static is not None and len(static) == len(d):
                d = tuple(s if s is not None else x for s, x in zip(static, d))
            out.append(self._complete(t, d))
        return out

    def _static(self, tensor):
        return self._complete(tensor, tensor.shape.sizes)

    def _complete(self, tensor, dims):
        if dims is None:
            if tensor.name not in self._noted and tensor.dtype.base_dtype.name not in ("resource", "variant"):
                self._noted.add(tensor.name)
                self.unknown.append(tensor.name)
            return Shaped(tensor.dtype, None)
        if any(d is None for d in dims):
            if tensor.name not in self._noted:
                self._noted.add(tensor.name)
                self.assumed.append(tensor.name)
            dims = tuple(self.unknown_dim if d is None else d for d in dims)
        return Shaped(tensor.dtype, dims)

    def fetched(self, leaf):
        if not hasattr(leaf, "value_index"):
            return None
        for slot, t, _ in self.plan.feed_slots:
            if t is leaf:
                return self.values[slot]
        index = self.plan.fetches.index(leaf)
        slot = self.plan.fetch_slots[index]
        return self.values[slot] if slot is not None else None


def _fold(op, ins):
    """Ops whose outputs are known from input shapes alone: Shape, ShapeN, Size, Rank."""
    if op.type in ("Shape", "ShapeN") and all(v.shape is not None for v in ins):
        return [Shaped(t.dtype, (len(v.shape),), np.array(v.shape, dtype=t.dtype.as_numpy_dtype))
                for t, v in zip(op.outputs, ins)]
    if op.type in ("Size", "Rank") and ins and ins[0].shape is not None:
        value = int(np.prod(ins[0].shape)) if op.type == "Size" else len(ins[0].shape)
        return [Shaped(op.outputs[0].dtype, (), np.array(value))]
    return None


def _schedule(records, cost_model):
    """Sets each record's modelled start and duration (seconds) with the runtime's scheduler."""
    trace_records = [StepRecord(r.step, 0.0, 0.0, r.nbytes, r.flops) for r in records]
    for r, (start, duration) in zip(records, schedule(trace_records, cost_model)):
        r.start, r.duration = start, duration


def _step_stats(records):
    """TF's StepStats of a modelled run (the measured fields hold the modelled times too)."""
    by_device = {}
    for r in records:
        step = r.step
        if isinstance(step, OpStep):
            node, op_type = step.op.name, step.op.type
            label = (f"{node} = {op_type}({', '.join(t.op.name for t in step.op.inputs)}) -> "
                     f"{', '.join(map(str, r.outputs))}")
            source, tensor = "", ""
        else:
            node, op_type = step.recv_name, "_Recv"
            label = f"{node} = _Recv({step.tensor.name}) from {step.src.name}: {r.outputs[0]}"
            source, tensor = step.src.name, step.tensor.name
        start, dur = r.start * 1e6, r.duration * 1e6
        stats = NodeExecStats(node, op_type, start, dur, label, start, dur, r.nbytes, source, tensor)
        dev = by_device.setdefault(step.device.name, DeviceStepStats(step.device.name, [], True))
        dev.node_stats.append(stats)
    return StepStats([by_device[k] for k in sorted(by_device)])


# -- stepping -----------------------------------------------------------------------------------------------
class ModelledStepper:
    """The stepper of a modelled run: ``next()``, ``back()``, ``run_to(i)``, ``run_to_end()`` walk
    the placed graph one op or transfer at a time, each value shown as its shape (``Shaped``).
    Nothing runs and nothing is written, so going back is free."""

    def __init__(self, session, fetches=None, feed_dict=None, **options):
        self.session = session
        self.run = modelled_run(session, fetches, feed_dict, **options)
        self.plan = self.run.plan
        self.steps = list(self.plan.flat_steps())
        self.history = []

    @property
    def position(self):
        return len(self.history)

    @property
    def done(self):
        return self.position >= len(self.run.steps)

    def reset(self):
        self.history = []

    def _view(self, record):
        from .stepper import StepView
        step = record.step
        if isinstance(step, TransferStep):
            t = step.tensor
            return StepView(step.index, "transfer", step.recv_name, "_Recv", step.device.name,
                            [(t.name, record.inputs[0])], [(t.name, record.outputs[0])], step.src.name,
                            iteration=record.iteration)
        op = step.op
        return StepView(step.index, "op", op.name, op.type, step.device.name,
                        list(zip([t.name for t in op.inputs], record.inputs)),
                        list(zip([t.name for t in op.outputs], record.outputs)),
                        reason=explain_mod.explain(op, self.session.placement), iteration=record.iteration)

    def next(self):
        if self.done:
            return None
        self.history.append(self._view(self.run.steps[self.position]))
        return self.history[-1]

    def back(self):
        if self.history:
            self.history.pop()
        return self.history[-1] if self.history else None

    def run_to(self, index, from_start=False):
        index = max(0, min(index, len(self.run.steps)))
        del self.history[index:]
        while self.position < index:
            self.next()
        return self.history[-1] if self.history else None

    def run_to_end(self):
        return self.run_to(len(self.run.steps))

    def finish(self):
        self.run_to_end()
        return fetch_mod.pack(self.run.fetches, self.run.values)

    def describe(self, i):
        return _describe(self.steps[i])

    def describe_next(self):
        return "" if self.done else _describe(self.run.steps[self.position].step)


def _describe(step):
    if isinstance(step, OpStep):
        return f"{step.op.name} ({step.op.type}) on {step.device.short_name}"
    return f"transfer {step.tensor.name}: {step.src.short_name} -> {step.device.short_name}"


__all__ = ["ModelledRun", "ModelledStepper", "Shaped", "default_fetches", "modelled_run"]
