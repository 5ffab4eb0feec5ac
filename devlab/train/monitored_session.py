"""``MonitoredTrainingSession``: a Session that initialises itself and runs hooks around each step.

TF's between-graph training loop::

    with tf.train.MonitoredTrainingSession(master=server.target, is_chief=(task_index == 0),
                                           hooks=[tf.train.StopAtStepHook(last_step=100)]) as sess:
        while not sess.should_stop():
            sess.run(train_op)

Built as TF builds it: the hooks' ``begin()`` run first (``StopAtStepHook`` builds the global
step read, ``global_step/cond``...), then the session creator finalizes the ``Scaffold`` (init,
ready and local-init ops, a sharded Saver: ``scaffold.py``) and opens the session through a
``SessionManager``: the chief (``ChiefSessionCreator``) restores the newest checkpoint of
``checkpoint_dir`` or initialises; any other task (``WorkerSessionCreator``) waits until the
chief is done. Each ``run`` then fetches what the hooks ask for with the caller's fetches. A
``MonitoredSession`` recreates its session when a task of the cluster was lost (``AbortedError``,
``UnavailableError``); ``SingularMonitoredSession`` does not.
"""
import os

from ..distribute.worker_context import get_current_worker_context, register_session_creators
from ..framework import errors
from ..framework.graph import get_default_graph
from ..runtime.protos import RunMetadata, RunOptions
from .. import tf_logging as logging
from . import basic_session_run_hooks as hooks_mod
from .coordinator import Coordinator
from .scaffold import BUILD_LOCK, Scaffold
from .session_manager import SessionManager
from .session_run_hook import SessionRunArgs, SessionRunContext, SessionRunValues

_PREEMPTION_ERRORS = (errors.AbortedError, errors.UnavailableError)
USE_DEFAULT = object()


def MonitoredTrainingSession(master="", is_chief=True, checkpoint_dir=None, scaffold=None, hooks=None,  # noqa: N802
                             chief_only_hooks=None, save_checkpoint_secs=USE_DEFAULT,
                             save_summaries_steps=USE_DEFAULT, save_summaries_secs=USE_DEFAULT, config=None,
                             stop_grace_period_secs=120, log_step_count_steps=100, max_wait_secs=7200,
                             save_checkpoint_steps=USE_DEFAULT, summary_dir=None, save_graph_def=True):
    """TF's factory. The chief also gets a StepCounterHook and a SummarySaverHook (every 100 steps)
    when there is a ``summary_dir`` (default: ``checkpoint_dir``), and a CheckpointSaverHook (every
    600 s) when there is a ``checkpoint_dir``; then ``hooks``."""
    if save_summaries_steps is USE_DEFAULT and save_summaries_secs is USE_DEFAULT:
        save_summaries_steps, save_summaries_secs = 100, None
    elif save_summaries_secs is USE_DEFAULT:
        save_summaries_secs = None
    elif save_summaries_steps is USE_DEFAULT:
        save_summaries_steps = None
    if save_checkpoint_steps is USE_DEFAULT and save_checkpoint_secs is USE_DEFAULT:
        save_checkpoint_steps, save_checkpoint_secs = None, 600
    elif save_checkpoint_secs is USE_DEFAULT:
        save_checkpoint_secs = None
    elif save_checkpoint_steps is USE_DEFAULT:
        save_checkpoint_steps = None
    scaffold = scaffold or Scaffold()
    worker_context = get_current_worker_context()
    if worker_context:  # inside TF's distribute coordinator: its strategy decides, not is_chief
        return _session_with_worker_context(
            worker_context, scaffold, checkpoint_dir, hooks, chief_only_hooks, save_checkpoint_secs,
            save_summaries_steps, save_summaries_secs, config, stop_grace_period_secs, log_step_count_steps,
            max_wait_secs, save_checkpoint_steps, summary_dir, save_graph_def)
    if not is_chief:
        creator = WorkerSessionCreator(scaffold=scaffold, master=master, config=config, max_wait_secs=max_wait_secs)
        return MonitoredSession(session_creator=creator, hooks=hooks or [],
                                stop_grace_period_secs=stop_grace_period_secs)
    all_hooks = list(chief_only_hooks or [])
    creator = ChiefSessionCreator(scaffold=scaffold, checkpoint_dir=checkpoint_dir, master=master, config=config)
    summary_dir = summary_dir or checkpoint_dir
    if summary_dir:
        if log_step_count_steps and log_step_count_steps > 0:
            all_hooks.append(hooks_mod.StepCounterHook(output_dir=summary_dir, every_n_steps=log_step_count_steps))
        if (save_summaries_steps and save_summaries_steps > 0) or (save_summaries_secs and save_summaries_secs > 0):
            all_hooks.append(hooks_mod.SummarySaverHook(scaffold=scaffold, save_steps=save_summaries_steps,
                                                        save_secs=save_summaries_secs, output_dir=summary_dir))
    if checkpoint_dir:
        if (save_checkpoint_secs and save_checkpoint_secs > 0) or (save_checkpoint_steps and save_checkpoint_steps > 0):
            all_hooks.append(hooks_mod.CheckpointSaverHook(checkpoint_dir, save_steps=save_checkpoint_steps,
                                                           save_secs=save_checkpoint_secs, scaffold=scaffold,
                                                           save_graph_def=save_graph_def))
    all_hooks.extend(hooks or [])
    return MonitoredSession(session_creator=creator, hooks=all_hooks, stop_grace_period_secs=stop_grace_period_secs)


