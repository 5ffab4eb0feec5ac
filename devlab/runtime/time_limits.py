"""A run's time limit and its cancellation by ``Session.close``, for runs in this process.

Each ``Session.run`` gets a ``CancellationManager`` (``framework/cancellation.py``), current in the
thread that runs its kernels, so a kernel that waits (a queue's dequeue, an accumulator's
take_grad) wakes when the run is cancelled. The run is cancelled when its time limit passes
(``RunOptions.timeout_in_ms``, else the session's ``ConfigProto.operation_timeout_in_ms``; TF's
DeadlineExceededError "Timed out waiting for notification") or when the session is closed from
another thread (the waiting kernel's own CancelledError). A cancelled run commits nothing.
A run on Dask workers (a cluster backend) has no manager: its tasks wait where they run.
"""
import contextlib
import threading
import weakref

from ..framework import cancellation, errors

_open = weakref.WeakKeyDictionary()  # session -> the managers of its runs in progress
_lock = threading.Lock()


def timeout_ms(session, options):
    """The run's limit in milliseconds (0: none), as TF chooses it."""
    if options is not None and getattr(options, "timeout_in_ms", 0) > 0:
        return options.timeout_in_ms
    return getattr(session.config, "operation_timeout_in_ms", 0) or 0


@contextlib.contextmanager
def limited(session, options):
    """Runs the block as one cancellable run of ``session``; yields its manager (None on a backend)."""
    if session.backend is not None:
        yield None
        return
    manager = cancellation.CancellationManager()
    limit = timeout_ms(session, options)
    timer = None
    if limit > 0:
        timer = threading.Timer(limit / 1000.0, manager.cancel, args=(errors.DeadlineExceededError(
            None, None, "Timed out waiting for notification"),))
        timer.daemon = True
        timer.start()
    with _lock:
        _open.setdefault(session, set()).add(manager)
    try:
        with cancellation.active(manager):
            yield manager
    finally:
        if timer is not None:
            timer.cancel()
        with _lock:
            _open.get(session, set()).discard(manager)


def cancel_all(session):
    """Cancels every run of ``session`` in progress (``Session.close``)."""
    with _lock:
        managers = list(_open.pop(session, ()))
    for manager in managers:
        manager.cancel()
