"""``Run``: one execution of a plan, from its feeds to its fetches; the one interpreter of a Plan.

A run owns its value table and its own variable writes. ``Session.run`` makes one and runs it
to the end; the stepper makes one and advances it by hand. Writes stay the run's own until
``commit``, which happens only after every step and every fetch succeeded; ``abandon`` drops
them. A fresh run no one subscribes to may be given the plan's compiled program (one
straight-line function, elementwise chains fused, ``program.py``); otherwise it interprets the
steps one at a time and tells its subscribers about each.

Like torch.fx's ``Interpreter``, a run is driven through a few methods a subclass may override
(the modelled run, ``abstract_run.py``; a cluster task's part, ``cluster/task_run.py``):

* ``start_values(feed_values)``: the value table the run starts from;
* ``run_step(step)``: execute one step against ``self.values`` (the kernels, here);
* ``loop_continues(loop, iteration)``: whether a while loop runs another iteration;
* ``shown(value, tensor, device)``: a value as a learner sees it (the stepper's views);
* ``fetch()``: the fetched values.

Drivers call ``peek()``, ``step()``, ``run_until(stop)`` and ``run_to_end()``; subscribers get
the step events (``events.py``).
"""
import numpy as np

from ..devices.transfer import transfer
from ..framework import cancellation, errors
from ..ops.kernels import DEAD
from .events import Value
from .executor import compute, compute_dead_aware, execute_traced, read
from .steps import LoopStep, OpStep, TransferStep
from .variable_store import VarRef


class Run:
    def __init__(self, plan, store, feed_values, host, subscribers=(), base=None, program=None):
        self.plan, self.store, self.host = plan, store, host
        current = store.open_run() if store is not None else None
        self.base = current if base is None else base
        self.writes = {}
        self.made = set()  # ids of the buffers this run's in-place writes got from the store
        self.undo = []  # the old rows of the variables' arrays this run wrote in place (its undo log)
        self.in_place = not subscribers  # whether sparse writes may go into a variable's array itself
        self.feed_values = feed_values
        self.values = self.start_values(feed_values)
        self.position = 0  # steps run so far (a loop's steps count once per iteration)
        self.subscribers = list(subscribers)
        self.program = program  # the plan's compiled program, or None: interpret
        self.closed = False
        # Where the run is: a stack of [steps, index, loop, iteration], one entry per open loop.
        self._cursor = [[plan.steps, 0, None, 0]]
        self._compute = compute_dead_aware if plan.has_control_flow else compute

    # -- hooks ---------------------------------------------------------------------------------------
    def start_values(self, feed_values):
        """The value table the run starts from (constants, variable references, fed values)."""
        return self.plan.start_values(self, feed_values)

    def run_step(self, step):
        """Executes one op or transfer step against ``self.values``."""
        self._compute(step, self.values)

    def loop_continues(self, loop, iteration):
        """Whether ``loop`` runs another iteration after ``iteration``: its condition held."""
        if loop.cond_slot is None:  # a frame of Enters and Exits only (no LoopCond) runs once
            return False
        condition = self.values[loop.cond_slot]
        if condition is DEAD or not bool(condition):
            return False
        cancellation.check()  # a run past its time limit stops here, between iterations
        return True

    def shown(self, value, tensor, device):
        """``value`` (of ``tensor``, on ``device``) as a host array a learner can read (None if the
        variable behind it is not initialized)."""
        if isinstance(value, VarRef):
            value = value.read() if value.is_initialized() else None
        if value is None or value is DEAD:
            return value
        return np.array(transfer(value, device, self.host))

    # -- where the run is ----------------------------------------------------------------------------
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
        continues: the loop variables' Enters now read DEAD, so each Merge takes its
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
            if self.loop_continues(loop, iteration):
                for s in loop.variable_enters:
                    values[s] = DEAD
                frame[1], frame[3] = 0, iteration + 1
                continue
            cursor.pop()
            cursor[-1][1] += 1

    # -- running -------------------------------------------------------------------------------------
    def step(self):
        """Runs the next step (telling the subscribers); returns it, or None when done."""
        step = self.peek()
        if step is not None:
            with np.errstate(all="ignore"):  # TF makes inf and nan without a warning; so does devlab
                self._advance(step)
        return step

    def run_until(self, stop):
        """Runs steps until the next one satisfies ``stop(step)`` or the run is complete; returns
        that next step (None at the end)."""
        with np.errstate(all="ignore"):
            while True:
                step = self.peek()
                if step is None or stop(step):
                    return step
                self._advance(step)

    def run_to_end(self):
        """Runs every remaining step: the compiled program when the run has one, else step by step."""
        with np.errstate(all="ignore"):  # TF makes inf and nan without a warning; so does devlab
            if self.program is not None and self.program.lanes is not None:
                self.in_place = False  # a lane could read the variable while another writes it
            if self.position == 0 and not self.subscribers and self.program and self.program.run(self.values):
                self.position = self._cursor[-1][1] = len(self.plan.steps)
            elif self.position == 0 and not self.subscribers and not self.plan.has_control_flow:
                values, run_step = self.values, self.run_step
                for step in self.plan.steps:  # the interpreter's tight loop: no loops, no events
                    run_step(step)
                    for slot in step.frees:
                        values[slot] = None
                self.position = self._cursor[-1][1] = len(self.plan.steps)
            else:
                while (step := self.peek()) is not None:
                    self._advance(step)

    def _advance(self, step):
        if self.subscribers and isinstance(step, (OpStep, TransferStep)):
            execute_traced(step, self.values, self.emit, lambda s, _: self.run_step(s))
        else:
            self.run_step(step)
            for slot in step.frees:
                self.values[slot] = None
        self._cursor[-1][1] += 1
        self.position += 1

    # -- ending --------------------------------------------------------------------------------------
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
            if self.store is not None:
                self.store.close_run(self.writes, self.made, self.undo)
        self.values = None

    def abandon(self):
        """Drops this run's writes; closes the run."""
        if not self.closed:
            self.closed = True
            if self.store is not None:
                self.store.close_run(None, undo=self.undo)
        self.values = None

    def variable_value(self, name):
        """The value of a variable as this run sees it (its own write, else the committed one)."""
        return VarRef(self, name, None, np).read()