_COLLECTIVE_STRATEGIES = ("CollectiveAllReduceStrategy", "CollectiveAllReduceStrategyV1", "MultiWorkerMirroredStrategy")


def _session_with_worker_context(worker_context, scaffold, checkpoint_dir, hooks, chief_only_hooks,
                                 save_checkpoint_secs, save_summaries_steps, save_summaries_secs, config,
                                 stop_grace_period_secs, log_step_count_steps, max_wait_secs, save_checkpoint_steps,
                                 summary_dir, save_graph_def):
    """TF's MonitoredTrainingSession inside a distribute coordinator's worker context: the hooks
    follow the strategy's ``should_save_summary`` and ``should_checkpoint`` (a collective strategy's
    other workers write into ``tmp_<task>`` instead), the session creator is the context's."""
    all_hooks = list(hooks or [])
    if chief_only_hooks and worker_context.is_chief:
        all_hooks.extend(chief_only_hooks)
    tmpdir = None
    if type(worker_context._strategy).__name__ in _COLLECTIVE_STRATEGIES:
        tmpdir = f"tmp_{worker_context.task_type}_{worker_context.task_id}" if worker_context.task_type else "tmp"
        if save_checkpoint_secs:
            logging.warning("Collective ops may deadlock with `save_checkpoints_secs` please use "
                            "`save_checkpoint_steps` instead. Clearing `save_checkpoint_secs` and setting "
                            "`save_checkpoint_steps` to 1000 now.")
            save_checkpoint_secs, save_checkpoint_steps = None, 1000
        if save_summaries_secs:
            logging.warning("Collective ops may run out of sync with`save_summaries_secs`, please use "
                            "`save_summaries_steps` instead.")
    summary_dir = summary_dir or checkpoint_dir

    def where(folder, should):  # the folder itself, a collective worker's tmp folder in it, or none
        return folder if should else (os.path.join(folder, tmpdir) if tmpdir else None)
    if summary_dir and log_step_count_steps and log_step_count_steps > 0:
        out = where(summary_dir, worker_context.should_save_summary)
        if out:
            all_hooks.append(hooks_mod.StepCounterHook(output_dir=out, every_n_steps=log_step_count_steps))
    if ((save_summaries_steps and save_summaries_steps > 0) or (save_summaries_secs and save_summaries_secs > 0)) \
            and summary_dir:
        out = where(summary_dir, worker_context.should_save_summary)
        if out:
            all_hooks.append(hooks_mod.SummarySaverHook(scaffold=scaffold, save_steps=save_summaries_steps,
                                                        save_secs=save_summaries_secs, output_dir=out))
        # as TF's code is written, the checkpoint hook is added only where summaries are configured
        if ((save_checkpoint_secs and save_checkpoint_secs > 0) or
                (save_checkpoint_steps and save_checkpoint_steps > 0)) and checkpoint_dir:
            out = where(checkpoint_dir, worker_context.should_checkpoint)
            if out:
                all_hooks.append(hooks_mod.CheckpointSaverHook(out, save_steps=save_checkpoint_steps,
                                                               save_secs=save_checkpoint_secs, scaffold=scaffold,
                                                               save_graph_def=save_graph_def))
    creator = worker_context.session_creator(scaffold, config=config, checkpoint_dir=checkpoint_dir,
                                             max_wait_secs=max_wait_secs)
    return MonitoredSession(session_creator=creator, hooks=all_hooks, stop_grace_period_secs=stop_grace_period_secs)


