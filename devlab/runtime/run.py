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
from ..framework import errors
from ..ops.kernels import DEAD
from . import program as program_mod
from .events import Value
from .executor import compute, compute_dead_aware, execute, execute_traced, read
from .steps import LoopStep
from .variable_store import VarRef


class Run:
    def __init__(self, plan, store, feed_values, host, subscribers=(), base=None):
        self.plan, self.store, self.host = plan, store, host
        current = store.open_run()
        self.base = current if base is None else base
        self.writes = {}
        self.made = set()  # ids of the buffers this run's in-place writes got from the store
        self.values = plan.start_values(self, feed_values)
        self.position = 0  # steps run so far (a loop's steps count once per iteration)
        self.subscribers = list(subscribers)
        self.closed = False
        # Where the run is: a stack of [steps, index, loop, iteration], one entry per open loop.
        self._cursor = [[plan.steps, 0, None, 0]]
        self._compute = compute_dead_aware if plan.has_control_flow else compute

    @property
    def done(self):
        return self.peek() is None

    @property
    def iteration(self):
        """The iteration of each loop the next step is in, outermost first (() outside loops)."""
        self.peek()
        return tuple(frame[3] for frame in self._cursor[1:])

    def emit(self, event):
        for fn in self.subscribers:
            fn(event)

    def peek(self):
        """The next step to run, or None when the run is complete. Opens a loop when the cursor
        reaches it, and at the end of an iteration either starts the next one (the loop
        condition held: the loop variables' Enters now read DEAD, so each Merge takes its
        NextIteration's value) or leaves the loop."""
        cursor, values = self._cursor, self.values
        while True:
            frame = cursor[-1]
            steps, index, loop, iteration = frame
            if index < len(steps):
                item = steps[index]
                if isinstance(item, LoopStep):
                    for s in item.next_slots:
                        values[s] = DEAD
                    cursor.append([item.steps, 0, item, 0])
                    continue
                if iteration and index in loop.entry:
                    frame[1] += 1
                    continue
                return item
            if loop is None:
                return None
            condition = values[loop.cond_slot]
            if condition is not DEAD and bool(condition):
                for s in loop.variable_enters:
                    values[s] = DEAD
                frame[1], frame[3] = 0, iteration + 1
                continue
            cursor.pop()
            cursor[-1][1] += 1

    def step(self):
        """Runs the next step (telling the subscribers); returns it, or None when done."""
        step = self.peek()
        if step is None:
            return None
        if self.subscribers:
            execute_traced(step, self.values, self.emit, self._compute)
        else:
            self._compute(step, self.values)
            for slot in step.frees:
                self.values[slot] = None
        self._cursor[-1][1] += 1
        self.position += 1
        return step

    def run_to_end(self):
        """Runs every remaining step: the compiled program when it can, else step by step."""
        plan = self.plan
        fresh = self.position == 0 and not self.subscribers
        if fresh and plan.runs > 0 and plan.program is None:
            plan.program = program_mod.build(plan) or False
        if fresh and plan.program and plan.program.run(self.values):
            self.position = len(plan.steps)
            self._cursor[-1][1] = len(plan.steps)
        elif fresh and not plan.has_control_flow:
            values = self.values
            for step in plan.steps:  # the interpreter's tight loop
                execute(step, values)
            self.position = self._cursor[-1][1] = len(plan.steps)
        else:
            while self.step() is not None:
                pass
        plan.runs += 1

    def fetch(self):
        """The fetched values on the host, never aliasing a variable, a constant or a feed."""
        plan = self.plan
        out = []
        for leaf, slot, device, copy in zip(plan.fetches, plan.fetch_slots, plan.fetch_devices, plan.fetch_copy):
            if slot is None:
                out.append(None)
                continue
            value = self.values[slot]
            if value is DEAD:
                raise errors.InvalidArgumentError(
                    leaf.op.node_def, leaf.op, f"Retval[{len(out)}] does not have value (it was on the untaken "
                    f"side of a tf.cond or tf.while_loop)")
            host = transfer(read(value, leaf.op), device, self.host)
            if copy or not isinstance(host, np.ndarray) or not host.flags.owndata:
                host = np.array(host)
            out.append(host[()] if host.ndim == 0 else host)
            if self.subscribers:
                self.emit(Value(leaf, out[-1]))
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
