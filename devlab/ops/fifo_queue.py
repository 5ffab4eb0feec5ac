"""The FIFO queue resource and the kernels of TF's queue ops (``FIFOQueueV2``, ``QueueEnqueueV2``...).

A queue holds elements (tuples of arrays) in order, up to ``capacity`` (-1: no bound). It is
shared by every op that takes its handle, in whatever run and thread they run, so it has its
own lock: an enqueue waits while the queue is full, a dequeue while it holds too few elements,
each in its turn (waiting dequeues are served in the order they came, as TF's are). A closed
queue takes no more elements, and a dequeue that can no longer be served fails with
``OutOfRangeError``: the end of the input. A wait ends early when its run is cancelled (the
session closes, the run's timeout passes: ``framework/cancellation.py``).

Queue state changes when its op runs, not when the run commits: a token dequeued by a run that
fails later is gone, as in TensorFlow (only variables are transactional in devlab). The texts of
the errors are TF 2.21's.
"""
import collections
import threading

import numpy as np

from ..framework import cancellation, errors, publishing
from .resource_mgr import resources_of

UNBOUNDED = 2 ** 31 - 1  # TF's capacity for ``capacity=-1``


def _dims(shape):
    return "[" + ",".join("?" if d is None else str(d) for d in shape) + "]"


class FIFOQueue:
    """The queue behind a ``FIFOQueueV2`` handle."""

    KIND = "FIFOQueue"  # the name TF's errors give the queue's class

    def __init__(self, name, dtypes, shapes, capacity):
        self.name = name
        self.dtypes = [d.base_dtype.as_numpy_dtype for d in dtypes]
        self.type_names = [d.base_dtype.name for d in dtypes]
        self.shapes = [tuple(s) for s in shapes] if shapes else None
        self.capacity = UNBOUNDED if capacity is None or capacity < 0 else int(capacity)
        self._items = collections.deque()
        self._closed = False
        self._cancelled_enqueues = 0  # bumped by close(cancel_pending_enqueues=True)
        self._pending_enqueues = 0
        self._dequeuers = collections.deque()  # the waiting dequeues, in the order they came
        self._cond = threading.Condition()

    def check_matches(self, dtypes, shapes, capacity):
        """TF's errors when a shared queue is asked for with other attrs than it was made with."""
        requested = UNBOUNDED if capacity is None or capacity < 0 else int(capacity)
        if [d.base_dtype.name for d in dtypes] != self.type_names:
            raise errors.InvalidArgumentError(
                None, None, f"Shared queue '{self.name}' has component types {', '.join(self.type_names)} but "
                f"requested component types were {', '.join(d.base_dtype.name for d in dtypes)}")
        if requested != self.capacity:
            raise errors.InvalidArgumentError(
                None, None, f"Shared queue '{self.name}' has capacity {self.capacity} but requested capacity was "
                f"{requested}")
        if ([tuple(s) for s in shapes] if shapes else None) != self.shapes:
            raise errors.InvalidArgumentError(
                None, None, f"Shared queue '{self.name}' has component shapes "
                f"{', '.join(map(_dims, self.shapes or ()))} but requested component shapes were "
                f"{', '.join(_dims(s) for s in shapes or ())}")

    def _enough(self, n):
        """Whether a dequeue of ``n`` may take its elements now (the queue is open)."""
        return len(self._items) >= n

    def _can_take(self, n):
        """Whether ``n`` more elements may be taken now: a closed queue gives all it has."""
        return len(self._items) >= n if self._closed else self._enough(n)

    def _pop(self):
        return self._items.popleft()

    def _put_back(self, elements):
        """Elements taken by a dequeue that could not complete, back at the front, in order."""
        for element in reversed(elements):
            self._items.insert(0, element)

    # -- state --------------------------------------------------------------------------------------
    def size(self):
        with self._cond:
            return len(self._items)

    def is_closed(self):
        with self._cond:
            return self._closed

    def close(self, cancel_pending_enqueues=False):
        with self._cond:
            self._closed = True
            if cancel_pending_enqueues:
                self._cancelled_enqueues += 1
            self._cond.notify_all()

    # -- enqueue ------------------------------------------------------------------------------------
    def enqueue(self, components, xp):
        self._check_shapes(components, batch=None)
        self._put([[xp.array(c, copy=True) for c in components]])

    def enqueue_many(self, components, xp):
        batch = int(np.shape(components[0])[0]) if np.ndim(components[0]) else None
        self._check_shapes(components, batch=batch)
        self._put([[xp.array(c[i], copy=True) for c in components] for i in range(batch or 0)])

    def _check_shapes(self, components, batch):
        for i, c in enumerate(components):
            shape = tuple(np.shape(c))
            want = self.shapes[i] if self.shapes else None
            if batch is not None or want is not None:
                expected = ((batch,) if batch is not None else ()) + (want if want is not None else shape[1:])
                if shape != expected:
                    raise errors.InvalidArgumentError(
                        None, None, f"Shape mismatch in tuple component {i}. Expected {_dims(expected)}, got "
                        f"{_dims(shape)}")

    def _put(self, elements):
        """Enqueues the elements one at a time, each waiting for room (TF enqueues what fits).
        The run's variable writes so far become visible first, as TF's would be."""
        publishing.publish()
        with self._cond:
            if self._closed:
                raise errors.CancelledError(None, None, f"FIFOQueue '{self.name}' is closed.")
            generation = self._cancelled_enqueues
            for element in elements:
                if len(self._items) >= self.capacity:
                    self._pending_enqueues += 1
                    try:
                        cancellation.wait(self._cond, lambda: len(self._items) < self.capacity or
                                          self._cancelled_enqueues != generation, _enqueue_cancelled)
                    finally:
                        self._pending_enqueues -= 1
                    if self._cancelled_enqueues != generation:
                        raise _enqueue_cancelled()
                self._items.append(element)
                self._cond.notify_all()

    # -- dequeue ------------------------------------------------------------------------------------
    def dequeue(self, n, xp=np, up_to=False, many=False):
        """``n`` elements (one, unbatched, when not ``many``), waiting until they are there; a
        closed queue gives what is left to ``up_to``, else OutOfRangeError."""
        if many and not self.shapes:
            raise errors.InvalidArgumentError(
                None, None, "FIFOQueue's DequeueMany and DequeueUpTo require the components to have specified "
                "shapes.")
        if n < 0:
            raise errors.InvalidArgumentError(None, None, f"DequeueManyOp requested {n} < 0 elements")
        with self._cond:
            me = object()
            self._dequeuers.append(me)
            taken = []
            try:
                # At the head of the waiting dequeues, take elements as they come (a dequeue of more
                # than the capacity fills up while enqueues go on), as TF's queues do.
                while len(taken) < n:
                    cancellation.wait(self._cond, lambda: self._dequeuers[0] is me and (
                        self._can_take(1) or (self._closed and not self._pending_enqueues)), _dequeue_cancelled)
                    if self._closed and not self._pending_enqueues and len(self._items) < n - len(taken):
                        self._put_back(taken)  # the partial batch goes back, in order
                        taken = []
                        if not (up_to and self._items):
                            raise errors.OutOfRangeError(
                                None, None, f"{self.KIND} '{self.name}' is closed and has insufficient elements "
                                f"(requested {n}, current size {len(self._items)})")
                        n = len(self._items)
                    while len(taken) < n and self._can_take(1):
                        taken.append(self._pop())
                    self._cond.notify_all()  # room for the waiting enqueues
            except BaseException:
                self._put_back(taken)
                raise
            finally:
                self._dequeuers.remove(me)
                self._cond.notify_all()
            # As TF's queue runs the waiting enqueues before a dequeue completes, the room made here
            # is filled before this returns (a size read right after sees the queue full again).
            cancellation.wait(self._cond, lambda: not self._pending_enqueues or len(self._items) >= self.capacity
                              or self._closed, _dequeue_cancelled)
        if not many:
            return list(taken[0])
        return [xp.stack([e[i] for e in taken]) if taken else xp.zeros((0,) + self.shapes[i], self.dtypes[i])
                for i in range(len(self.dtypes))]


