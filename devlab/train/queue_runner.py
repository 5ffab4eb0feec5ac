"""``QueueRunner``: threads that run a queue's enqueue ops until the queue closes or the
Coordinator stops (TF's ``tf.train.QueueRunner``). Building one adds the queue's two close ops,
``<queue>_Close`` and ``<queue>_Close_1`` (the cancelling one), as TF's constructor does."""
import threading

from ..framework import errors
from ..framework.default_session import get_default_session
from ..framework import tf_protos
from ..framework.graph import get_default_graph, prepend_name_scope, strip_name_scope
from ..framework.graph_keys import GraphKeys


class QueueRunner:
    """Holds ``queue`` and the ``enqueue_ops`` to run for it, one thread per op."""

    def __init__(self, queue=None, enqueue_ops=None, close_op=None, cancel_op=None,
                 queue_closed_exception_types=None, queue_runner_def=None, import_scope=None):
        self._exceptions_raised = []
        self._lock = threading.Lock()
        self._runs = {}  # id of a session -> how many of its enqueue threads still run
        if queue_runner_def:
            if queue:
                raise ValueError("queue_runner_def and queue are mutually exclusive.")
            self._init_from_proto(queue_runner_def, import_scope)
            return
        if queue is None or not enqueue_ops:
            raise ValueError("Both queue and enqueue_ops must be specified.")
        self._queue = queue
        self._enqueue_ops = list(enqueue_ops)
        self._close_op = close_op if close_op is not None else queue.close()
        self._cancel_op = cancel_op if cancel_op is not None else queue.close(cancel_pending_enqueues=True)
        self._closed_types = tuple(queue_closed_exception_types or (errors.OutOfRangeError,))

    def _init_from_proto(self, queue_runner_def, import_scope):
        """The queue runner a ``QueueRunnerDef`` names: its queue and ops looked up in the default
        graph (the queue is then its Operation, as in TF), under ``import_scope``."""
        graph = get_default_graph()

        def element(name):
            return graph.as_graph_element(prepend_name_scope(name, import_scope))
        self._queue = element(queue_runner_def.queue_name)
        self._enqueue_ops = [element(name) for name in queue_runner_def.enqueue_op_name]
        self._close_op = element(queue_runner_def.close_op_name)
        self._cancel_op = element(queue_runner_def.cancel_op_name)
        # a QueueRunnerDef written before the field existed means OutOfRangeError, as in TF
        self._closed_types = tuple(errors.exception_type_from_error_code(code)
                                   for code in queue_runner_def.queue_closed_exception_types) or (
                                       errors.OutOfRangeError,)

    @property
    def queue_closed_exception_types(self):
        return self._closed_types

    def to_proto(self, export_scope=None):
        """This runner as TF's ``QueueRunnerDef`` (names without ``export_scope``), or None when its
        queue is outside that scope."""
        if export_scope is not None and not self.queue.name.startswith(export_scope):
            return None
        return tf_protos.queue_runner_def()(
            queue_name=strip_name_scope(self.queue.name, export_scope),
            enqueue_op_name=[strip_name_scope(op.name, export_scope) for op in self.enqueue_ops],
            close_op_name=strip_name_scope(self.close_op.name, export_scope),
            cancel_op_name=strip_name_scope(self.cancel_op.name, export_scope),
            queue_closed_exception_types=[errors.error_code_from_exception_type(cls) for cls in self._closed_types])

    @staticmethod
    def from_proto(queue_runner_def, import_scope=None):
        """The QueueRunner a ``QueueRunnerDef`` describes (its ops must be in the default graph)."""
        return QueueRunner(queue_runner_def=queue_runner_def, import_scope=import_scope)

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
        decremented = False
        try:
            while coord is None or not coord.should_stop():
                try:
                    sess.run(enqueue_op)
                except self._closed_types:
                    # the input ended (or the queue closed): the last thread to stop closes the
                    # queue, so its readers get OutOfRangeError once it is empty, as in TF
                    with self._lock:
                        self._runs[id(sess)] -= 1
                        decremented = True
                        last = self._runs[id(sess)] == 0
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
                with self._lock:
                    self._exceptions_raised.append(e)
                raise
        finally:
            if not decremented:  # a thread that stopped otherwise no longer runs either
                with self._lock:
                    self._runs[id(sess)] -= 1

    def _close_on_stop(self, sess, coord):
        coord.wait_for_stop()
        try:
            sess.run(self._cancel_op)
        except Exception:  # noqa: BLE001 - the session may be closed already
            pass

    def create_threads(self, sess, coord=None, daemon=False, start=False):
        """One thread per enqueue op (and one that closes the queue when ``coord`` stops), named
        as TF names them; none while this session's earlier threads still run."""
        with self._lock:
            if self._runs.get(id(sess), 0) > 0:
                return []
            self._runs[id(sess)] = len(self._enqueue_ops)
            self._exceptions_raised = []
        threads = [threading.Thread(target=self._run, args=(sess, op, coord),
                                    name=f"QueueRunnerThread-{self.name}-{op.name}")
                   for op in self._enqueue_ops]
        if coord:
            threads.append(threading.Thread(target=self._close_on_stop, args=(sess, coord),
                                            name=f"QueueRunnerThread-{self.name}-close_on_stop"))
        for t in threads:
            if coord:
                coord.register_thread(t)
            t.daemon = daemon
            if start:
                t.start()
        return threads


def start_queue_runners(sess=None, coord=None, daemon=True, start=True, collection=GraphKeys.QUEUE_RUNNERS):
    """Starts the threads of every QueueRunner in the session graph's ``collection``; returns them.
    A MonitoredSession starts its own, so it gets none here (as in TF)."""
    from ..runtime.session import Session  # noqa: PLC0415 - the session layer is below; import when used
    if sess is None:
        sess = get_default_session()
        if not sess:
            raise ValueError("Cannot start queue runners: No default session is registered. Use `with "
                             "sess.as_default()` or pass an explicit session to tf.start_queue_runners(sess=sess)")
    if not isinstance(sess, Session):
        if type(sess).__name__ in ("MonitoredSession", "SingularMonitoredSession"):
            return []
        raise TypeError(f"sess must be a `tf.Session` object. Given class: {sess.__class__}")
    threads = []
    for qr in sess.graph.get_collection(collection):
        threads.extend(qr.create_threads(sess, coord=coord, daemon=daemon, start=start))
    return threads


def add_queue_runner(qr, collection=GraphKeys.QUEUE_RUNNERS):
    get_default_graph().add_to_collection(collection, qr)


def __getattr__(name):
    if name == "QueueRunnerDef":  # TF's message (queue_runner_pb2), made on first use: it needs protobuf
        return tf_protos.queue_runner_def()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
