"""``TaskRun``: one task's part of a run, on its worker: the runtime's ``Run`` with two more kinds
of step.

A ``SendStep`` puts a value (read from its variable, if it is a reference) in the run's outbox
for the task that needs it; a ``RecvStep`` writes the value that arrived from another task
(``arrived``, which the task runtime sets once the message came: waiting is the driver's job,
since it awaits on the worker's event loop). Everything else, the kernels, the control-flow
rules, the run's own writes until commit, is the in-process ``Run``'s.
"""
import time

from ..devices.transfer import nbytes
from ..runtime.events import StepFinished, Transfer
from ..runtime.executor import read
from ..runtime.run import Run
from ..runtime.variable_store import VarRef
from .task_steps import RecvStep, SendStep


class TaskRun(Run):
    def __init__(self, plan, store, feed_values, outbox, trace=False):
        self.outbox = outbox
        self.arrived = None  # (value, sent at, arrived at) of the recv that runs next
        self.transfers = []  # (step index, sent at, arrived at, nbytes) per tensor received
        self.records = [] if trace else None  # the steps' events as plain data for the master
        subscribers = (_recorder(self.records),) if trace else ()
        super().__init__(plan, store, feed_values, None, subscribers)

    def run_step(self, step):
        kind = type(step)
        if kind is SendStep:
            self.outbox.put(step.dst, step.key, None if step.input is None else read(self.values[step.input], step.op))
        elif kind is RecvStep:
            value, sent_at, arrived = self.arrived
            if step.output is not None:
                self.values[step.output] = value
                if not isinstance(step.key, str):  # a tensor, not a control edge's token
                    self.transfers.append((step.index, sent_at, arrived, nbytes(value)))
        else:
            super().run_step(step)

    def fetch(self):
        """[(position among the run's fetches, value)] of the fetches this task holds."""
        return [(position, read(self.values[slot], op)) for position, slot, op in self.plan.fetches]


def is_recv(step):
    return type(step) is RecvStep


def _recorder(records):
    offset = time.time() - time.perf_counter()  # step times go back as wall-clock seconds

    def emit(event):
        record = _record(event, offset)
        if record is not None:
            records.append(record)
    return emit


def _record(event, offset):
    """A step event as plain data the master turns back into an event for its own steps."""
    if isinstance(event, StepFinished):
        return ("op", event.step.index, event.start + offset, event.end + offset,
                tuple(_info(v) for v in event.inputs), tuple(_info(v) for v in event.outputs))
    if isinstance(event, Transfer):
        return ("copy", event.step.index, event.start + offset, event.end + offset, event.nbytes)
    return None


def _info(value):
    if value is None or isinstance(value, VarRef):
        return None
    return (tuple(getattr(value, "shape", ())), int(getattr(value, "nbytes", 0) or 0))
