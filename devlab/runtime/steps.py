"""The two kinds of step a plan is made of: an op on its device, and a transfer between devices.

Both read and write *slots*: indices into the value table of a run, one slot per (tensor,
device). A transfer between two numpy-backed devices (CPUs, simulated GPUs) is an *alias*: its
output slot is its input slot, so it costs nothing at run time, yet it stays a step, so the
log, the trace, the cost model and the stepper still see the copy TensorFlow would make.
"""
import zlib

import numpy as np

from ..devices import parallel
from ..ops.philox import Philox
from ..ops.table import lookup


PRELOADED = ("Const", "VariableV2", "Variable", "VarHandleOp")  # computed once per plan (constants) or per run (references)


class KernelContext:
    """What a kernel may see: its array module, the op's attrs, a random generator (made on
    first use), its name and device, and ``out``: a buffer to write its output into, or None."""

    __slots__ = ("xp", "attrs", "op_name", "op", "device", "out", "_rngs")

    def __init__(self, op, device, rngs):
        self.xp = device.xp
        self.attrs = op.attrs  # read-only for kernels
        self.op_name = op.name
        self.op = op  # for a kernel whose message names its input (EnsureShape)
        self.device = device
        self.out = None
        self._rngs = rngs  # the session's generators, shared by every plan that runs this op

    @property
    def rng(self):
        return self._rngs.get(self.op_name, self.attrs.get("seed"))

    @property
    def philox(self):
        """TF's own generator for the op (``seed``, ``seed2`` attrs), kept across runs."""
        return self._rngs.philox(self.op_name, self.attrs.get("seed") or 0, self.attrs.get("seed2") or 0)

    def split(self, fn, shape, *args):
        """``fn(*args)``, run on parts of the arrays shaped ``shape`` in parallel when they are
        large host arrays (``devices/parallel.py``): for elementwise updates."""
        parallel.split(fn, shape, *args)

    def parts(self, fn, count, blas=True, few=False):
        """``fn(lo, hi)`` over ranges covering ``range(count)``: one per core for host arrays
        (``devices/parallel.py``), BLAS held to one thread while they run (``blas``), as few calls
        as threads free to make them (``few``); one call on other devices."""
        if self.device.backend != "numpy":
            fn(0, count)
        else:
            parallel.ranges(fn, count, blas, few)

    def matmul(self, a, b):
        """``a @ b`` into ``out`` (if planned); a large product of host matrices is split over the
        cores (``devices/parallel.py``)."""
        if self.device.backend != "numpy":
            return self.xp.matmul(a, b, out=self.out)
        return parallel.matmul(a, b, self.out)

    def writing_into(self, out):
        """A copy of this context whose kernel writes its output into ``out``."""
        ctx = KernelContext.__new__(KernelContext)
        ctx.xp, ctx.attrs, ctx.op_name, ctx.device, ctx._rngs = self.xp, self.attrs, self.op_name, self.device, self._rngs
        ctx.op = self.op
        ctx.out = out
        return ctx


class RandomGenerators:
    """One numpy generator per random op of a session, seeded from the graph seed and the op's
    seed (or its name), so every run of a notebook draws the same numbers."""

    def __init__(self, graph):
        self.graph = graph
        self._by_op = {}

    def get(self, op_name, op_seed):
        rng = self._by_op.get(op_name)
        if rng is None:
            seed = zlib.crc32(op_name.encode()) if op_seed is None else op_seed
            rng = self._by_op[op_name] = np.random.default_rng([self.graph.seed or 0, seed])
        return rng

    def philox(self, op_name, seed, seed2):
        """The op's Philox generator as TF seeds it (both seeds 0: seeded from the graph seed and
        the op's name, devlab's stand-in for TF's unseeded randomness)."""
        gen = self._by_op.get(op_name)
        if gen is None:
            if not seed and not seed2:
                seed, seed2 = self.graph.seed or 0, zlib.crc32(op_name.encode())
            gen = self._by_op[op_name] = Philox(seed, seed2)
        return gen

    def state(self):
        """Where every generator is now (the stepper rewinds to it to replay a run)."""
        return {name: (rng.get_state() if isinstance(rng, Philox) else rng.bit_generator.state)
                for name, rng in self._by_op.items()}

    def restore(self, state):
        for name, rng in list(self._by_op.items()):
            if name not in state:
                del self._by_op[name]
            elif isinstance(rng, Philox):
                rng.set_state(state[name])
            else:
                rng.bit_generator.state = state[name]


