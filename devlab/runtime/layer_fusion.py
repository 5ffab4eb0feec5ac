"""Fusing a layer's bias add and its relu into one pass, for compiled programs.

``relu(x + b)`` (``x`` a convolution's or a product's output, ``b`` a bias per channel, added by
``AddV2``/``Add`` or by ``BiasAdd`` in NHWC) is two ops: one pass writes the sum, a second reads it
back and writes the relu. On a CNN step these are megabytes each, so the cost is the passes over
memory. Fused, it is one pass that reads ``x`` and writes the result into the relu's planned
buffer (``relu_kernels.bias_relu``: a compiled loop with numba, numpy's two ufuncs without); the
sum is never written. TensorFlow's CPU kernels do the same (its remapper fuses a convolution's or
a product's bias add and relu into the convolution).

Like ``fusion.py``, this changes how a steady run executes, never what it computes or reports:
the values are the ops' own, bit for bit, and the placement log, the stepper and traced runs
see both ops.
"""
from ..ops.table import lookup
from .steps import OpStep, wiring

FLOATS = ("float32", "float64")
ADDS = ("AddV2", "Add", "BiasAdd")


class BiasRelu:
    """An add of a bias along the last axis (``add``) read only by a ``relu``, run as one pass
    where the relu runs; ``inputs`` are the add's (the array, then the bias)."""

    root_writes_out = True  # the result goes into the relu's planned buffer

    def __init__(self, add, relu, bias_first):
        self.add, self.root, self.members = add, relu, [add, relu]
        order = (1, 0) if bias_first else (0, 1)
        self.order = order
        self.inputs = tuple(add.inputs[i] for i in order)

    def line(self, arg, out):
        """The program's line: ``arg(step, i)`` is the text of ``step``'s input ``i``."""
        x, b = (arg(self.add, i) for i in self.order)
        return f"s{self.root.outputs[0]} = bias_relu({x}, {b}, {out})"


def find(plan, taken=()):
    """The bias-then-relu pairs of ``plan`` (steps on host-memory devices), leaving out the steps
    whose indices are in ``taken``."""
    steps = plan.steps
    producer, readers = wiring(steps)
    fetched = {s for s in plan.fetch_slots if s is not None}
    writers = [s.index for s in steps if _writes_state(s)]
    found = []
    for relu in steps:
        if not (_host_float(relu) and relu.op.type == "Relu") or relu.index in taken:
            continue
        add = producer.get(relu.inputs[0])
        if not _host_float(add) or add.op.type not in ADDS or add.index in taken:
            continue
        if len(readers.get(add.outputs[0], ())) != 1 or add.outputs[0] in fetched:
            continue
        bias_first = _bias_index(add)
        if bias_first is None:
            continue
        if add.deref and any(add.index < w < relu.index for w in writers):
            continue  # the bias is read where the relu runs: no variable may change before then
        found.append(BiasRelu(add, relu, bias_first == 0))
    return found


def _bias_index(add):
    """Which input of ``add`` is a bias along the last axis of the other (0 or 1), or None."""
    out = add.op.outputs[0].shape
    if add.op.type == "BiasAdd":
        fmt = add.op.attrs.get("data_format") or "NHWC"
        fmt = fmt.decode() if isinstance(fmt, bytes) else fmt
        return 1 if fmt == "NHWC" and add.op.inputs[1].shape.ndims == 1 else None
    for i in (1, 0):
        bias, x = add.op.inputs[i].shape, add.op.inputs[1 - i].shape
        if (x.ndims and x.ndims >= 1 and x.sizes == out.sizes and bias.ndims == 1
                and bias.sizes[0] == out.sizes[-1]):
            return i
    return None


def _host_float(step):
    """Whether ``step`` is an op on a host-memory device with static shapes, one output, and inputs
    and output of one float dtype."""
    if not isinstance(step, OpStep) or step.device.backend != "numpy" or len(step.outputs) != 1:
        return False
    t = step.op.outputs[0]
    dtype = t.dtype.base_dtype.name
    return (dtype in FLOATS and t.shape.is_fully_defined()
            and all(i.dtype.base_dtype.name == dtype and i.shape.is_fully_defined() for i in step.op.inputs))


def _writes_state(step):
    """Whether a step may change a variable (a value read through a reference may then differ)."""
    if not isinstance(step, OpStep):
        return False
    opdef = lookup(step.op.type)
    return bool(opdef.stateful and (opdef.ref_inputs or any(t.dtype.base_dtype.name == "resource"
                                                            for t in step.op.inputs)))