def _enqueue_cancelled():
    return errors.CancelledError(None, None, "Enqueue operation was cancelled")


def _dequeue_cancelled():
    return errors.CancelledError(None, None, "Dequeue operation was cancelled")


# -- kernels ----------------------------------------------------------------------------------------------
def _queue(k, handle):
    return resources_of(k).lookup(handle, FIFOQueue)


def fifo_queue_v2(k):
    a = k.attrs
    types, shapes, capacity = a["component_types"], a.get("shapes") or None, a.get("capacity", -1)
    handle, queue = resources_of(k).create(a.get("container", ""), a.get("shared_name", ""), k.op_name,
                                           lambda name: FIFOQueue(name, types, shapes, capacity))
    queue.check_matches(types, shapes, capacity)
    return handle


def queue_enqueue_v2(k, handle, *components):
    _queue(k, handle).enqueue(components, k.xp)


def queue_enqueue_many_v2(k, handle, *components):
    _queue(k, handle).enqueue_many(components, k.xp)


def _outputs(values):
    return values[0] if len(values) == 1 else tuple(values)


def queue_dequeue_v2(k, handle):
    return _outputs(_queue(k, handle).dequeue(1, k.xp))


def queue_dequeue_many_v2(k, handle, n):
    return _outputs(_queue(k, handle).dequeue(int(n), k.xp, many=True))


def queue_dequeue_up_to_v2(k, handle, n):
    return _outputs(_queue(k, handle).dequeue(int(n), k.xp, up_to=True, many=True))


def queue_close_v2(k, handle):
    _queue(k, handle).close(bool(k.attrs.get("cancel_pending_enqueues", False)))


def queue_size_v2(k, handle):
    return np.asarray(_queue(k, handle).size(), np.int32)


def queue_is_closed_v2(k, handle):
    return np.asarray(_queue(k, handle).is_closed())

