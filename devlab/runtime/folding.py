"""Constant folding for compiled programs: ops that compute the same value every run, run once.

A gradient graph is full of small ops whose inputs are all constants: the shapes that ``Slice``,
``Pad`` and ``Reshape`` gradients rebuild (``Pack``, ``StridedSlice``, ``Sub``), the
``ones_like`` and ``zeros_like`` a loss fills, ``ConcatOffset``. TensorFlow's graph optimizer
(grappler) folds them before the first run; a compiled program folds them when it is built: it
runs each such op's kernel once, on the constants (and the values folded before it), and the
program reads the result instead of calling the kernel every run.

An op is folded when it is pure (not ``stateful``: no variable, random generator, queue or
resource) and every input is a constant or a folded value, its kernel succeeds, each output is
a host array or numpy scalar (no handle or other object a run could change) of at most ``MAX_BYTES``. A kernel
that fails is left to run, so the run reports its error as it always did. The value is the one
the kernel computes at run time (same kernel, same inputs), so the program stays equal to the
interpreter; folding, like fusion, changes how a steady run executes, never what it reports.

A folded value is shared by every run, as a constant is: nothing writes into it (kernels never
write into their inputs, planned buffers are the program's own), and a fetch that may alias it
is copied (``aliasing``).
"""
import numpy as np

from .steps import OpStep

MAX_BYTES = 1 << 20  # a larger value is left to be computed each run (as grappler caps what it folds)
NEVER = frozenset(("PyFuncStateless",))  # pure by declaration, but it calls the user's Python: run it each time


def fold(plan, taken=()):
    """{step index: its outputs' values} for the steps of ``plan`` (no loops) that can be folded,
    leaving out the steps whose indices are in ``taken``."""
    fed = {s for s, _, _ in plan.feed_slots}
    known = {s: v for s, v in enumerate(plan.initial) if v is not None and s not in fed}
    known.update((s, None) for s, *_ in plan.variable_slots)  # never constant: read each run
    constant = {s for s, v in known.items() if v is not None}
    values, folded = dict(known), {}
    with np.errstate(all="ignore"):  # as a run computes
        for step in plan.steps:
            if not isinstance(step, OpStep):
                continue  # a copy between devices stays one; an alias's output slot is its input's
            if not _foldable(step, taken) or not all(s in constant for s in step.inputs):
                continue
            try:
                out = step.kernel(step.ctx, *[values[s] for s in step.inputs])
            except Exception:  # noqa: BLE001 - left to fail at run time, with the run's error
                continue
            outs = [out] if len(step.outputs) == 1 else list(out)
            if len(outs) != len(step.outputs) or not all(_small_array(v) for v in outs):
                continue
            for slot, v in zip(step.outputs, outs):
                values[slot] = v
                constant.add(slot)
            folded[step.index] = outs
    return folded


def _foldable(step, taken):
    opdef = step.opdef
    return (step.index not in taken and not step.preloaded and step.outputs and not step.deref
            and not opdef.stateful and not opdef.ref_inputs and opdef.runs and not opdef.blocking
            and not opdef.reads_dead and step.op.type not in NEVER and step.device.backend == "numpy")


def _small_array(v):
    """A numpy array (or scalar: a 0-d op's kernel may give one) of numbers, not too large."""
    return isinstance(v, (np.ndarray, np.generic)) and v.dtype != object and v.nbytes <= MAX_BYTES


def aliasing(plan, folded):
    """The slots whose value may share memory with a folded value: the folded outputs, and what
    a step that may return a view of its (first) input makes of them (an alias transfer's output slot
    is its input's)."""
    slots = {s for index in folded for s in plan.steps[index].outputs}
    for step in plan.steps:
        if isinstance(step, OpStep) and step.opdef.returns_view and step.inputs and step.inputs[0] in slots:
            slots.update(step.outputs)
    return slots
