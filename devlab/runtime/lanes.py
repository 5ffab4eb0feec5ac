"""Lanes: a compiled program's device partitions run side by side, as TensorFlow's executor runs them.

TensorFlow gives each device its own part of the graph and runs every op whose inputs are ready
on a pool of threads (``inter_op_parallelism_threads`` of them), so the towers of a data-parallel
step, one per device, compute at the same time. A compiled program (``program.py``) runs its
steps one after another; when a plan has two or more host devices with real work, the program
also gets one straight-line function per *lane* (the steps of some devices, in plan order) and
runs them on the cores at once (``devices/parallel.side_by_side``): numpy, BLAS and OpenVINO let
go of the interpreter lock while they compute, so the lanes' kernels overlap.

A lane waits, before a step, for the steps of other lanes it depends on, and each such step
signals when done (a ``threading.Event``). A step depends on:

* the steps that make the values it reads, and the ops it has control dependencies on;
* the earlier steps of other lanes touching variables (reading one through a reference, or any
  stateful op), when it or they may write state: variables are read and written in plan order,
  as the interpreter does, so values are the interpreter's.

Every dependency points to an earlier step of the plan, so the earliest step not yet run can
always run: lanes never wait for each other in a circle. When a step fails, the lanes stop at
the steps after it (a lane checks before each step), the steps before it still run, and the run
reports the failure of the earliest step, as the interpreter would.
"""
import threading

from .steps import OpStep

MIN_WORK = 1 << 20  # elements made by a device's kernels (4 MB of floats): below this, no lanes


class Lanes:
    """The lanes of a plan: ``lane_of`` (step index -> lane), ``waits`` (unit index -> indices of
    the units of other lanes to wait for), ``signals`` (unit indices other lanes wait for),
    ``published`` (unit index -> the slots it writes into the value table for other lanes),
    ``frees`` (unit index -> the slots the unit's lane holds for the last time there)."""

    def __init__(self, count, lane_of, units, waits, published, frees):
        self.count, self.lane_of, self.units = count, lane_of, units
        self.waits, self.published, self.frees = waits, published, frees
        self.signals = sorted({w for ws in waits.values() for w in ws})

    def steps_of(self, lane, steps):
        return [s for s in steps if self.lane_of.get(s.index) == lane]


def device_lanes(plan, threads, cores):
    """{device: its lane} for ``plan``, or None when it runs in one thread: one thread allowed
    (``threads``: the session's inter-op threads, 0 for one per core, negative for the caller's
    thread only), fewer than two devices with real work besides matrix products (an MLP's towers
    run faster as merged products: bench_runtime's MLP step, CPU time under load, 57 ms merged,
    64 ms in lanes), or a step that may wait for another run (a queue's dequeue). Devices take the
    lanes in turn, in the order the plan first uses them."""
    count = min(threads if threads > 0 else cores, cores) if threads >= 0 else 1
    if count < 2:
        return None
    steps = plan.steps
    if any(isinstance(s, OpStep) and s.opdef.blocking for s in steps):
        return None
    # elements each device's kernels make, views and matrix products aside: the towers' products
    # of a shared weight run best merged (``products.py``), which lanes would undo
    work = {}
    for s in steps:
        if isinstance(s, OpStep) and not s.preloaded and s.op.type != "MatMul" and not s.opdef.returns_view:
            work[s.device] = work.get(s.device, 0) + sum(
                t.shape.num_elements() or 0 for t in s.op.outputs if t.shape.is_fully_defined())
    devices = list(dict.fromkeys(s.device for s in steps))  # a transfer's is where it goes
    if sum(work.get(d, 0) >= MIN_WORK for d in devices) < 2:
        return None
    count = min(count, len(devices))
    return {d: i % count for i, d in enumerate(devices)}


def spans_lanes(group, lane_of_device):
    """Whether the steps of a merged product run on devices of different lanes."""
    return len({lane_of_device[m.device] for m in group.members}) > 1


