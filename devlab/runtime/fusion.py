"""Fusing chains of elementwise ops.

A group is a set of elementwise op steps (kernels with an ``expression``) on host-memory
devices, of one floating-point dtype, where every value passed inside the group is read by
exactly one member and is not fetched. How it runs depends on the size of its arrays:

* small arrays (or unknown shapes): one numexpr expression, when numexpr is installed; per-op
  overhead dominates there, and a chain of 10,000 adds on 16 floats becomes about 150 calls;
* larger arrays: the members run as numpy ufuncs writing *in place* into the group's own
  intermediate (``out=``): no allocation per op, and the data stays in cache between ops,
  which numpy's vectorised loops do faster than numexpr's interpreter.

Fusion changes how a steady run executes, never what it computes or reports: the placement
log, the stepper and traced runs see every op. Values hop between host-memory devices by alias
(no copy), so a chain may span several of them.
"""
import functools
import threading

from .steps import OpStep, wiring

MAX_OPS = 64  # ops per expression: numexpr parses nested parentheses, and Python stops at 200
MAX_INPUTS = 24
FLOATS = ("float32", "float64")
IN_PLACE_FROM = 4096  # elements: from this size on, in-place numpy beats numexpr


def numexpr_module():
    """numexpr if installed, else None (fusion is then off; the program calls numpy per op)."""
    try:
        import numexpr
    except ImportError:
        return None
    return numexpr


class Group:
    """Steps fused into one expression: ``members`` in execution order, the last one's output is
    the group's; ``inputs`` are the slots read from outside, in argument order."""

    def __init__(self, members, inputs, expression, dtype):
        self.members, self.inputs, self.expression, self.dtype = members, inputs, expression, dtype
        self.root = members[-1]

    root_writes_out = True  # the root's output may go into a planned buffer

    def compiled(self):
        """A function of the input arrays returning the group's output."""
        return _compile(self.expression, len(self.inputs), self.dtype)

    @property
    def in_place(self):
        """Whether to run the members as in-place ufuncs (large, static shapes) or as numexpr."""
        shapes = [m.op.outputs[0].shape for m in self.members]
        if not all(s.is_fully_defined() for s in shapes):
            return numexpr_module() is None
        return numexpr_module() is None or shapes[-1].num_elements() >= IN_PLACE_FROM


def find_groups(plan, taken=()):
    """The groups worth fusing in ``plan`` (two ops or more each), leaving out the steps whose
    indices are in ``taken``. Without numexpr, only groups whose shapes are static (they run in
    place)."""
    steps = plan.steps
    producer, readers = wiring(steps)
    fetched = {s for s in plan.fetch_slots if s is not None}
    taken, groups = set(taken), []
    for step in reversed(steps):
        dtype = _fusible(step)
        if dtype is None or step.index in taken:
            continue
        members, frontier = [step], [step]
        taken.add(step.index)
        while frontier:
            member = frontier.pop()
            for slot in member.inputs:
                p = producer.get(slot)
                if (p is not None and p.index not in taken and len(members) < MAX_OPS and len(readers.get(slot, ())) == 1
                        and slot not in fetched and _fusible(p) == dtype):
                    members.append(p)
                    taken.add(p.index)
                    frontier.append(p)
        if len(members) < 2:
            taken.discard(step.index)
            continue
        members.sort(key=lambda s: s.index)
        group = _render(members, dtype)
        if group is None or (numexpr_module() is None and not all(
                m.op.outputs[0].shape.is_fully_defined() for m in members)):  # leave these ops unfused
            taken.difference_update(m.index for m in members)
            continue
        groups.append(group)
    return sorted(groups, key=lambda g: g.root.index)


def _fusible(step):
    """The dtype of an elementwise step that may join a group, else None."""
    if not isinstance(step, OpStep) or step.deref or len(step.outputs) != 1:
        return None
    if step.opdef.expression is None or step.device.backend != "numpy":
        return None
    dtype = step.op.outputs[0].dtype.base_dtype.name
    if dtype not in FLOATS or any(t.dtype.base_dtype.name != dtype for t in step.op.inputs):
        return None
    return dtype


def _render(members, dtype):
    """The numexpr expression computing the last member from the group's inputs."""
    inside = {m.outputs[0]: m for m in members}
    inputs, text = [], {}
    for m in members:
        args = []
        for slot in m.inputs:
            if slot in inside:
                args.append(text[slot])
            else:
                if slot not in inputs:
                    inputs.append(slot)
                args.append(f"x{inputs.index(slot)}")
        text[m.outputs[0]] = m.opdef.expression(*args)
    if len(inputs) > MAX_INPUTS:
        return None
    return Group(members, tuple(inputs), text[members[-1].outputs[0]], dtype)


@functools.lru_cache(maxsize=512)
def _compile(expression, n_inputs, dtype):
    """numexpr's compiled program for one expression (shared by identical groups)."""
    import numpy as np
    ne = numexpr_module()
    kind = float if dtype == "float32" else np.float64  # numexpr names float32 ``float``
    program = ne.NumExpr(expression, signature=[(f"x{i}", kind) for i in range(n_inputs)])
    call = functools.partial(program, order="K", casting="safe", ex_uses_vml=False)
    lock = threading.Lock()  # a NumExpr program keeps its scratch memory: two threads at once abort the process

    def run(*args, **kwargs):
        with lock:
            return call(*args, **kwargs)
    return run
