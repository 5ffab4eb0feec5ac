"""A run's time limit and its cancellation by ``Session.close``, for runs in this process.

A run whose plan has an op that may wait for another run (a queue's dequeue or enqueue, an
accumulator's take_grad, a reader's read: ``OpDef.blocking``) gets a ``CancellationManager``
(``framework/cancellation.py``), current in the thread that runs its kernels, so the waiting
kernel wakes when the run is cancelled. The run is cancelled when its time limit passes
(``RunOptions.timeout_in_ms``, else the session's ``ConfigProto.operation_timeout_in_ms``; TF's
DeadlineExceededError "Timed out waiting for notification") or when the session is closed from
another thread (the waiting kernel's own CancelledError). A run with a while loop gets one too:
the loop checks it between iterations, so a loop that never ends stops at the limit. A cancelled
run commits nothing. A run of ops that never wait or loop finishes on its own and needs none of this; a run on Dask workers (a
cluster backend) gets its manager on the task that waits (``cluster/task_runtime.py``), which
keeps the limit ``timeout_ms`` chooses here; closing the session tells the tasks.
"""
import contextlib
import threading
import weakref

from ..framework import cancellation, errors
from ..ops.table import lookup
from .steps import OpStep

_open = weakref.WeakKeyDictionary()  # session -> the managers of its runs in progress
_blocking = weakref.WeakKeyDictionary()  # plan -> whether one of its ops may wait
_lock = threading.Lock()
_NOTHING = contextlib.nullcontext()


def timeout_ms(session, options):
    """The run's limit in milliseconds (0: none), as TF chooses it."""
    if options is not None and getattr(options, "timeout_in_ms", 0) > 0:
        return options.timeout_in_ms
    return getattr(session.config, "operation_timeout_in_ms", 0) or 0


def may_wait(plan):
    """Whether a run of ``plan`` may wait for another run, or loop until its time limit."""
    found = _blocking.get(plan)
    if found is None:
        found = _blocking[plan] = any(isinstance(s, OpStep) and (lookup(s.op.type).blocking or s.op.type == "LoopCond")
                                      for s in plan.flat_steps())
    return found


def limited(session, plan, options):
    """A context for one run of ``plan``: a cancellable run (entering gives its manager) when the
    plan may wait, else nothing (entering gives None)."""
    if session.backend is not None or not may_wait(plan):
        return _NOTHING
    return _Limited(session, timeout_ms(session, options))


class _Limited:
    __slots__ = ("session", "limit", "manager", "timer", "active")

    def __init__(self, session, limit):
        self.session, self.limit = session, limit

    def __enter__(self):
        manager = self.manager = cancellation.CancellationManager()
        self.timer = None
        if self.limit > 0:
            self.timer = threading.Timer(self.limit / 1000.0, manager.cancel, args=(errors.DeadlineExceededError(
                None, None, "Timed out waiting for notification"),))
            self.timer.daemon = True
            self.timer.start()
        with _lock:
            _open.setdefault(self.session, set()).add(manager)
        self.active = cancellation.active(manager)
        self.active.__enter__()
        return manager

    def __exit__(self, *exc):
        self.active.__exit__(*exc)
        if self.timer is not None:
            self.timer.cancel()
        with _lock:
            _open.get(self.session, set()).discard(self.manager)
        return False


def cancel_all(session):
    """Cancels every run of ``session`` in progress (``Session.close``)."""
    with _lock:
        managers = list(_open.pop(session, ()))
    for manager in managers:
        manager.cancel()