def find(plan, groups, lane_of_device, left_out=()):
    """The lanes of ``plan`` (``device_lanes``; groups: the fused groups and merged products, each
    running where its root runs; ``left_out``: the steps the program leaves out, ``unread.py``)."""
    steps = plan.steps
    count = max(lane_of_device.values()) + 1
    unit_of = {m.index: g.root.index for g in groups for m in g.members}  # a member runs with its root
    members = {g.root.index: g.members for g in groups}
    units, lane_of = [], {}
    for s in steps:
        if s.index in left_out:
            continue
        if isinstance(s, OpStep):
            if s.preloaded:
                continue  # in the value table from the start
        elif s.alias:
            continue  # its output slot is its input's
        root = unit_of.get(s.index, s.index)
        lane_of[s.index] = lane_of_device[steps[root].device]
        if root == s.index:
            units.append(s.index)
    producer, op_unit = {}, {}
    for u in units:
        for m in members.get(u, [steps[u]]):
            for slot in _writes(m):
                producer[slot] = u
            if isinstance(m, OpStep):
                op_unit[m.op] = u
    fetched = {s for s in plan.fetch_slots if s is not None}
    waits, published, last_use = {}, {}, {}
    touched, wrote = {}, {}  # lane -> its latest unit touching state, its latest that may write it
    for u in units:
        lane = lane_of[u]
        inside = members.get(u, [steps[u]])
        made = {slot for m in inside for slot in _writes(m)}
        reads = [slot for m in inside for slot in _reads(m) if slot not in made]
        deps = set()
        for slot in reads:
            p = producer.get(slot)
            if p is not None and lane_of[p] != lane:
                deps.add(p)
                published.setdefault(p, set()).add(slot)
            last_use[(lane, slot)] = u
        for m in inside:
            if isinstance(m, OpStep):
                for c in m.op.control_inputs:
                    p = op_unit.get(c)
                    # a merged product's member runs with its root, which may come later: the
                    # program in one thread runs this step before it too
                    if p is not None and p < u and lane_of[p] != lane:
                        deps.add(p)
        touches, writes = _state(inside)
        if touches:  # after the other lanes' latest writes (and reads, when this one writes)
            for other, a in (touched if writes else wrote).items():
                if other != lane:
                    deps.add(a)
            touched[lane] = u
            if writes:
                wrote[lane] = u
        for slot in made:
            last_use[(lane, slot)] = u
        waits[u] = sorted(deps)
    _drop_covered(units, lane_of, waits)
    for slot in fetched:
        p = producer.get(slot)
        if p is not None:
            published.setdefault(p, set()).add(slot)
    frees = {}
    for (lane, slot), u in last_use.items():
        if slot not in fetched:
            frees.setdefault(u, []).append(slot)
    return Lanes(count, lane_of, units, {u: w for u, w in waits.items() if w}, published, frees)


def _drop_covered(units, lane_of, waits):
    """Keeps, per unit, one wait per other lane (its latest unit), and none for a lane already
    waited for as far by an earlier unit of the same lane (lanes run their units in order)."""
    done = {}  # (waiting lane, other lane) -> the latest unit waited for
    for u in units:
        lane, latest = lane_of[u], {}
        for d in waits[u]:
            latest[lane_of[d]] = max(latest.get(lane_of[d], -1), d)
        kept = []
        for other, d in latest.items():
            if done.get((lane, other), -1) < d:
                done[(lane, other)] = d
                kept.append(d)
        waits[u] = sorted(kept)


def _writes(step):
    if isinstance(step, OpStep):
        return step.outputs
    return () if step.alias else (step.output,)


def _reads(step):
    if isinstance(step, OpStep):
        return step.inputs
    return () if step.alias else (step.input,)


def _state(inside):
    """(whether the steps touch variables or other state, whether they may change it): a step
    reading a variable through a reference touches it; a stateful op may change it."""
    touches = writes = False
    for m in inside:
        if not isinstance(m, OpStep):  # a copy of a variable's value reads the variable
            touches = touches or _is_state(m.tensor)
        elif m.opdef.stateful:
            touches = writes = True
        elif m.deref or any(_is_state(t) for t in m.op.inputs):
            touches = True
    return touches, writes


def _is_state(tensor):
    return tensor.dtype.is_ref or tensor.dtype.base_dtype.name == "resource"


class Stops:
    """What the lanes of one run share: an event per signalling unit, and ``halt``: [the index of
    the earliest unit that failed] (a large number while none has)."""

    NONE = 1 << 62

    def __init__(self, signals):
        self.events = {u: threading.Event() for u in signals}
        self.halt = [self.NONE]
        self.errors = []  # (unit index, exception) per lane that failed
        self._lock = threading.Lock()

    def failed(self, index, error):
        with self._lock:
            self.errors.append((index, error))
            self.halt[0] = min(self.halt[0], index)
        for e in self.events.values():
            e.set()  # every waiting lane wakes, sees ``halt`` and stops

    def stop_all(self):
        """Every lane stops at its next step (the run was interrupted)."""
        self.halt[0] = -1
        for e in self.events.values():
            e.set()

    def first_error(self):
        return min(self.errors, key=lambda x: x[0])[1] if self.errors else None
