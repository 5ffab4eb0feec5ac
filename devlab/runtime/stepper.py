"""Stepping through a run, one op or transfer at a time (after tfdbg's NodeStepper).

``sess.stepper(fetches)`` compiles the same plan ``run`` would, then ``next()`` executes one
step and returns what it did: the op, its device, its input and output values, the transfer
it made and why the op is on that device. ``back()`` goes back one step by re-running from
the start (runs are deterministic), ``run_to(i)`` and ``finish()`` go forward. Variable
writes become visible to the session only when ``finish()`` completes the run.
"""
from dataclasses import dataclass

import numpy as np

from ..devices.transfer import transfer
from ..placer import explain as explain_mod
from . import fetches as fetch_mod
from .executor import run_step
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

    def __str__(self):
        if self.kind == "transfer":
            return f"[{self.index}] transfer {self.inputs[0][0]}: {self.source_device} -> {self.device}"
        return f"[{self.index}] {self.name} ({self.op_type}) on {self.device}"


class Stepper:
    def __init__(self, session, fetches, feed_dict=None):
        self.session = session
        self.fetches = fetches
        self.plan, self.leaves, self.feed_values = session._prepare(fetches, feed_dict)
        self.steps = self.plan.steps
        self._snapshot = session.variables.snapshot()
        self.reset()

    @property
    def position(self):
        """How many steps have run (the index of the next step)."""
        return self._position

    @property
    def done(self):
        return self._position >= len(self.steps)

    def describe(self, i):
        """A one-line description of step ``i`` (run or not)."""
        step = self.steps[i]
        if step.kind == "transfer":
            return f"transfer {step.tensor.name}: {step.src_device.short_name} -> {step.device.short_name}"
        return f"{step.op.name} ({step.op.type}) on {step.device.short_name}"

    def reset(self):
        """Back to before the first step; variables as they were when the stepper was made."""
        self.session.variables.restore(self._snapshot)
        self._values = self.session._start_values(self.plan, self.feed_values)
        self._position = 0
        self.history = []

    def next(self):
        """Runs the next step and returns its StepView (None when the run is complete)."""
        if self.done:
            return None
        step = self.steps[self._position]
        try:
            run_step(step, self._values)
        except BaseException:
            self.session.variables.discard()
            raise
        view = self._view(self._position, step)
        self.history.append(view)
        self._position += 1
        return view

    def back(self):
        """Undoes the last step by replaying the run up to the step before it."""
        target = max(self._position - 1, 0)
        self.run_to(target, from_start=True)
        return self.history[-1] if self.history else None

    def run_to(self, index, from_start=False):
        """Runs until ``index`` steps have run (replaying from the start if going back)."""
        index = max(0, min(index, len(self.steps)))
        if from_start or index < self._position:
            self.reset()
        while self._position < index:
            self.next()
        return self.history[-1] if self.history else None

    def finish(self):
        """Runs the remaining steps, commits variable writes and returns the fetched values."""
        self.run_to(len(self.steps))
        self.session.variables.commit()
        self._snapshot = self.session.variables.snapshot()
        results = [self.session._fetch_value(self._values, slot, leaf)
                   for slot, leaf in zip(self.plan.fetch_slots, self.leaves)]
        return fetch_mod.pack(self.fetches, results)

    def _view(self, index, step):
        host = self.session._host

        def show(slot, device):
            v = self._values[slot]
            if isinstance(v, VarRef):
                v = v.read() if v.is_initialized() else None
            return None if v is None else np.asarray(transfer(v, device, host))

        if step.kind == "transfer":
            t = step.tensor
            return StepView(index, "transfer", step.recv_name, "_Recv", step.device.name,
                            [(t.name, show(step.inputs[0], step.src_device))],
                            [(t.name, show(step.outputs[0], step.device))], step.src_device.name)
        op = step.op
        ins = [(t.name, show(s, step.device)) for t, s in zip(op.inputs, step.inputs)]
        outs = [(t.name, show(s, step.device)) for t, s in zip(op.outputs, step.outputs)]
        reason = explain_mod.explain(op, self.session.placement)
        return StepView(index, "op", op.name, op.type, step.device.name, ins, outs, reason=reason)
