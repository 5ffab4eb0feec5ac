"""Fusing a layer's bias add and its relu into one pass, and a relu's gradient with its bias's
gradient, for compiled programs.

``relu(x + b)`` (``x`` a convolution's or a product's output, ``b`` a bias per channel, added by
``AddV2``/``Add`` or by ``BiasAdd`` in NHWC) is two ops: one pass writes the sum, a second reads it
back and writes the relu. On a CNN step these are megabytes each, so the cost is the passes over
memory. Fused, it is one pass that reads ``x`` and writes the result into the relu's planned
buffer (``relu_kernels.bias_relu``: a compiled loop with numba, numpy's two ufuncs without); the
sum is never written. TensorFlow's CPU kernels do the same (its remapper fuses a convolution's or
a product's bias add and relu into the convolution).

Backwards, the bias's gradient is a ``Sum`` (or ``BiasAddGrad``) of the relu's gradient over all
axes but the channels:
another pass over an array just written. ``ReluGradSum`` computes the ``ReluGrad`` and adds up
its rows as it writes them (``relu_kernels.relu_grad_sum``), in the order the ``Sum`` kernel adds
them, so both values are the kernels' own, bit for bit.

Like ``fusion.py``, this changes how a steady run executes, never what it computes or reports:
the values are the ops' own, bit for bit, and the placement log, the stepper and traced runs
see both ops.
"""
import numpy as np

from ..ops import tensor_util
from .steps import OpStep, wiring, writes_state

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


class ReluGradSum:
    """A ``ReluGrad`` (the root) and a ``Sum`` (or ``BiasAddGrad``) of its result over its leading
    axes (``total``),
    run as one pass where the ReluGrad runs (the sum, later in the plan, is ready early); both
    outputs are written. ``inputs`` are the ReluGrad's."""

    root_writes_out = True  # the gradient goes into the ReluGrad's planned buffer

    def __init__(self, relu_grad, total, count):
        self.root, self.total, self.count = relu_grad, total, count
        self.members = [relu_grad, total]
        self.inputs = tuple(relu_grad.inputs)

    def line(self, arg, out):
        keep = bool(self.total.op.attrs.get("keep_dims"))  # a BiasAddGrad has none: its sum is 1-D
        return (f"s{self.root.outputs[0]}, s{self.total.outputs[0]} = relu_grad_sum("
                f"{arg(self.root, 0)}, {arg(self.root, 1)}, {self.count}, {keep}, {out})")


def find(plan, taken=()):
    """The bias-then-relu pairs and the relu gradients summed into a bias's gradient of ``plan``
    (steps on host-memory devices), leaving out the steps whose indices are in ``taken``."""
    steps = plan.steps
    producer, readers = wiring(steps)
    fetched = {s for s in plan.fetch_slots if s is not None}
    writers = [s.index for s in steps if writes_state(s)]
    found, taken = [], set(taken)
    for grad in steps:
        if not (_host_float(grad) and grad.op.type == "ReluGrad") or grad.index in taken:
            continue
        if grad.op.inputs[0].shape.sizes != grad.op.inputs[1].shape.sizes:
            continue
        for total in readers.get(grad.outputs[0], ()):
            count = _leading_axes(total)
            if count is not None and total.index not in taken and total.inputs[0] == grad.outputs[0]:
                found.append(ReluGradSum(grad, total, count))
                taken.update((grad.index, total.index))
                break
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


def _leading_axes(step):
    """k when ``step`` sums a host float array over its axes 0 .. k-1 (fewer than all): a ``Sum``
    over constant axes, or a ``BiasAddGrad`` in NHWC (every axis but the last); else None."""
    if not _host_float_output(step) or step.deref or step.op.type not in ("Sum", "BiasAddGrad"):
        return None
    ndim = step.op.inputs[0].shape.ndims
    if step.op.type == "BiasAddGrad":
        fmt = step.op.attrs.get("data_format") or "NHWC"
        return ndim - 1 if (fmt.decode() if isinstance(fmt, bytes) else fmt) == "NHWC" and ndim >= 2 else None
    axes = tensor_util.constant_value(step.op.inputs[1])
    if axes is None or not ndim:
        return None
    axes = sorted(int(a) % ndim for a in np.reshape(axes, -1))
    return len(axes) if 0 < len(axes) < ndim and axes == list(range(len(axes))) else None


def _host_float_output(step):
    """Whether ``step`` is an op on a host-memory device with one static float output and a first
    input of its dtype."""
    if not isinstance(step, OpStep) or step.device.backend != "numpy" or len(step.outputs) != 1:
        return False
    t, x = step.op.outputs[0], step.op.inputs[0]
    return (t.dtype.base_dtype.name in FLOATS and t.shape.is_fully_defined() and x.shape.is_fully_defined()
            and x.dtype.base_dtype == t.dtype.base_dtype)


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
