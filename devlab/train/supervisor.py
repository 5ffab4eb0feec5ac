"""``tf.train.Supervisor``: TF 1.x's older helper for a training loop with a chief::

    sv = tf.train.Supervisor(is_chief=(task_index == 0), logdir=logdir, global_step=global_step)
    with sv.managed_session(server.target) as sess:
        while not sv.should_stop():
            sess.run(train_op)

Built as TF's: the constructor takes each op from its collection or builds TF's default, in this
order, then finalizes the graph: the ready op (``report_uninitialized_variables``), the init op
(``init``), the local init op (``group(local_variables_initializer(), tables_initializer())``:
``init_1``, ``init_all_tables``, ``group_deps``), a Saver (``save/...``) and the summary op
(``merge_all``: ``Merge/MergeSummary``). ``managed_session`` opens the session through a
``SessionManager`` (the chief restores the newest checkpoint of ``logdir`` or initialises; the
others wait for it), and the chief starts TF's services, each a thread on a timer: a checkpoint
every ``save_model_secs`` (the first at once), summaries and the step rate every
``save_summaries_secs``. ``0`` turns a service off. An exception in the block stops the
Supervisor and is raised again at the end, except ``OutOfRangeError`` (the end of the input).
"""
import contextlib
import os
import time

from ..framework import dtypes
from ..framework.graph import get_default_graph
from ..framework.graph_keys import GraphKeys
from ..api.control_flow_ops import group
from ..api.lookup_ops import tables_initializer
from ..api.uninitialized import report_uninitialized_variables
from ..api.variables import global_variables, global_variables_initializer, local_variables_initializer
from .. import summary
from .. import tf_logging as logging
from . import training_util
from . import summary_io
from .coordinator import Coordinator, LooperThread
from .saver import Saver
from .session_manager import SessionManager


