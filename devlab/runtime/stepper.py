"""Stepping through a run, one op or transfer at a time (after tfdbg's NodeStepper).

``sess.stepper(fetches, feed_dict)`` compiles the same plan ``run`` would and drives a ``Run``
of it by hand: ``next()`` executes one step and returns what it did (the op, its device, its
input and output values, which of them were fed, the transfer it made, why the op is on that
device). ``back()`` goes back one step by replaying a fresh run from the same starting point
(``Session.checkpoint``: the variables as they were when the stepper was made, the random
generators rewound, the same fed values), ``run_to(i)`` and ``finish()`` go forward, and
``run_to_next_copy()``, ``run_to_op(name)`` and ``run_to_breakpoint()`` (after ``break_on(device=...)``
or ``break_on(scope=...)``) run until such a step has run, as a debugger's "continue" does. The
stepper's variable writes are its own until ``finish()`` commits them; other runs meanwhile
neither see them nor lose theirs, and a stepper abandoned half-way leaves nothing behind.

The stepper only drives and watches: the run is made by ``_new_run`` and ended by ``_finish``,
the two methods the modelled stepper (``modelled.py``) replaces.
"""
import difflib
import weakref
from dataclasses import dataclass

from ..placer import explain as explain_mod
from . import fetches as fetch_mod
from .events import StepFinished, Transfer
from .steps import OpStep, describe


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
    fed: tuple = ()  # the names of the inputs whose value was fed

    def __str__(self):
        where = "".join(f" (iteration {i})" for i in self.iteration)
        if self.kind == "transfer":
            return f"[{self.index}] transfer {self.inputs[0][0]}: {self.source_device} -> {self.device}{where}"
        return f"[{self.index}] {self.name} ({self.op_type}) on {self.device}{where}"


