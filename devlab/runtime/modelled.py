"""A *modelled* run: the plan of a real run run abstractly, values replaced by shapes, timed by
the cost model.

A graph opened from a file (``devlab.load_graph``) holds ops devlab has no kernel for, so it
cannot run for real; and a real run on simulated GPUs would only say how fast numpy is. A
modelled run compiles the same ``Plan`` as ``Session.run`` (placement, the partitioner's
control-flow moves, one transfer per tensor and destination) and runs it as an
``AbstractRun`` (``abstract_run.py``: the same ``Run``, its kernels the shape rules), then:

* each op and each transfer gets the cost model's time (``devices/cost_model.py``), and the
  steps are scheduled as a machine would run them (``trace.schedule``: one compute lane per
  device, one copy lane per device pair, each step once its inputs are ready);
* the result has ``RunMetadata.step_stats`` (for the timeline), the transfers, the modelled step
  time, and a stepper (the ``Stepper``, driving an AbstractRun) that shows shapes.

An unknown dimension (a batch of ``None``) is taken as ``unknown_dim`` (1 unless given) and
listed in ``assumed``; a tensor whose shape no rule could tell counts no bytes and is listed in
``unknown``. Both sides of a ``tf.cond`` are modelled (the untaken side would cost nothing in
TensorFlow) and each loop runs ``loop_iterations`` times (default 1).
"""
from dataclasses import dataclass, field

import numpy as np

from ..devices.cost_model import DEFAULT
from ..framework.tensor_shape import TensorShape
from ..ops.table import has_kernel
from . import events
from . import fetches as fetch_mod
from .abstract_run import AbstractRun, Shaped
from .plan import compile_plan, needed_ops
from .protos import DeviceStepStats, NodeExecStats, RunMetadata, StepStats
from .stepper import Stepper
from .steps import OpStep
from .trace import StepRecord, schedule


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
    feeds: dict = field(default_factory=dict)  # {fed tensor: Shaped}
    loop_iterations: int = 1

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
        return [s.op for s in self.plan.flat_steps() if isinstance(s, OpStep) and not has_kernel(s.op)]

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
    run = AbstractRun(plan, feed_shapes, loop_iterations, unknown_dim)
    run.run_to_end()
    cost_model = cost_model or DEFAULT
    _schedule(run.records, cost_model)
    modelled = ModelledRun(session, plan, leaves, run.records, run.fetch(), cost_model, run.assumed, run.unknown,
                           run.unknown_dim, feed_shapes, run.loop_iterations)
    events.emit(events.RunFinished(session, plan, None, modelled=modelled))  # the magic and `devlab place` see it
    return modelled


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
class ModelledStepper(Stepper):
    """The stepper of a modelled run: the ``Stepper`` driving an ``AbstractRun``, so ``next()``,
    ``back()``, ``run_to(i)``, ``run_to_end()`` walk the placed graph one op or transfer at a time,
    each value shown as its shape. ``run`` is the whole ModelledRun (times, summary). Nothing is
    written, so ``finish()`` commits nothing."""

    def __init__(self, session, fetches=None, feed_dict=None, **options):
        self.session = session
        self.run = modelled_run(session, fetches, feed_dict, **options)
        self.plan, self.fetches = self.run.plan, self.run.fetches
        self.feed_values = [self.run.feeds.get(t) for _, t, _ in self.plan.feed_slots]
        self._begin()

    def _new_run(self):
        return AbstractRun(self.plan, self.run.feeds, self.run.loop_iterations, self.run.unknown_dim,
                           (self._record,))

    def _finish(self):
        return self._run.fetch()


__all__ = ["ModelledRun", "ModelledStepper", "Shaped", "default_fetches", "modelled_run"]
