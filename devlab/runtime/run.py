"""``Run``: one execution of a plan, from its feeds to its fetches.

A run owns its value table and its own variable writes. ``Session.run`` makes one and runs it
to the end; the stepper makes one and advances it by hand. Writes stay the run's own until
``commit``, which happens only after every step and every fetch succeeded; ``abandon`` drops
them. A run that no one subscribes to, of a plan that ran before, executes the plan's compiled
program (one straight-line function, elementwise chains fused); otherwise it interprets the
steps one at a time and tells its subscribers about each.
"""
import numpy as np

from ..devices.transfer import transfer
from . import program as program_mod
from .executor import execute, execute_traced, read
from .variable_store import VarRef


class Run:
    def __init__(self, plan, store, feed_values, host, subscribers=(), base=None):
        self.plan, self.store, self.host = plan, store, host
        current = store.open_run()
        self.base = current if base is None else base
        self.writes = {}
        self.made = set()  # ids of the buffers this run's in-place writes got from the store
        self.values = plan.start_values(self, feed_values)
        self.position = 0  # steps run so far (interpreted runs)
        self.subscribers = list(subscribers)
        self.closed = False

    @property
    def done(self):
        return self.position >= len(self.plan.steps)

    def emit(self, event):
        for fn in self.subscribers:
            fn(event)

    def step(self):
        """Runs the next step (telling the subscribers); returns it, or None when done."""
        if self.done:
            return None
        step = self.plan.steps[self.position]
        if self.subscribers:
            execute_traced(step, self.values, self.emit)
        else:
            execute(step, self.values)
        self.position += 1
        return step

    def run_to_end(self):
        """Runs every remaining step: the compiled program when it can, else step by step."""
        plan = self.plan
        if self.position == 0 and not self.subscribers and plan.runs > 0 and plan.program is not False:
            if plan.program is None:
                plan.program = program_mod.build(plan) or False
        if self.position == 0 and not self.subscribers and plan.program and plan.program.run(self.values):
            self.position = len(plan.steps)
        else:
            while not self.done:
                self.step()
        plan.runs += 1

    def fetch(self):
        """The fetched values on the host, never aliasing a variable, a constant or a feed."""
        plan = self.plan
        out = []
        for leaf, slot, device, copy in zip(plan.fetches, plan.fetch_slots, plan.fetch_devices, plan.fetch_copy):
            if slot is None:
                out.append(None)
                continue
            host = transfer(read(self.values[slot], leaf.op), device, self.host)
            if copy or not isinstance(host, np.ndarray) or not host.flags.owndata:
                host = np.array(host)
            out.append(host[()] if host.ndim == 0 else host)
        return out

    def commit(self):
        """Makes this run's variable writes the session's values; closes the run."""
        if not self.closed:
            self.closed = True
            self.store.close_run(self.writes, self.made)
        self.values = None

    def abandon(self):
        """Drops this run's writes; closes the run."""
        if not self.closed:
            self.closed = True
            self.store.close_run(None)
        self.values = None

    def variable_value(self, name):
        """The value of a variable as this run sees it (its own write, else the committed one)."""
        return VarRef(self, name, None, np).read()
