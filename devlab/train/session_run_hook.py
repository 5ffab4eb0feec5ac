"""``SessionRunHook`` and friends: code that runs around each step of a MonitoredSession.

A hook may ask for extra fetches before a step (``before_run`` returns ``SessionRunArgs``),
read them after it (``after_run``), and ask the loop to stop (``run_context.request_stop()``).
``StopAtStepHook`` stops at a global step; ``CheckpointSaverHook`` saves every n steps.
"""
import os
from collections import namedtuple

from .global_step import get_global_step
from .saver import Saver


class SessionRunArgs(namedtuple("SessionRunArgs", ["fetches", "feed_dict", "options"])):
    """What a hook adds to a step: fetches (any nested structure), feeds, RunOptions."""

    def __new__(cls, fetches, feed_dict=None, options=None):
        return super().__new__(cls, fetches, feed_dict, options)


class SessionRunValues(namedtuple("SessionRunValues", ["results", "options", "run_metadata"])):
    """The results of a hook's fetches after a step."""


class SessionRunContext:
    """The step being run: its original arguments, the session, and a stop flag."""

    def __init__(self, original_args, session):
        self.original_args, self.session = original_args, session
        self._stop_requested = False

    def request_stop(self):
        self._stop_requested = True

    @property
    def stop_requested(self):
        return self._stop_requested


class SessionRunHook:
    """Does nothing; subclasses override what they need."""

    def begin(self):
        pass

    def after_create_session(self, session, coord):
        pass

    def before_run(self, run_context):
        return None

    def after_run(self, run_context, run_values):
        pass

    def end(self, session):
        pass


class StopAtStepHook(SessionRunHook):
    """Requests a stop once the global step reaches ``last_step`` (or ``num_steps`` more steps)."""

    def __init__(self, num_steps=None, last_step=None):
        if (num_steps is None) == (last_step is None):
            raise ValueError("One of num_steps or last_step must be specified.")
        if num_steps is not None and num_steps < 0:
            raise ValueError("Undefined behavior for num_steps < 0.")
        self._num_steps, self._last_step = num_steps, last_step

    def begin(self):
        self._global_step = get_global_step()
        if self._global_step is None:
            raise RuntimeError("Global step should be created to use StopAtStepHook.")

    def after_create_session(self, session, coord):
        if self._last_step is None:
            self._last_step = int(session.run(self._global_step)) + self._num_steps

    def before_run(self, run_context):
        return SessionRunArgs(self._global_step)

    def after_run(self, run_context, run_values):
        step = int(run_values.results) + 1  # the step just run has incremented it
        if step >= self._last_step:
            # the increment may not be visible yet where other workers update it: read it back
            if int(run_context.session.run(self._global_step)) >= self._last_step:
                run_context.request_stop()


class CheckpointSaverHook(SessionRunHook):
    """Saves a checkpoint every ``save_steps`` steps and at the end (chief only)."""

    def __init__(self, checkpoint_dir, save_secs=None, save_steps=None, saver=None,
                 checkpoint_basename="model.ckpt", **unused):
        self._dir, self._steps, self._saver = checkpoint_dir, save_steps or 100, saver
        self._path = os.path.join(checkpoint_dir, checkpoint_basename)
        self._count = 0

    def begin(self):
        self._global_step = get_global_step()
        if self._saver is None:
            self._saver = Saver()

    def after_create_session(self, session, coord):
        self._save(session)

    def after_run(self, run_context, run_values):
        self._count += 1
        if self._count % self._steps == 0:
            self._save(run_context.session)

    def end(self, session):
        self._save(session)

    def _save(self, session):
        step = int(session.run(self._global_step)) if self._global_step is not None else self._count
        self._saver.save(session, self._path, global_step=step)