class SessionCreator:
    """Makes a session: ``create_session()``."""

    def create_session(self):
        raise NotImplementedError(f"create_session is not implemented for {self}.")


class _ScaffoldedSessionCreator(SessionCreator):
    """A creator whose session comes from a SessionManager made from its scaffold's ops."""

    def __init__(self, scaffold, master, config):
        self._scaffold = scaffold or Scaffold()
        self._session_manager = None
        self._master, self._config = master, config

    def _get_session_manager(self):
        if self._session_manager is None:
            self._session_manager = _session_manager(self._scaffold)
        return self._session_manager


class ChiefSessionCreator(_ScaffoldedSessionCreator):
    """The chief's session: restored from a checkpoint, or initialised."""

    def __init__(self, scaffold=None, master="", config=None, checkpoint_dir=None,
                 checkpoint_filename_with_path=None):
        super().__init__(scaffold, master, config)
        self._checkpoint_dir, self._checkpoint_filename_with_path = checkpoint_dir, checkpoint_filename_with_path

    def create_session(self):
        self._scaffold.finalize()
        return self._get_session_manager().prepare_session(
            self._master, saver=self._scaffold.saver, checkpoint_dir=self._checkpoint_dir,
            checkpoint_filename_with_path=self._checkpoint_filename_with_path, config=self._config,
            init_op=self._scaffold.init_op, init_feed_dict=self._scaffold.init_feed_dict,
            init_fn=self._scaffold.init_fn)


class WorkerSessionCreator(_ScaffoldedSessionCreator):
    """A non-chief's session, once the chief has initialised the model."""

    def __init__(self, scaffold=None, master="", config=None, max_wait_secs=30 * 60):
        super().__init__(scaffold, master, config)
        self._max_wait_secs = max_wait_secs

    def create_session(self):
        self._scaffold.finalize()
        return self._get_session_manager().wait_for_session(self._master, config=self._config,
                                                            max_wait_secs=self._max_wait_secs)


def _session_manager(scaffold):
    return SessionManager(local_init_op=scaffold.local_init_op, local_init_feed_dict=scaffold.local_init_feed_dict,
                          ready_op=scaffold.ready_op, ready_for_local_init_op=scaffold.ready_for_local_init_op,
                          graph=get_default_graph())


