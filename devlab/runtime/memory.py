"""Memory planning for compiled programs: large intermediates get buffers that live with the
program and are reused by every run, the way TensorFlow's allocator keeps its memory.

A fresh 50 MB array costs more than the arithmetic that fills it (the operating system hands
out new pages one fault at a time), so a training step that allocates its weight gradients
every run spends much of its time allocating. A slot gets a planned buffer when:

* its kernel can write into one (``OpDef.writes_out``) and its shape and dtype are static;
* it is large (``MIN_BYTES``): small arrays are cheap to allocate and cheaper to leave alone;
* it does not escape the run: it is not fetched, not stored into a variable by ``Assign``, and
  no view of it escapes either.

Slots whose lifetimes do not overlap share a buffer (same shape and dtype), so a chain of
large ops needs two buffers, not one per op. A buffer is never both the input and the output
of one step. A fused group (``fusion.py``) or merged products (``products.py``) run where
their root is: the members read their inputs then, and only the root's output is an array of
its own (merged products may make a new array even for that).

A program whose lanes run side by side (``lanes.py``) passes ``lane_of``: a buffer is then reused
only by a step of the one lane that made and read what it held before, the only order lanes keep.
"""
import numpy as np

from .steps import OpStep

MIN_BYTES = 1 << 20


def plan_buffers(plan, groups=(), lane_of=None):
    """{op step index: buffer} for the steps whose output goes into a planned buffer (``lane_of``:
    step index -> lane, when the program's lanes run side by side)."""
    steps = plan.steps
    runs_at = {m.index: g.root.index for g in groups for m in g.members}  # a member runs with its root
    inside = {m.index for g in groups for m in g.members if m is not g.root or not g.root_writes_out}
    producer, last_read, view_of, lanes = {}, {}, {}, {}  # lanes: slot -> the lanes making or reading it
    for step in steps:
        if isinstance(step, OpStep):
            for s in step.outputs:
                producer[s] = step
            if step.opdef.returns_view and step.inputs:
                for s in step.outputs:
                    view_of[s] = step.inputs[0]
            reads = step.inputs
        else:
            reads = (step.input,)
        for s in reads:
            last_read[s] = max(last_read.get(s, -1), runs_at.get(step.index, step.index))
            if lane_of is not None:
                lanes.setdefault(s, set()).add(lane_of.get(runs_at.get(step.index, step.index)))
    escaping = _escaping(steps, plan.fetch_slots, view_of)
    # A view keeps its base alive: the base lives until the view's last reader.
    for view, base in view_of.items():
        root = _root(base, view_of)
        last_read[root] = max(last_read.get(root, -1), last_read.get(view, -1))
        lanes.setdefault(root, set()).update(lanes.get(view, ()))
    candidates = []
    for slot, step in producer.items():
        if len(step.outputs) != 1 or not step.opdef.writes_out or slot in escaping \
                or step.index in inside:
            continue
        t = step.op.outputs[0]
        if not t.shape.is_fully_defined() or t.dtype.base_dtype.name == "string":
            continue
        dtype = np.dtype(t.dtype.base_dtype.as_numpy_dtype)
        shape = tuple(t.shape.sizes)
        if int(np.prod(shape, dtype=np.int64)) * dtype.itemsize < MIN_BYTES:
            continue
        lane = None if lane_of is None else lane_of.get(step.index)
        # the one lane that may reuse the buffer after this slot, or -1: none (lanes not in order)
        owner = lane if lanes.get(slot, set()) <= {lane} else -1
        candidates.append((step.index, last_read.get(slot, step.index), shape, dtype, step, lane, owner))
    buffers, free = {}, {}  # free: (shape, dtype) -> [(free after step index, lane that may reuse it, buffer)]
    for start, end, shape, dtype, step, lane, owner in sorted(candidates, key=lambda c: c[0]):
        pool = free.setdefault((shape, dtype), [])
        reuse = next((i for i, (until, by, _) in enumerate(pool) if until < start and by == lane), None)
        buffer = pool.pop(reuse)[2] if reuse is not None else step.device.xp.empty(shape, dtype)
        buffers[start] = buffer
        pool.append((end, owner, buffer))
    return buffers


def _root(slot, view_of):
    while slot in view_of:
        slot = view_of[slot]
    return slot


def _escaping(steps, fetch_slots, view_of):
    """Slots whose arrays outlive the run: fetched or stored in a variable (and their bases)."""
    out = {s for s in fetch_slots if s is not None}
    for step in steps:
        if isinstance(step, OpStep) and step.op.type == "Assign":
            out.add(step.inputs[1])
    return {_root(s, view_of) for s in out} | out