class OpStep:
    """Run ``op`` on ``device``: read the input slots (reading the variable behind a reference
    input where ``deref`` says so), call the kernel of ``opdef``, write the output slots."""

    __slots__ = ("index", "op", "device", "opdef", "kernel", "ctx", "inputs", "deref", "outputs", "frees", "preloaded",
                 "controls", "token", "label")

    def __init__(self, op, device, ctx, inputs, deref, outputs, opdef):
        self.index = None
        self.preloaded = op.type in PRELOADED  # its value is in every run's table from the start
        self.op, self.device, self.ctx, self.opdef, self.kernel = op, device, ctx, opdef, opdef.kernel
        self.inputs, self.deref, self.outputs = inputs, deref, outputs
        self.frees = ()  # slots whose last reader this step is
        # With control flow: the slots where this op's control inputs leave a token (True, or DEAD
        # when they did not run), and the slot where it leaves its own (None: no op waits on it).
        self.controls, self.token = (), None
        self.label = None  # the node's name in TF's partition graphs, when it is not the op's own

    @property
    def name(self):
        return self.label or self.op.name

    def __repr__(self):
        return f"<OpStep {self.index}: {self.op.name} ({self.op.type}) on {self.device.short_name}>"


class TransferStep:
    """Move ``tensor`` from device ``src`` to ``device`` (TF's ``_Send``/``_Recv`` pair)."""

    __slots__ = ("index", "tensor", "src", "device", "input", "output", "alias", "frees", "send_name", "recv_name")

    def __init__(self, tensor, src, device, input_slot, output_slot, alias):
        self.index = None
        self.tensor, self.src, self.device = tensor, src, device
        self.input, self.output, self.alias = input_slot, output_slot, alias
        self.frees = ()
        self.send_name = self.recv_name = ""

    @property
    def name(self):
        return self.recv_name

    @property
    def op(self):
        """The producer of the tensor moved."""
        return self.tensor.op

    def __repr__(self):
        return (f"<TransferStep {self.index}: {self.tensor.name} {self.src.short_name} -> "
                f"{self.device.short_name}{' (alias)' if self.alias else ''}>")


class LoopStep:
    """A while loop's frame (TF's ``Enter`` ... ``Exit``): its steps run again for every
    iteration while the loop condition holds.

    ``entry`` are the indices (in ``steps``) of the Enter steps, which run in the first
    iteration only: a constant Enter's value stays for every iteration, a loop variable's Enter
    then reads DEAD, so each ``Merge`` takes the value its ``NextIteration`` left instead.
    """

    __slots__ = ("index", "frame_name", "steps", "entry", "variable_enters", "next_slots", "cond_slot")

    def __init__(self, frame_name, steps, entry, variable_enters, next_slots, cond_slot):
        self.index = None
        self.frame_name, self.steps, self.entry = frame_name, steps, entry
        self.variable_enters, self.next_slots, self.cond_slot = variable_enters, next_slots, cond_slot

    @property
    def name(self):
        return self.frame_name

    def __repr__(self):
        return f"<LoopStep {self.frame_name}: {len(self.steps)} steps>"


def wiring(steps):
    """({slot: the op step writing it}, {slot: the steps reading it}) over ``steps`` (no loops):
    what the compilers of a program (fusion, merged products) look at. An alias transfer reads
    nothing: its output is its input's slot."""
    producer, readers = {}, {}
    for step in steps:
        if isinstance(step, OpStep):
            for s in step.outputs:
                producer[s] = step
            reads = step.inputs
        else:
            reads = () if step.alias else (step.input,)
        for s in reads:
            readers.setdefault(s, []).append(step)
    return producer, readers


def writes_state(step):
    """Whether a step may change a variable (so a value read through a reference may differ
    after it): what the compilers of a program must not move reads across."""
    if not isinstance(step, OpStep):
        return False
    opdef = lookup(step.op.type)
    return bool(opdef.stateful and (opdef.ref_inputs or any(t.dtype.base_dtype.name == "resource"
                                                            for t in step.op.inputs)))


def describe(step):
    """One line saying what an op or transfer step does, e.g. "a (MatMul) on GPU:0"."""
    if isinstance(step, OpStep):
        return f"{step.op.name} ({step.op.type}) on {step.device.short_name}"
    return f"transfer {step.tensor.name}: {step.src.short_name} -> {step.device.short_name}"


def flat_steps(steps):
    """Every op and transfer step, loops opened (each loop's steps once)."""
    for step in steps:
        if isinstance(step, LoopStep):
            yield from flat_steps(step.steps)
        else:
            yield step