class _MonitoredSession:
    """A session wrapped in hooks, a coordinator and (optionally) recovery."""

    def __init__(self, session_creator, hooks, should_recover, stop_grace_period_secs=120):
        self._graph_was_finalized = get_default_graph().finalized
        self._hooks = hooks or []
        with BUILD_LOCK:
            for h in self._hooks:
                h.begin()
        self._coordinated_creator = self._CoordinatedSessionCreator(
            session_creator=session_creator or ChiefSessionCreator(), hooks=self._hooks,
            stop_grace_period_secs=stop_grace_period_secs)
        if should_recover:
            self._sess = _RecoverableSession(self._coordinated_creator)
        else:
            self._sess = self._coordinated_creator.create_session()

    @property
    def graph(self):
        return None if self._tf_sess() is None else self._tf_sess().graph

    def run(self, fetches, feed_dict=None, options=None, run_metadata=None):
        return self._sess.run(fetches, feed_dict=feed_dict, options=options, run_metadata=run_metadata)

    def run_step_fn(self, step_fn):
        """Runs ``step_fn(step_context)``: it may ``run_with_hooks`` and ``request_stop``."""
        import inspect
        args = tuple(inspect.signature(step_fn).parameters)
        if args not in (("step_context",), ("self", "step_context")):
            raise ValueError("`step_fn` may either have one `step_context` argument, or `self` and `step_context` "
                             f"arguments if it's an instance method. Got {args} instead.")
        return self._sess.run_step_fn(step_fn, self._tf_sess(), run_with_hooks=None)

    class StepContext:
        def __init__(self, session, run_with_hooks_fn):
            self._session, self._run_with_hooks_fn = session, run_with_hooks_fn

        @property
        def session(self):
            return self._session

        def run_with_hooks(self, *args, **kwargs):
            return self._run_with_hooks_fn(*args, **kwargs)

        def request_stop(self):
            raise StopIteration("step_fn has requested the iterations to stop.")

    def should_stop(self):
        return self._sess is None or self._sess.should_stop()

    def close(self):
        self._close_internal()

    def __enter__(self):
        return self

    def __exit__(self, exception_type, exception_value, traceback):
        if exception_type in (errors.OutOfRangeError, StopIteration):
            exception_type = None
        self._close_internal(exception_type)
        return exception_type is None  # the end of the input, or a stop from step_fn, is a clean exit

    class _CoordinatedSessionCreator(SessionCreator):
        def __init__(self, session_creator, hooks, stop_grace_period_secs):
            self._session_creator, self._hooks = session_creator, hooks
            self.coord, self.tf_sess = None, None
            self._stop_grace_period_secs = stop_grace_period_secs

        def create_session(self):
            self.tf_sess = self._session_creator.create_session()
            self.coord = Coordinator(clean_stop_exception_types=[])
            for hook in self._hooks:
                hook.after_create_session(self.tf_sess, self.coord)
            return _CoordinatedSession(_HookedSession(self.tf_sess, self._hooks), self.coord,
                                       self._stop_grace_period_secs)

    def _close_internal(self, exception_type=None):
        try:
            if not exception_type:
                for h in self._hooks:
                    h.end(self._coordinated_creator.tf_sess)
        finally:
            try:
                if self._sess is None:
                    raise RuntimeError("Session is already closed.")
                self._sess.close()
            finally:
                self._sess = None
                self._coordinated_creator.tf_sess = None
                self._coordinated_creator.coord = None
                if not self._graph_was_finalized:
                    get_default_graph()._unsafe_unfinalize()

    def _is_closed(self):
        return self._coordinated_creator.tf_sess is None

    def _tf_sess(self):
        return self._coordinated_creator.tf_sess


class MonitoredSession(_MonitoredSession):
    """A monitored session that recreates its session after a lost task (``should_recover``)."""

    def __init__(self, session_creator=None, hooks=None, stop_grace_period_secs=120):
        super().__init__(session_creator, hooks, should_recover=True, stop_grace_period_secs=stop_grace_period_secs)


class SingularMonitoredSession(_MonitoredSession):
    """A monitored session for one process: a chief session, no recovery; ``raw_session()`` is the Session."""

    def __init__(self, hooks=None, scaffold=None, master="", config=None, checkpoint_dir=None,
                 stop_grace_period_secs=120, checkpoint_filename_with_path=None):
        creator = ChiefSessionCreator(scaffold=scaffold, master=master, config=config, checkpoint_dir=checkpoint_dir,
                                      checkpoint_filename_with_path=checkpoint_filename_with_path)
        super().__init__(creator, hooks, should_recover=False, stop_grace_period_secs=stop_grace_period_secs)

    def raw_session(self):
        return self._tf_sess()


