"""Rebuilding a task's executable steps on its worker, from the plain description of ``split.py``.

An op step gets the same OpDef, and so the same kernel, the master would choose (``lookup(type)``
in the op table) and a ``KernelContext`` like the master's; the executor's code runs
it unchanged. The operation itself stays on the master: the worker has a ``RemoteOp`` with
what kernels and error messages read (name, type, attrs, the user's line that made it).
"""
import numpy as np

from ..devices.device import Device
from ..ops.table import lookup
from ..runtime.steps import KernelContext, OpStep, RandomGenerators, TransferStep


class RemoteOp:
    """What a worker knows of an operation: enough for its kernel and for TF's error texts."""

    __slots__ = ("name", "type", "attrs", "traceback", "node_def")

    def __init__(self, name, op_type, attrs, traceback):
        self.name, self.type, self.attrs, self.traceback = name, op_type, attrs, traceback
        self.node_def = None

    def __repr__(self):
        return f"<RemoteOp {self.name} ({self.type})>"


class RemoteTensor:
    """A tensor a copy moves: its name and its producer."""

    __slots__ = ("name", "op")

    def __init__(self, name, op):
        self.name, self.op = name, op


class SendStep:
    """Hand a value (or, for a control edge, only a token) to another task's worker."""

    __slots__ = ("index", "key", "input", "dst", "frees", "op")

    def __init__(self, index, key, input_slot, dst, frees, op):
        self.index, self.key, self.input, self.dst, self.frees, self.op = index, key, input_slot, dst, frees, op


class RecvStep:
    """Wait for a value (or a token) that another task's worker sends."""

    __slots__ = ("index", "key", "output", "src", "frees")

    def __init__(self, index, key, output_slot, src, frees):
        self.index, self.key, self.output, self.src, self.frees = index, key, output_slot, src, frees


class _Graph:
    """The one thing random kernels need from a graph: its seed."""

    def __init__(self, seed):
        self.seed = seed


class TaskPlan:
    """A task's part of a plan, executable here; it offers what ``runtime.run.Run`` reads from a
    Plan (``steps``, ``start_values``), so a task's runs keep the in-process transaction rules."""

    def __init__(self, part, rngs):
        self.task = part.task
        self.devices = {name: Device(job, 0, task, kind, index, np, simulated=simulated)
                        for name, job, task, kind, index, simulated in part.devices}
        self.num_slots = part.num_slots
        self.initial = [None] * part.num_slots
        for slot, value in part.initial.items():
            self.initial[slot] = value
        self.variable_slots = [(slot, name, shape, np, kind) for slot, name, shape, kind in part.variable_slots]
        self.feeds = part.feeds
        self.fetches = [(position, slot, RemoteOp(name, "", {}, tb)) for position, slot, name, tb in part.fetches]
        self.writes = part.writes
        self.peers = part.peers
        self.steps = [self._step(s, rngs) for s in part.steps]
        self.has_recv = any(isinstance(s, RecvStep) for s in self.steps)
        self.has_control_flow = part.has_control_flow  # a tf.cond: DEAD values and control tokens
        self.slow = False  # set when a run's kernels took long: later runs compute in a thread
        # an op that may wait for another run (a dequeue): the part runs in a thread, cancellable
        self.blocking = any(isinstance(s, OpStep) and s.opdef.blocking for s in self.steps)

    def _step(self, desc, rngs):
        kind = desc[0]
        if kind == "op":
            _, index, name, op_type, attrs, device, inputs, deref, outputs, frees, tb, controls, token = desc
            op, dev = RemoteOp(name, op_type, attrs, tb), self.devices[device]
            step = OpStep(op, dev, KernelContext(op, dev, rngs), inputs, deref, outputs,
                          lookup(op_type))
            step.controls, step.token = controls, token
        elif kind == "copy":
            _, index, tensor, producer, tb, src, dst, input_slot, output_slot, alias, frees = desc
            op = RemoteOp(producer, "", {}, tb)
            step = TransferStep(RemoteTensor(tensor, op), self.devices[src], self.devices[dst], input_slot,
                                output_slot, alias)
        elif kind == "send":
            _, index, key, input_slot, dst, frees, producer, tb = desc
            step = SendStep(index, key, input_slot, dst, frees, RemoteOp(producer, "", {}, tb))
        else:
            _, index, key, output_slot, src, frees = desc
            step = RecvStep(index, key, output_slot, src, frees)
        step.index, step.frees = index, tuple(frees)
        return step

    def start_values(self, run, feed_values):
        """The value table a run starts from: constants, variable references, fed values."""
        values = list(self.initial)
        for slot, name, shape, xp, kind in self.variable_slots:
            values[slot] = kind(run, name, shape, xp)  # a VarRef, or a resource variable's ResourceRef
        for (_, slot), value in zip(self.feeds, feed_values):
            values[slot] = value
        return values


def random_generators(seed):
    """A session's random generators on a worker: seeded as the master's would be."""
    return RandomGenerators(_Graph(seed))
