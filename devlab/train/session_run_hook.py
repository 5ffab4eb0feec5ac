"""``SessionRunHook`` and friends: code that runs around each step of a MonitoredSession.

A hook may ask for extra fetches before a step (``before_run`` returns ``SessionRunArgs``),
read them after it (``after_run``), and ask the loop to stop (``run_context.request_stop()``).
The hooks TF ships (``StopAtStepHook``, ``CheckpointSaverHook``...) are in
``basic_session_run_hooks.py``.
"""
from collections import namedtuple


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