class Stepper:
    def __init__(self, session, fetches, feed_dict=None):
        self.session = session
        self.fetches = fetches
        self.plan, self.feed_values = session.prepare(fetches, feed_dict)
        self._start = session.checkpoint()  # where every replay starts from
        self._begin()

    def _begin(self):
        self.steps = list(self.plan.flat_steps())  # each step once (a loop runs its steps again)
        self._fed = {slot: t.name for slot, t, _ in self.plan.feed_slots}
        self._run = None
        self.breakpoints = []  # ("device", full name) or ("scope", name scope)
        self.reset()

    # -- what a subclass replaces --------------------------------------------------------------------
    def _new_run(self):
        """A fresh run from the stepper's starting point, reporting its steps to the stepper."""
        return self.session.new_run(self.plan, self.feed_values, (self._record,), start=self._start)

    def _finish(self):
        """Ends the completed run; returns the fetched values (flat)."""
        results = self.session.complete(self._run)
        self._start = self.session.checkpoint()
        return results

    # -- where the stepper is ------------------------------------------------------------------------
    @property
    def position(self):
        """How many steps have run (the index of the next step)."""
        return self._run.position

    @property
    def done(self):
        return self._run.done

    @property
    def feeds(self):
        """[(tensor name, device name, value)]: the fed values, as they enter their devices."""
        return [(t.name, device.name, self._run.shown(v, t, device))
                for (_, t, device), v in zip(self.plan.feed_slots, self.feed_values)]

    def describe(self, i):
        """A one-line description of step ``i`` of the plan (run or not)."""
        return describe(self.steps[i])

    def describe_next(self):
        """A one-line description of the step that runs next ("" when the run is complete)."""
        step = self._run.peek()
        if step is None:
            return ""
        return describe(step) + "".join(f" (iteration {i})" for i in self._run.iteration)

    # -- moving --------------------------------------------------------------------------------------
    def reset(self):
        """Back to before the first step: a fresh run from the stepper's starting point."""
        if self._run is not None:
            self._run.abandon()
            self._finalizer.detach()
        self._run = self._new_run()
        self._finalizer = weakref.finalize(self, self._run.abandon)
        self.history = []

    def next(self):
        """Runs the next step and returns its StepView (None when the run is complete)."""
        if self._run.step() is None:
            return None
        return self.history[-1]

    def back(self):
        """Undoes the last step by replaying the run up to the step before it."""
        return self.run_to(max(self.position - 1, 0), from_start=True)

    def run_to(self, index, from_start=False):
        """Runs until ``index`` steps have run, or the run is complete (replaying from the start
        if going back). In a loop, each iteration's steps count again."""
        index = max(0, index)
        if from_start or index < self.position:
            self.reset()
        while self.position < index and self._run.step() is not None:
            pass
        return self.history[-1] if self.history else None

    def run_until(self, stop):
        """Runs steps until one for which ``stop(view)`` is true has run (it is then the current
        step, returned), or the run is complete (None)."""
        while self._run.step() is not None:
            if stop(self.history[-1]):
                return self.history[-1]
        return None

    def run_to_next_copy(self):
        """Runs until the next copy between devices has run (None if the run ends first)."""
        return self.run_until(lambda view: view.kind == "transfer")

    def run_to_op(self, name):
        """Runs until the op called ``name`` has run (it is then the current step); None if it had
        already run and the run ended first. A name the run has no op for is a KeyError naming the
        closest ones."""
        ops = [s.op.name for s in self.steps if isinstance(s, OpStep)]
        if name not in ops:
            near = difflib.get_close_matches(name, ops, n=3)
            raise KeyError(f"this run has no op {name!r}" + (f"; did you mean {', '.join(near)}?" if near else ""))
        return self.run_until(lambda view: view.kind == "op" and view.name == name)

    # -- breakpoints ---------------------------------------------------------------------------------
    def break_on(self, device=None, scope=None):
        """Adds a breakpoint: ``run_to_breakpoint`` stops after a step on ``device`` ("/gpu:1",
        "GPU:1" or a full name; a copy counts on the device it goes to), or of an op in name scope
        ``scope`` (a copy: of the op whose output it moves). Returns the breakpoint's text."""
        if (device is None) == (scope is None):
            raise ValueError("break_on takes one of device= or scope=")
        if device is not None:
            full = _device_named(device, {s.device.name for s in self.steps})
            if full is None:
                raise ValueError(f"this run has no step on device {device!r} (its devices: "
                                 f"{', '.join(sorted(_short(s.device.name) for s in self.steps))})")
            point = ("device", full)
        else:
            scope = scope.strip("/")
            if not any(_in_scope(_op_name(s), scope) for s in self.steps):
                raise ValueError(f"this run has no op in name scope {scope!r}")
            point = ("scope", scope)
        if point not in self.breakpoints:
            self.breakpoints.append(point)
        return _point_text(point)

    def clear_breakpoints(self):
        self.breakpoints.clear()

    def breakpoint_texts(self):
        """The breakpoints as a reader names them ("device GPU:1", "scope tower_0/")."""
        return [_point_text(p) for p in self.breakpoints]

    def hits(self, view):
        """The text of the first breakpoint ``view`` (a step run) stops at, else None."""
        for kind, value in self.breakpoints:
            if kind == "device" and view.device == value:
                return _point_text((kind, value))
            name = view.inputs[0][0].rsplit(":", 1)[0] if view.kind == "transfer" else view.name
            if kind == "scope" and _in_scope(name, value):
                return _point_text((kind, value))
        return None

    def run_to_breakpoint(self):
        """Runs until a step that hits a breakpoint has run (returned), or the run ends (None)."""
        if not self.breakpoints:
            raise ValueError("no breakpoints: add one with break_on(device=...) or break_on(scope=...)")
        return self.run_until(lambda view: self.hits(view) is not None)

    def run_to_end(self):
        """Runs every remaining step."""
        return self.run_to(float("inf"))

    def finish(self):
        """Runs the remaining steps, ends the run (a real run commits its variable writes) and
        returns the fetched values. A replay after this starts from the values it committed."""
        self.run_to_end()
        if self._run.closed:
            raise RuntimeError("This run was already finished; call reset() to run it again.")
        results = self._finish()
        self._finalizer.detach()
        return fetch_mod.pack(self.fetches, results)

    # -- what each step did ------------------------------------------------------------------------
    def _record(self, event):
        if not isinstance(event, (StepFinished, Transfer)):
            return
        run, step = self._run, event.step
        iteration = run.iteration
        if isinstance(event, Transfer):
            t = step.tensor
            value = run.shown(event.value, t, step.src)
            fed = (t.name,) if step.input in self._fed else ()
            view = StepView(step.index, "transfer", step.recv_name, "_Recv", step.device.name, [(t.name, value)],
                            [(t.name, value)], step.src.name, iteration=iteration, fed=fed)
        else:
            op = step.op
            fed = tuple(self._fed[s] for s in step.inputs if s in self._fed)
            view = StepView(step.index, "op", op.name, op.type, step.device.name,
                            [(t.name, run.shown(v, t, step.device)) for t, v in zip(op.inputs, event.inputs)],
                            [(t.name, run.shown(v, t, step.device)) for t, v in zip(op.outputs, event.outputs)],
                            reason=explain_mod.explain(op, self.session.placement), iteration=iteration, fed=fed)
        self.history.append(view)


def _op_name(step):
    return step.op.name if isinstance(step, OpStep) else step.tensor.op.name


def _in_scope(name, scope):
    return name == scope or name.startswith(scope + "/")


def _short(name):
    return name.rsplit("device:", 1)[-1]


def _device_named(text, names):
    """The full device name among ``names`` that ``text`` ("/gpu:1", "GPU:1", "/device:GPU:1", a
    full name) means, else None."""
    want = text.strip().lower().rsplit("/", 1)[-1].replace("device:", "")
    for name in sorted(names):
        if name.lower() == text.strip().lower() or _short(name).lower() == want:
            return name
    return None


def _point_text(point):
    kind, value = point
    return f"device {_short(value)}" if kind == "device" else f"scope {value}/"
