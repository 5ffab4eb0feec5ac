"""Executing one step: the kernels behind ``Run.run_step`` (``run.py``).

``compute(step, values)`` is the whole executor: read the step's input slots (reading the
variable behind a reference where the op wants a value), call the kernel or the transfer
function, write the output slots. A steady run executes a compiled program instead
(``program.py``); both report a failing kernel through ``kernel_error`` as TF's error for that node.
"""
import time

import numpy as np

from ..devices import gpu
from ..devices.transfer import nbytes, transfer
from ..framework import errors
from ..ops.kernels import DEAD
from .events import StepFinished, StepStarted, Transfer
from .steps import OpStep
from .variable_store import VarRef, WriteError


def compute(step, values):
    """Runs one step against the value table ``values``, leaving the slots it read in place."""
    if isinstance(step, OpStep):
        if step.preloaded:
            return
        args = [values[i] for i in step.inputs]
        for i in step.deref:
            args[i] = read(args[i], step.op)
        try:
            if step.device.backend == "cupy":
                with gpu.on_device(step.device):
                    out = step.kernel(step.ctx, *args)
            else:
                out = step.kernel(step.ctx, *args)
        except Exception as e:  # noqa: BLE001 - any kernel failure becomes TF's error for that node
            raise kernel_error(step, e, args) from e
        outputs = step.outputs
        if len(outputs) == 1:
            values[outputs[0]] = out
        elif outputs:
            for slot, v in zip(outputs, out):
                values[slot] = v
    elif not step.alias:
        values[step.output] = transfer(read(values[step.input], step.op), step.src, step.device)


def compute_dead_aware(step, values):
    """``compute`` for plans with control flow: a step whose input is DEAD (the untaken side of a
    Switch), or whose control input did not run, does not run either and passes DEAD on; only
    Merge reads past DEAD (and a ControlTrigger past DEAD control inputs). Each op an op waits on
    leaves a token: True, or DEAD."""
    if isinstance(step, OpStep):
        opdef = step.opdef
        dead = (not opdef.live_controls and any(values[s] is DEAD for s in step.controls)) or (
            not opdef.reads_dead and any(values[i] is DEAD for i in step.inputs))
        if dead:
            for s in step.outputs:
                values[s] = DEAD
        elif step.preloaded and step.op.type == "Const":
            values[step.outputs[0]] = step.kernel(step.ctx)  # back after a DEAD in an earlier iteration
        else:
            compute(step, values)
        if step.token is not None:
            values[step.token] = DEAD if dead else True
    elif values[step.input] is DEAD:
        values[step.output] = DEAD
    else:
        compute(step, values)


def execute_traced(step, values, emit, compute=compute):
    """Runs one step and tells ``emit`` what happened (timed, with the values it read and wrote)."""
    start = time.perf_counter()
    emit(StepStarted(step, start))
    if isinstance(step, OpStep):
        inputs = tuple(values[i] for i in step.inputs)
        compute(step, values)
        end = time.perf_counter()
        event = StepFinished(step, start, end, inputs, tuple(values[i] for i in step.outputs))
    else:
        value = values[step.input]
        value = value if value is DEAD else read(value, step.op)
        compute(step, values)
        end = time.perf_counter()
        event = Transfer(step, start, end, value, 0 if value is DEAD else nbytes(value))
    for slot in step.frees:
        values[slot] = None
    emit(event)


def read(value, consumer):
    """The array behind a variable reference (or the value itself)."""
    if not isinstance(value, VarRef):
        return value
    try:
        return value.read()
    except errors.FailedPreconditionError as e:
        raise errors.FailedPreconditionError(
            consumer.node_def, consumer,
            f"{e.message}\n\t [[{{{{node {consumer.name}}}}}]]" + errors.defined_at(consumer)) from None


def kernel_error(step, e, args):
    """TF's error for a kernel that failed on ``step`` (an OpError naming the node and its line)."""
    op = step.op
    where = f"\n\t [[{{{{node {op.name}}}}}]]" + errors.defined_at(op)
    if isinstance(e, errors.OpError):
        if e.op is not None:
            return e
        return type(e)(op.node_def, op, e.message + where)
    if isinstance(e, WriteError):
        return errors.InvalidArgumentError(op.node_def, op, _write_error_text(op, e) + where)
    if isinstance(e, MemoryError):  # numpy could not allocate what allocation.py let through
        return errors.ResourceExhaustedError(
            op.node_def, op, f"OOM when allocating tensor for op '{op.name}' ({op.type}) on {step.device.name}: "
            f"{e}" + where)
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


def _write_error_text(op, e):
    """TF's texts for a write whose shape is not the variable's."""
    lhs, rhs = ",".join(map(str, e.declared)), ",".join(map(str, e.got))
    if op.type == "Assign":
        return f"Assign requires shapes of both tensors to match. lhs shape= [{lhs}] rhs shape= [{rhs}]"
    return (f"Cannot update variable with shape [{lhs}] using a Tensor with shape [{rhs}], "
            f"shapes must be equal.")