class Supervisor:
    USE_DEFAULT = 0

    def __init__(self, graph=None, ready_op=USE_DEFAULT, ready_for_local_init_op=USE_DEFAULT, is_chief=True,
                 init_op=USE_DEFAULT, init_feed_dict=None, local_init_op=USE_DEFAULT, logdir=None,
                 summary_op=USE_DEFAULT, saver=USE_DEFAULT, global_step=USE_DEFAULT, save_summaries_secs=120,
                 save_model_secs=600, recovery_wait_secs=30, stop_grace_secs=120, checkpoint_basename="model.ckpt",
                 session_manager=None, summary_writer=USE_DEFAULT, init_fn=None, local_init_run_options=None):
        graph = get_default_graph() if graph is None else graph
        with graph.as_default():
            self._init_ready_op(ready_op, ready_for_local_init_op)
            self._init_init_op(init_op, init_feed_dict)
            self._init_local_init_op(local_init_op)
            self._init_saver(saver)
            self._init_summary_op(summary_op)
            self._init_global_step(global_step)
        self._graph = graph
        self._is_chief = is_chief
        self._coord = Coordinator()
        self._recovery_wait_secs, self._stop_grace_secs = recovery_wait_secs, stop_grace_secs
        self._init_fn, self._local_init_run_options = init_fn, local_init_run_options
        self._logdir = self._save_summaries_secs = self._save_model_secs = self._save_path = None
        self._summary_writer = None
        if self._is_chief:
            self._logdir = logdir
            self._save_summaries_secs, self._save_model_secs = save_summaries_secs, save_model_secs
            if self._logdir:
                self._save_path = os.path.join(self._logdir, checkpoint_basename)
            if summary_writer is Supervisor.USE_DEFAULT:
                if self._logdir:
                    self._summary_writer = summary_io.new_writer(self._logdir)
            else:
                self._summary_writer = summary_writer
            self._graph_added_to_summary = False
        self._init_session_manager(session_manager)
        self._verify_setup()
        graph.finalize()

    # -- the ops, each from its collection or TF's default ---------------------------------------
    def _init_session_manager(self, session_manager=None):
        if session_manager is None:
            session_manager = SessionManager(local_init_op=self._local_init_op, ready_op=self._ready_op,
                                             ready_for_local_init_op=self._ready_for_local_init_op,
                                             graph=self._graph, recovery_wait_secs=self._recovery_wait_secs,
                                             local_init_run_options=self._local_init_run_options)
        self._session_manager = session_manager

    def _get_first_op_from_collection(self, key):
        found = get_default_graph().get_collection(key)
        if len(found) > 1:
            logging.info("Found %d %s operations. Returning the first one.", len(found), key)
        return found[0] if found else None

    def _default(self, value, key, make):
        """``value``, unless it is ``USE_DEFAULT``: then the first of collection ``key``, else what
        ``make()`` returns (added to the collection when it is not None), as TF's Supervisor."""
        if value is not Supervisor.USE_DEFAULT:
            return value
        found = self._get_first_op_from_collection(key)
        if found is None:
            found = make()
            if found is not None:
                get_default_graph().add_to_collection(key, found)
        return found

    def _init_ready_op(self, ready_op=USE_DEFAULT, ready_for_local_init_op=USE_DEFAULT):
        self._ready_op = self._default(ready_op, GraphKeys.READY_OP, report_uninitialized_variables)
        self._ready_for_local_init_op = self._default(ready_for_local_init_op, GraphKeys.READY_FOR_LOCAL_INIT_OP,
                                                      lambda: None)

    def _init_init_op(self, init_op=USE_DEFAULT, init_feed_dict=None):
        self._init_op = self._default(init_op, GraphKeys.INIT_OP, global_variables_initializer)
        self._init_feed_dict = init_feed_dict

    def _init_local_init_op(self, local_init_op=USE_DEFAULT):
        self._local_init_op = self._default(local_init_op, GraphKeys.LOCAL_INIT_OP,
                                            lambda: group(local_variables_initializer(), tables_initializer()))

    def _init_saver(self, saver=USE_DEFAULT):
        self._saver = self._default(saver, GraphKeys.SAVERS, lambda: Saver() if global_variables() else None)

    def _init_summary_op(self, summary_op=USE_DEFAULT):
        self._summary_op = self._default(summary_op, GraphKeys.SUMMARY_OP, summary.merge_all)

    def _init_global_step(self, global_step=USE_DEFAULT):
        self._global_step = self._default(global_step, GraphKeys.GLOBAL_STEP, self._default_global_step_tensor)

    def _default_global_step_tensor(self):
        try:
            gs = get_default_graph().get_tensor_by_name("global_step:0")
        except KeyError:
            return None
        if gs.dtype.base_dtype in (dtypes.int32, dtypes.int64):
            return gs
        logging.warning("Found 'global_step' is not an int type: %s", gs.dtype)
        return None

    def _verify_setup(self):
        if not self._is_chief:
            for op in self._graph.get_operations():
                if op.type in ("Variable", "VariableV2") and not op.device:
                    raise ValueError(f"When using replicas, all Variables must have their device set: {op}")

    # -- properties ----------------------------------------------------------------------------
    is_chief = property(lambda self: self._is_chief)
    session_manager = property(lambda self: self._session_manager)
    coord = property(lambda self: self._coord)
    init_op = property(lambda self: self._init_op)
    init_feed_dict = property(lambda self: self._init_feed_dict)
    ready_op = property(lambda self: self._ready_op)
    ready_for_local_init_op = property(lambda self: self._ready_for_local_init_op)
    summary_writer = property(lambda self: self._summary_writer)
    summary_op = property(lambda self: self._summary_op)
    save_summaries_secs = property(lambda self: self._save_summaries_secs)
    global_step = property(lambda self: self._global_step)
    saver = property(lambda self: self._saver)
    save_model_secs = property(lambda self: self._save_model_secs)
    save_path = property(lambda self: self._save_path)

    # -- sessions and services -----------------------------------------------------------------
    def _write_graph(self):
        if self._logdir:
            summary_io.write_graph(self._graph, self._logdir, "graph.pbtxt")
        if self._summary_writer and not self._graph_added_to_summary:
            self._summary_writer.add_graph(self._graph)
            self._graph_added_to_summary = True

    def start_standard_services(self, sess):
        """The chief's services: summaries and step rate (if there is a summary writer), checkpoints."""
        if not self._is_chief:
            raise RuntimeError("Only chief supervisor can start standard services. "
                               "Because only chief supervisors can write events.")
        if not self._logdir:
            logging.warning("Standard services need a 'logdir' passed to the SessionManager")
            return
        if self._global_step is not None and self._summary_writer:
            step = training_util.global_step(sess, self._global_step)
            self._summary_writer.add_session_log(summary_io.session_log("START"), step)
        threads = []
        if self._save_summaries_secs and self._summary_writer:
            if self._summary_op is not None:
                threads.append(SVSummaryThread(self, sess))
            if self._global_step is not None:
                threads.append(SVStepCounterThread(self, sess))
        if self.saver and self._save_model_secs:
            threads.append(SVTimerCheckpointThread(self, sess))
        for t in threads:
            t.start()
        return threads

    def prepare_or_wait_for_session(self, master="", config=None, wait_for_checkpoint=False, max_wait_secs=7200,
                                    start_standard_services=True):
        """The chief: a Session restored or initialised (and the services started). Others: a Session
        once the chief is done."""
        self._coord.clear_stop()
        if self._summary_writer:
            self._summary_writer.reopen()
        if self._is_chief:
            sess = self._session_manager.prepare_session(
                master, init_op=self.init_op, saver=self.saver, checkpoint_dir=self._logdir,
                wait_for_checkpoint=wait_for_checkpoint, max_wait_secs=max_wait_secs, config=config,
                init_feed_dict=self._init_feed_dict, init_fn=self._init_fn)
            self._write_graph()
            if start_standard_services:
                logging.info("Starting standard services.")
                self.start_standard_services(sess)
        else:
            sess = self._session_manager.wait_for_session(master, config=config, max_wait_secs=max_wait_secs)
        if start_standard_services:
            logging.info("Starting queue runners.")
            self.start_queue_runners(sess)
        return sess

    def start_queue_runners(self, sess, queue_runners=None):
        """Starts a daemon thread per enqueue op of ``queue_runners`` (the graph's QUEUE_RUNNERS
        collection by default), on the supervisor's coordinator: ``stop()`` closes and joins them."""
        if queue_runners is None:
            queue_runners = self._graph.get_collection(GraphKeys.QUEUE_RUNNERS)
        threads = []
        for qr in queue_runners:
            threads.extend(qr.create_threads(sess, coord=self._coord, daemon=True, start=True))
        return threads

    def loop(self, timer_interval_secs, target, args=None, kwargs=None):
        """Starts a thread that calls ``target`` every ``timer_interval_secs`` until a stop."""
        looper = LooperThread(self._coord, timer_interval_secs, target=target, args=args, kwargs=kwargs)
        looper.start()
        return looper

    def stop(self, threads=None, close_summary_writer=True, ignore_live_threads=False):
        """Stops the services and joins their threads (and ``threads``); does not close the session."""
        self._coord.request_stop()
        try:
            self._coord.join(threads, stop_grace_period_secs=self._stop_grace_secs,
                             ignore_live_threads=ignore_live_threads)
        finally:
            if close_summary_writer and self._summary_writer:
                self._summary_writer.add_session_log(summary_io.session_log("STOP"))
                self._summary_writer.close()
                self._graph_added_to_summary = False

    def request_stop(self, ex=None):
        self._coord.request_stop(ex=ex)

    def should_stop(self):
        return self._coord.should_stop()

    def stop_on_exception(self):
        return self._coord.stop_on_exception()

    def wait_for_stop(self):
        self._coord.wait_for_stop()

    def summary_computed(self, sess, summary_value, global_step=None):
        """Writes a summary computed by the caller."""
        if not self._summary_writer:
            raise RuntimeError("Writing a summary requires a summary writer.")
        if global_step is None and self.global_step is not None:
            global_step = training_util.global_step(sess, self.global_step)
        self._summary_writer.add_summary(summary_value, global_step)

    @contextlib.contextmanager
    def managed_session(self, master="", config=None, start_standard_services=True, close_summary_writer=True):
        """A Session for the block: prepared as ``prepare_or_wait_for_session``; at the end the
        services stop and the session closes, then an exception of the block is raised again."""
        sess = None
        try:
            sess = self.prepare_or_wait_for_session(master=master, config=config,
                                                    start_standard_services=start_standard_services)
            yield sess
        except Exception as e:  # noqa: BLE001 - kept by the coordinator, raised again by stop()
            self.request_stop(e)
        finally:
            try:
                self.stop(close_summary_writer=close_summary_writer)
            finally:
                try:
                    if sess is not None:
                        sess.close()
                except Exception:  # noqa: BLE001 - TF ignores errors while closing here
                    pass

    PrepareSession = prepare_or_wait_for_session
    StartQueueRunners = start_queue_runners
    StartStandardServices = start_standard_services
    Stop = stop
    RequestStop = request_stop
    Loop = loop
    ShouldStop = should_stop
    StopOnException = stop_on_exception
    WaitForStop = wait_for_stop
    SummaryComputed = summary_computed


