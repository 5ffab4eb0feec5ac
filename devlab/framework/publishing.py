"""Making a run's variable writes visible before it hands something to another run.

A devlab run keeps its variable writes to itself until it commits. In TensorFlow an op's write is
visible as soon as the op ran, and programs rely on it: SyncReplicasOptimizer's sync op updates
the variables on the ps and *then* enqueues the tokens that let every worker compute its next
gradient from the new values. So a kernel that hands values to another run (an enqueue) first
calls ``publish()``: the runtime makes the writes of the run this thread runs visible to runs of
other sessions (the shared variables of an in-process cluster), as TF would have done by then.
"""
import contextlib
import threading

_local = threading.local()


@contextlib.contextmanager
def publishing(fn):
    """Makes ``fn`` (which publishes the current run's writes) current in this thread for the block."""
    previous = getattr(_local, "fn", None)
    _local.fn = fn
    try:
        yield
    finally:
        _local.fn = previous


def publish():
    """Publishes the writes of the run this thread runs (nothing outside a run)."""
    fn = getattr(_local, "fn", None)
    if fn is not None:
        fn()
