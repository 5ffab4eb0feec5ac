"""``QueueRunner``: threads that run a queue's enqueue ops until the queue closes or the
Coordinator stops (TF's ``tf.train.QueueRunner``). Building one adds the queue's two close ops,
``<queue>_Close`` and ``<queue>_Close_1`` (the cancelling one), as TF's constructor does."""
import threading

from ..framework import errors
from ..framework.graph import get_default_graph
from ..framework.graph_keys import GraphKeys


class QueueRunner:
    """Holds ``queue`` and the ``enqueue_ops`` to run for it, one thread per op."""

    def __init__(self, queue=None, enqueue_ops=None, close_op=None, cancel_op=None,
                 queue_closed_exception_types=None):
        if queue is None or not enqueue_ops:
            raise ValueError("Both queue and enqueue_ops must be specified.")
        self._queue = queue
        self._enqueue_ops = list(enqueue_ops)
        self._close_op = close_op if close_op is not None else queue.close()
        self._cancel_op = cancel_op if cancel_op is not None else queue.close(cancel_pending_enqueues=True)
        self._closed_types = tuple(queue_closed_exception_types or (errors.OutOfRangeError,))
        self._exceptions_raised = []
        self._lock = threading.Lock()
        self._runs = {}  # id of a session -> how many of its enqueue threads still run

    @property
    def queue(self):
        return self._queue

    @property
    def enqueue_ops(self):
        return self._enqueue_ops

    @property
    def close_op(self):
        return self._close_op

    @property
    def cancel_op(self):
        return self._cancel_op

    @property
    def exceptions_raised(self):
        return self._exceptions_raised

    @property
    def name(self):
        return self._queue.name

    def _run(self, sess, enqueue_op, coord):
        try:
            while coord is None or not coord.should_stop():
                try:
                    sess.run(enqueue_op)
                except self._closed_types:
                    # the input ended (or the queue closed): the last thread to stop closes the
                    # queue, so its readers get OutOfRangeError once it is empty, as in TF
                    with self._lock:
                        self._runs[id(sess)] = self._runs.get(id(sess), 1) - 1
                        last = self._runs[id(sess)] <= 0
                    if last:
                        try:
                            sess.run(self._close_op)
                        except Exception:  # noqa: BLE001 - TF only logs it (the session may be closed)
                            pass
                    return
        except Exception as e:  # noqa: BLE001 - handed to the Coordinator, as TF does
            if coord is not None:
                coord.request_stop(e)
            else:
                self._exceptions_raised.append(e)
                raise

    def _close_on_stop(self, sess, coord):
        coord.wait_for_stop()
        try:
            sess.run(self._cancel_op)
        except Exception:  # noqa: BLE001 - the session may be closed already
            pass

    def create_threads(self, sess, coord=None, daemon=False, start=False):
        """One thread per enqueue op (and one that closes the queue when ``coord`` stops)."""
        threads = [threading.Thread(target=self._run, args=(sess, op, coord), daemon=daemon)
                   for op in self._enqueue_ops]
        with self._lock:
            self._runs[id(sess)] = len(self._enqueue_ops)
        if coord is not None and hasattr(coord, "wait_for_stop"):
            threads.append(threading.Thread(target=self._close_on_stop, args=(sess, coord), daemon=True))
        for t in threads:
            if coord is not None:
                coord.register_thread(t)
            if start:
                t.start()
        return threads


def add_queue_runner(qr, collection=GraphKeys.QUEUE_RUNNERS):
    get_default_graph().add_to_collection(collection, qr)
