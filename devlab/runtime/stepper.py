"""Stepping through a run, one op or transfer at a time (after tfdbg's NodeStepper).

``sess.stepper(fetches)`` compiles the same plan ``run`` would and makes a ``Run`` of it that
you advance by hand: ``next()`` executes one step and returns what it did (the op, its device,
its input and output values, the transfer it made, why the op is on that device). ``back()``
goes back one step by replaying a fresh run from the same starting point (the variables as
they were when the stepper was made, the random generators rewound), ``run_to(i)`` and
``finish()`` go forward. The stepper's variable writes are its own until ``finish()`` commits
them; other runs meanwhile neither see them nor lose theirs, and a stepper abandoned half-way
leaves nothing behind.
"""
import weakref
from dataclasses import dataclass

import numpy as np

from ..devices.transfer import transfer
from ..ops.kernels import DEAD
from ..placer import explain as explain_mod
from . import fetches as fetch_mod
from .events import StepFinished, Transfer
from .run import Run
from .steps import OpStep
from .variable_store import VarRef


@dataclass
class StepView:
    """What one executed step did, as values a learner can read."""
    index: int
    kind: str  # "op" or "transfer"
    name: str
    op_type: str
    device: str
    inputs: list  # [(tensor name, value)]
    outputs: list  # [(tensor name, value)]
    source_device: str = ""  # transfers: where the tensor came from
    reason: object = None  # ops: the Explanation of their placement
    iteration: tuple = ()  # inside while loops: the iteration of each loop, outermost first

    def __str__(self):
        where = "".join(f" (iteration {i})" for i in self.iteration)
        if self.kind == "transfer":
            return f"[{self.index}] transfer {self.inputs[0][0]}: {self.source_device} -> {self.device}{where}"
        return f"[{self.index}] {self.name} ({self.op_type}) on {self.device}{where}"


class Stepper:
    def __init__(self, session, fetches, feed_dict=None):
        self.session = session
        self.fetches = fetches
        self.plan, self.feed_values = session._prepare(fetches, feed_dict)
        self.steps = list(self.plan.flat_steps())  # each step once (a loop runs its steps again)
        self._base = session.variables.values  # where every replay starts from
        self._rng_state = session._rngs.state()
        self._run = None
        self.reset()

    @property
    def position(self):
        """How many steps have run (the index of the next step)."""
        return self._run.position

    @property
    def done(self):
        return self._run.done

    def describe(self, i):
        """A one-line description of step ``i`` of the plan (run or not)."""
        return _describe(self.steps[i])

    def describe_next(self):
        """A one-line description of the step that runs next ("" when the run is complete)."""
        step = self._run.peek()
        if step is None:
            return ""
        where = "".join(f" (iteration {i})" for i in self._run.iteration)
        return _describe(step) + where

    def reset(self):
        """Back to before the first step: a fresh run from the stepper's starting point."""
        if self._run is not None:
            self._run.abandon()
            self._finalizer.detach()
        self.session._rngs.restore(self._rng_state)
        self._run = Run(self.plan, self.session.variables, self.feed_values, self.session._host,
                        (self._record,), base=self._base)
        self._finalizer = weakref.finalize(self, self._run.abandon)
        self.history = []

    def next(self):
        """Runs the next step and returns its StepView (None when the run is complete)."""
        if self.done:
            return None
        self._run.step()
        return self.history[-1]

    def back(self):
        """Undoes the last step by replaying the run up to the step before it."""
        self.run_to(max(self.position - 1, 0), from_start=True)
        return self.history[-1] if self.history else None

    def run_to(self, index, from_start=False):
        """Runs until ``index`` steps have run, or the run is complete (replaying from the start
        if going back). In a loop, each iteration's steps count again."""
        index = max(0, index)
        if from_start or index < self.position:
            self.reset()
        while self.position < index and not self.done:
            self.next()
        return self.history[-1] if self.history else None

    def run_to_end(self):
        """Runs every remaining step."""
        while not self.done:
            self.next()
        return self.history[-1] if self.history else None

    def finish(self):
        """Runs the remaining steps, commits the variable writes and returns the fetched values.
        A replay after this starts from the values it committed."""
        self.run_to_end()
        if self._run.closed:
            raise RuntimeError("This run was already finished; call reset() to run it again.")
        results = self._run.fetch()
        with self.session.variables.locked(self.plan.written_variables):
            self._run.commit()
        self._finalizer.detach()
        self._base = self.session.variables.values
        self._rng_state = self.session._rngs.state()
        self.session._ran(self.plan, None)
        return fetch_mod.pack(self.fetches, results)

    # -- what each step did ------------------------------------------------------------------------
    def _record(self, event):
        if not isinstance(event, (StepFinished, Transfer)):
            return
        host = self.session._host
        step = event.step

        def show(value, device):
            if isinstance(value, VarRef):
                value = value.read() if value.is_initialized() else None
            if value is None or value is DEAD:
                return value
            return np.array(transfer(value, device, host))

        iteration = self._run.iteration
        if isinstance(event, Transfer):
            t = step.tensor
            view = StepView(step.index, "transfer", step.recv_name, "_Recv", step.device.name,
                            [(t.name, show(event.value, step.src))], [(t.name, show(event.value, step.src))],
                            step.src.name, iteration=iteration)
        elif isinstance(event, StepFinished):
            op = step.op
            view = StepView(step.index, "op", op.name, op.type, step.device.name,
                            [(t.name, show(v, step.device)) for t, v in zip(op.inputs, event.inputs)],
                            [(t.name, show(v, step.device)) for t, v in zip(op.outputs, event.outputs)],
                            reason=explain_mod.explain(op, self.session.placement), iteration=iteration)
        else:
            return
        self.history.append(view)


def _describe(step):
    if isinstance(step, OpStep):
        return f"{step.op.name} ({step.op.type}) on {step.device.short_name}"
    return f"transfer {step.tensor.name}: {step.src.short_name} -> {step.device.short_name}"
