"""``AbstractRun``: a ``Run`` whose kernels are the shape rules and the cost model's counts.

It is the same interpreter as a real run (the same plan, loop handling, fetches and step
events), evaluated abstractly: each value is a ``Shaped`` (its dtype and shape, from the feeds,
the ops' static shapes and the shape rules: ``ops/tf_shapes.py`` for TensorFlow's ops, the op
table's for devlab's); a ``Const`` keeps its value, so shapes computed from constants (a
Reshape's target) are exact. Each step leaves a ``ModelledStep`` with its FLOPs and bytes, which
``modelled.py`` schedules with the cost model.

What it cannot know, it says: an unknown dimension is taken as ``unknown_dim`` and listed in
``assumed``; a tensor whose shape no rule could tell is listed in ``unknown``. Without values
there is no branch to take or loop condition to test: both sides of a ``tf.cond`` run, and each
loop runs ``loop_iterations`` times.
"""
from dataclasses import dataclass

import numpy as np

from ..devices.cost_model import op_flops
from ..framework import dtypes
from ..framework.tensor_shape import TensorShape
from ..ops import tf_ops, tf_shapes
from ..ops.table import has_kernel, lookup
from .run import Run
from .steps import OpStep, TransferStep


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


class AbstractRun(Run):
    """A run of ``plan`` on shapes: ``feed_shapes`` is {fed tensor: Shaped}; ``records`` holds a
    ModelledStep per step run. Nothing is read from or written to a variable store."""

    def __init__(self, plan, feed_shapes, loop_iterations=1, unknown_dim=1, subscribers=()):
        self.loop_iterations, self.unknown_dim = max(1, int(loop_iterations)), int(unknown_dim)
        self.assumed, self.unknown, self._noted = [], [], set()
        self.records = []
        super().__init__(plan, None, feed_shapes, None, subscribers)

    # -- the hooks of Run ---------------------------------------------------------------------------
    def start_values(self, feed_shapes):
        values = [None] * self.plan.num_slots
        for slot, value in enumerate(self.plan.initial):
            if isinstance(value, np.ndarray):
                values[slot] = Shaped(dtypes.as_dtype(value.dtype), value.shape, value)
        for slot, tensor, _ in self.plan.feed_slots:
            fed = feed_shapes.get(tensor)
            values[slot] = fed if fed is not None else self._static(tensor)
        return values

    def run_step(self, step):
        values = self.values
        if isinstance(step, TransferStep):
            value = self._value(step.input, step.tensor)
            values[step.output] = value
            record = ModelledStep(step, (value,), (value,), 0, value.nbytes)
        else:
            op = step.op
            ins = [self._value(s, t) for s, t in zip(step.inputs, op.inputs)]
            outs = self._outputs(op, ins)
            for slot, value in zip(step.outputs, outs):
                values[slot] = value
            flops = op_flops(op.type, [v.shape or () for v in ins], [v.shape or () for v in outs])
            if op.type in ("VariableV2", "Variable") or step.preloaded:
                flops, moved = 0, 0
            else:
                moved = sum(v.nbytes for v in ins if not v.dtype.is_ref) + sum(v.nbytes for v in outs)
            record = ModelledStep(step, tuple(ins), tuple(outs), flops, moved)
        record.iteration = self.iteration
        self.records.append(record)

    def loop_continues(self, loop, iteration):
        return loop.cond_slot is not None and iteration + 1 < self.loop_iterations

    def shown(self, value, tensor, device):
        return value if isinstance(value, Shaped) else self._static(tensor)

    def fetch(self):
        """Per fetch: its Shaped value (None for an operation)."""
        return [None if slot is None else self.values[slot] for slot in self.plan.fetch_slots]

    # -- shapes --------------------------------------------------------------------------------------
    def _value(self, slot, tensor):
        """The Shaped in ``slot``; its static shape where the slot holds none (not yet written in
        a loop's first iteration, DEAD, or freed)."""
        value = self.values[slot]
        return value if isinstance(value, Shaped) else self._static(tensor)

    def _outputs(self, op, ins):
        """The op's outputs: its rule's shapes on the actual input shapes, else its static ones."""
        if op.type == "Const":
            value = op.get_attr("value")
            return [Shaped(op.outputs[0].dtype, np.shape(value), value)]
        folded = _fold(op, ins)
        if folded is not None:
            return folded
        inputs = [_In(t.dtype, v) for t, v in zip(op.inputs, ins)]
        attrs = op.attrs
        try:
            if has_kernel(op):
                dims = [d for _, d in lookup(op.type).shape(inputs, attrs)]
            else:
                dims = tf_shapes.infer(op.type, inputs, {**tf_ops.attr_defaults(op.type), **attrs})
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


class _In:
    """An input as the shape rules read it."""

    __slots__ = ("dtype", "shape", "value", "op")

    def __init__(self, dtype, shaped):
        self.dtype = dtype
        self.shape = TensorShape(None if shaped is None else shaped.shape)
        self.value = None if shaped is None else shaped.value
        self.op = None


def _fold(op, ins):
    """Ops whose outputs are known from input shapes alone: Shape, ShapeN, Size, Rank."""
    if op.type in ("Shape", "ShapeN") and all(v.shape is not None for v in ins):
        return [Shaped(t.dtype, (len(v.shape),), np.array(v.shape, dtype=t.dtype.as_numpy_dtype))
                for t, v in zip(op.outputs, ins)]
    if op.type in ("Size", "Rank") and ins and ins[0].shape is not None:
        value = int(np.prod(ins[0].shape)) if op.type == "Size" else len(ins[0].shape)
        return [Shaped(op.outputs[0].dtype, (), np.array(value))]
    return None
