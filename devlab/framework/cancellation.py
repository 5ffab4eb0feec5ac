"""Cancelling a run that waits: TF's ``CancellationManager``, for the kernels that block.

A kernel that may wait (a queue's dequeue, an accumulator's take_grad) waits on its resource's
condition variable through ``wait``. The runtime gives each run a ``CancellationManager`` and
makes it *current* in the thread that runs the run's kernels (``active``). Closing the session,
or the run's ``timeout_in_ms`` passing, cancels it: the waiting kernel wakes up and raises its
``CancelledError``, and the session reports the run's error (``manager.error``) in its place
when there is one. A wait outside any run ends only when its condition holds.
"""
import contextlib
import itertools
import threading

from . import errors


class CancellationManager:
    """The callbacks to call when one run is cancelled (each wakes a kernel that waits)."""

    def __init__(self):
        self._lock = threading.Lock()
        self._callbacks = {}
        self._tokens = itertools.count()
        self.cancelled = False
        self.error = None  # what the run raises instead of the waiting kernel's error (None: the kernel's)

    def register(self, callback):
        """Calls ``callback()`` on cancellation; returns a token for ``deregister`` (None when the
        run is already cancelled: the caller then sees ``cancelled`` and stops at once)."""
        with self._lock:
            if self.cancelled:
                return None
            token = next(self._tokens)
            self._callbacks[token] = callback
            return token

    def deregister(self, token):
        with self._lock:
            self._callbacks.pop(token, None)

    def cancel(self, error=None):
        """Cancels the run (once); ``error`` is what the run reports, if not the kernel's own."""
        with self._lock:
            if self.cancelled:
                return
            self.cancelled, self.error = True, error
            callbacks = list(self._callbacks.values())
            self._callbacks.clear()
        for callback in callbacks:  # outside the lock: a callback takes its resource's lock
            callback()


_local = threading.local()


def current():
    """The CancellationManager of the run whose kernels this thread runs (None outside a run)."""
    return getattr(_local, "manager", None)


@contextlib.contextmanager
def active(manager):
    """Makes ``manager`` current in this thread for the block."""
    previous = current()
    _local.manager = manager
    try:
        yield manager
    finally:
        _local.manager = previous


def check():
    """Raises CancelledError if the current run was cancelled: a while loop calls it before each
    further iteration, so a loop that would run forever ends when the run's time limit passes."""
    manager = current()
    if manager is not None and manager.cancelled:
        raise errors.CancelledError(None, None, "Run cancelled")


def wait(condition, ready, cancelled):
    """Waits on ``condition`` (a ``threading.Condition`` the caller holds) until ``ready()``; if the
    current run is cancelled first, raises ``cancelled()`` (the kernel's CancelledError)."""
    manager = current()
    if ready():
        return
    token = None
    if manager is not None:
        token = manager.register(lambda: _wake(condition))
    try:
        while not ready():
            if manager is not None and manager.cancelled:
                raise cancelled()
            condition.wait()
    finally:
        if token is not None:
            manager.deregister(token)


def _wake(condition):
    with condition:
        condition.notify_all()