# -- the layers of a monitored session: recoverable > coordinated > hooked > Session ---------------------
class _WrappedSession:
    def __init__(self, sess):
        self._sess = sess
        self._wrapped_is_stoppable = isinstance(sess, _WrappedSession)

    @property
    def graph(self):
        return self._sess.graph

    @property
    def sess_str(self):
        return self._sess.sess_str

    def should_stop(self):
        if self._check_stop():
            return True
        if self._sess:
            return self._wrapped_is_stoppable and self._sess.should_stop()
        return True

    def _check_stop(self):
        return False

    def close(self):
        if self._sess:
            try:
                self._sess.close()
            except _PREEMPTION_ERRORS as e:
                logging.error("An error occurred when attempting to close the session. This may be due to a "
                              "preemption in a connected worker or parameter server. Error: %s", e)
            finally:
                self._sess = None

    def run(self, *args, **kwargs):
        return self._sess.run(*args, **kwargs)

    def run_step_fn(self, step_fn, raw_session, run_with_hooks):
        run_with_hooks = run_with_hooks or self.run
        return step_fn(_MonitoredSession.StepContext(raw_session, run_with_hooks))


_PREEMPTED = ("An error was raised. This may be due to a preemption in a connected worker or parameter server. "
              "The current session will be closed and a new session will be created. Error: %s")


class _RecoverableSession(_WrappedSession):
    """Makes a new session (through the chief's or worker's creator) when a task was lost."""

    def __init__(self, sess_creator):
        self._sess_creator = sess_creator
        _WrappedSession.__init__(self, self._create_session())

    def _create_session(self):
        while True:
            try:
                return self._sess_creator.create_session()
            except _PREEMPTION_ERRORS as e:
                logging.info("An error was raised while a session was being created. This may be due to a "
                             "preemption of a connected worker or parameter server. A new session will be "
                             "created. Error: %s", e)

    def _check_stop(self):
        try:
            return self._sess._check_stop() if self._sess else True
        except _PREEMPTION_ERRORS as e:
            logging.info(_PREEMPTED, e)
            self.close()
            self._sess = self._create_session()
            return False
        except Exception:  # noqa: BLE001 - TF: any other error means stop
            return True

    def run(self, fetches, feed_dict=None, options=None, run_metadata=None):
        while True:
            try:
                if not self._sess:
                    self._sess = self._create_session()
                return self._sess.run(fetches, feed_dict=feed_dict, options=options, run_metadata=run_metadata)
            except _PREEMPTION_ERRORS as e:
                logging.info(_PREEMPTED, e)
                self.close()
                self._sess = None

    def run_step_fn(self, step_fn, raw_session, run_with_hooks):
        while True:
            try:
                if not self._sess:
                    self._sess = self._create_session()
                return self._sess.run_step_fn(step_fn, raw_session, self._sess.run)
            except _PREEMPTION_ERRORS as e:
                logging.info(_PREEMPTED, e)
                self.close()
                self._sess = None


class _CoordinatedSession(_WrappedSession):
    """Stops when the coordinator does; an error of a coordinated thread is raised here."""

    def __init__(self, sess, coord, stop_grace_period_secs=120):
        _WrappedSession.__init__(self, sess)
        self._coord, self._stop_grace_period_secs = coord, stop_grace_period_secs

    def _check_stop(self):
        self._coord.raise_requested_exception()
        return self._coord.should_stop()

    def close(self):
        self._coord.request_stop()
        try:
            self._coord.join(stop_grace_period_secs=self._stop_grace_period_secs, ignore_live_threads=True)
        finally:
            try:
                _WrappedSession.close(self)
            except Exception:  # noqa: BLE001 - TF ignores errors while closing here
                pass

    def run(self, *args, **kwargs):
        try:
            return self._sess.run(*args, **kwargs)
        except _PREEMPTION_ERRORS:
            raise
        except Exception as original:
            try:
                self._coord.raise_requested_exception()
            except _PREEMPTION_ERRORS:
                raise
            except Exception:  # noqa: BLE001 - the run's own error is the one to report
                raise original from None
            raise


