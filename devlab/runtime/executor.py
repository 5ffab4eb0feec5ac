"""Executing a plan, one step at a time.

``run_step`` is the whole executor: read the step's input slots (reading the variable behind a
reference where the op wants a value), call the kernel or the transfer function, and write
the output slots. ``Session.run`` calls it in a loop; the stepper calls it once per click.
When ``trace`` is given, each step is timed and reported to it (the timeline and
``RunMetadata`` are built from those reports).
"""
import time

import numpy as np

from ..devices import gpu
from ..devices.transfer import transfer
from ..framework import errors
from ..ops.table import lookup
from .variable_store import VarRef


class KernelContext:
    """What a kernel may see: its array module, attrs, random generator, variables, names."""

    __slots__ = ("xp", "attrs", "rng", "variables", "op_name", "device", "kernel")

    def __init__(self, op, device, variables, rng):
        self.xp = device.xp
        self.attrs = op.attrs
        self.rng = rng
        self.variables = variables
        self.op_name = op.name
        self.device = device
        self.kernel = lookup(op.type).kernel_for(device.device_type)


def run_step(step, values, trace=None):
    """Executes one step against the value table ``values``."""
    start = time.perf_counter() if trace is not None else 0.0
    if step.kind == "transfer":
        value = values[step.inputs[0]]
        if isinstance(value, VarRef):
            value = _read(value, step.op)
        values[step.outputs[0]] = transfer(value, step.src_device, step.device)
    else:
        args = [values[i] for i in step.inputs]
        for i, deref in enumerate(step.deref):
            if deref and isinstance(args[i], VarRef):
                args[i] = _read(args[i], step.op)
        ctx = step.context
        try:
            if step.device.backend == "cupy":
                with gpu.on_device(step.device):
                    out = ctx.kernel(ctx, *args)
            else:
                out = ctx.kernel(ctx, *args)
        except errors.OpError:
            raise
        except Exception as e:  # noqa: BLE001 - any kernel failure becomes TF's error for that node
            raise _kernel_error(step, e, args) from e
        if len(step.outputs) == 1:
            values[step.outputs[0]] = out
        elif step.outputs:
            for slot, v in zip(step.outputs, out):
                values[slot] = v
    if trace is not None:
        trace(step, start, time.perf_counter(), values)


def _read(ref, consumer):
    try:
        return ref.read()
    except errors.FailedPreconditionError as e:
        raise errors.FailedPreconditionError(
            consumer.node_def, consumer, f"{e.message}\n\t [[{{{{node {consumer.name}}}}}]]" + errors.defined_at(consumer)) from None


def _kernel_error(step, e, args):
    op = step.op
    where = f"\n\t [[{{{{node {op.name}}}}}]]" + errors.defined_at(op)
    if type(e).__name__ == "OutOfMemoryError":
        return errors.ResourceExhaustedError(
            op.node_def, op, f"OOM when allocating tensor for op '{op.name}' ({op.type}) on {step.device.name}: "
            f"{e}" + where)
    if op.type == "MatMul" and len(args) == 2:
        a, b = (np.shape(x) for x in args)
        return errors.InvalidArgumentError(
            op.node_def, op, f"Matrix size-incompatible: In[0]: [{','.join(map(str, a))}], "
            f"In[1]: [{','.join(map(str, b))}]" + where)
    if isinstance(e, (ValueError, IndexError, TypeError)):
        return errors.InvalidArgumentError(op.node_def, op, f"{op.type} failed: {e}" + where)
    return errors.InternalError(op.node_def, op, f"{op.type} failed: {type(e).__name__}: {e}" + where)