class SVSummaryThread(LooperThread):
    """Runs the summary op every ``save_summaries_secs`` and writes it."""

    def __init__(self, sv, sess):
        super().__init__(sv.coord, sv.save_summaries_secs)
        self._sv, self._sess = sv, sess

    def run_loop(self):
        if self._sv.global_step is not None:
            summary_strs, step = self._sess.run([self._sv.summary_op, self._sv.global_step])
        else:
            summary_strs, step = self._sess.run(self._sv.summary_op), None
        if self._sv.summary_writer:
            logging.info("Recording summary at step %s.", step)
            self._sv.summary_writer.add_summary(summary_strs, step)


class SVStepCounterThread(LooperThread):
    """Writes the global steps per second every ``save_summaries_secs``."""

    def __init__(self, sv, sess, step_counter=None):
        super().__init__(sv.coord, sv.save_summaries_secs)
        self._sv, self._sess = sv, sess
        self._last_time, self._last_step = 0.0, 0
        self._step_counter = sv.global_step if step_counter is None else step_counter
        self._summary_tag = f"{self._step_counter.op.name}/sec"

    def start_loop(self):
        self._last_time = time.time()
        self._last_step = training_util.global_step(self._sess, self._step_counter)

    def run_loop(self):
        step = training_util.global_step(self._sess, self._step_counter)
        added, self._last_step = step - self._last_step, step
        now = time.time()
        elapsed, self._last_time = now - self._last_time, now
        steps_per_sec = added / elapsed if elapsed > 0 else float("inf")
        if self._sv.summary_writer:
            self._sv.summary_writer.add_summary(summary_io.scalar_summary(self._summary_tag, steps_per_sec), step)
        logging.info("%s: %g", self._summary_tag, steps_per_sec)


class SVTimerCheckpointThread(LooperThread):
    """Saves a checkpoint every ``save_model_secs`` (the first as soon as the session is ready)."""

    def __init__(self, sv, sess):
        super().__init__(sv.coord, sv.save_model_secs)
        self._sv, self._sess = sv, sess

    def run_loop(self):
        logging.info("Saving checkpoint to path %s", self._sv.save_path)
        self._sv.saver.save(self._sess, self._sv.save_path, global_step=self._sv.global_step)
        if self._sv.summary_writer and self._sv.global_step is not None:
            step = training_util.global_step(self._sess, self._sv.global_step)
            self._sv.summary_writer.add_session_log(summary_io.session_log("CHECKPOINT", self._sv.save_path), step)