class _HookedSession(_WrappedSession):
    """Runs each hook's ``before_run`` and ``after_run`` around a step, with their fetches and feeds."""

    def __init__(self, sess, hooks):
        _WrappedSession.__init__(self, sess)
        self._hooks = hooks
        self._should_stop = False

    def _check_stop(self):
        return self._should_stop

    def run(self, fetches, feed_dict=None, options=None, run_metadata=None):
        if self.should_stop():
            raise RuntimeError("Run called even after should_stop requested.")
        actual_fetches = {"caller": fetches}
        run_context = SessionRunContext(original_args=SessionRunArgs(fetches, feed_dict), session=self._sess)
        options = options or RunOptions()
        feed_dict = self._call_hook_before_run(run_context, actual_fetches, feed_dict, options)
        run_metadata = run_metadata or RunMetadata()
        outputs = _WrappedSession.run(self, fetches=actual_fetches, feed_dict=feed_dict, options=options,
                                      run_metadata=run_metadata)
        for hook in self._hooks:
            hook.after_run(run_context, SessionRunValues(results=outputs[hook] if hook in outputs else None,
                                                         options=options, run_metadata=run_metadata))
        self._should_stop = self._should_stop or run_context.stop_requested
        return outputs["caller"]

    def _call_hook_before_run(self, run_context, fetch_dict, user_feed_dict, options):
        hook_feeds = {}
        for hook in self._hooks:
            request = hook.before_run(run_context)
            if request is not None:
                if request.fetches is not None:
                    fetch_dict[hook] = request.fetches
                if request.feed_dict:
                    _raise_if_feeds_intersect(hook_feeds, request.feed_dict, "Same tensor is fed by two hooks.")
                    hook_feeds.update(request.feed_dict)
                if request.options:
                    _merge_run_options(options, request.options)
        if not hook_feeds:
            return user_feed_dict
        if not user_feed_dict:
            return hook_feeds
        _raise_if_feeds_intersect(user_feed_dict, hook_feeds, "Same tensor is fed by a SessionRunHook and user.")
        hook_feeds.update(user_feed_dict)
        return hook_feeds


def _raise_if_feeds_intersect(feeds1, feeds2, message):
    both = set(feeds1) & set(feeds2)
    if both:
        raise RuntimeError(message + " Conflict(s): " + str(list(both)))


def _merge_run_options(options, incoming):
    """A hook's RunOptions, merged into the step's as TF merges them: the larger number wins, a flag
    is set if either sets it, and the hook's tfdbg watches follow the step's."""
    options.trace_level = max(options.trace_level, incoming.trace_level)
    options.timeout_in_ms = max(options.timeout_in_ms, incoming.timeout_in_ms)
    options.inter_op_thread_pool = max(options.inter_op_thread_pool, incoming.inter_op_thread_pool)
    options.output_partition_graphs = max(options.output_partition_graphs, incoming.output_partition_graphs)
    options.debug_options.debug_tensor_watch_opts.extend(incoming.debug_options.debug_tensor_watch_opts)
    options.debug_options.reset_disk_byte_usage = (options.debug_options.reset_disk_byte_usage
                                                   or incoming.debug_options.reset_disk_byte_usage)
    options.report_tensor_allocations_upon_oom = (options.report_tensor_allocations_upon_oom
                                                  or incoming.report_tensor_allocations_upon_oom)


register_session_creators(ChiefSessionCreator, WorkerSessionCreator)  # what a worker context's creator makes
