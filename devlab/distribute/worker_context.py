"""The worker context of TF's distribute coordinator (``distribute_coordinator._WorkerContext``).

TF's multi-worker strategies ran each worker's training function inside a ``_WorkerContext``:
which task this is, where its master is, and what its strategy says it should do (initialise
variables, write checkpoints, write summaries). ``MonitoredTrainingSession`` made inside one asks
it instead of its own arguments (``train/monitored_session.py``). One context per thread, as TF.
"""
import threading

_state = threading.local()
_creators = {}  # "chief"/"worker" -> the session creator class (set by train/monitored_session.py)


def register_session_creators(chief, worker):
    """The classes ``session_creator`` makes (the training layer gives them; it imports this one)."""
    _creators.update(chief=chief, worker=worker)

CHIEF, WORKER, EVALUATOR = "chief", "worker", "evaluator"


def get_current_worker_context():
    """The worker context this thread is in, or None (TF's ``distribute_coordinator_context``)."""
    return getattr(_state, "current", None)


class _WorkerContext:
    """This task's place in the cluster and its strategy's choices, for the code that builds its
    training session; entered with ``with``."""

    def __init__(self, strategy, cluster_spec, task_type, task_id, session_config=None, rpc_layer="grpc",
                 worker_barrier=None):
        self._strategy, self._cluster_spec = strategy, cluster_spec
        self._task_type, self._task_id = task_type, task_id
        self._session_config, self._rpc_layer, self._worker_barrier = session_config, rpc_layer, worker_barrier
        self._master_target = self._get_master_target()
        jobs = cluster_spec.as_dict() if cluster_spec else {}
        self._num_workers = len(jobs.get(WORKER, [])) + len(jobs.get(CHIEF, []))
        self._is_chief_node = self._is_chief()

    def _debug_message(self):
        if self._cluster_spec:
            return f"[cluster_spec: {self._cluster_spec!r}, task_type: {self._task_type!r}, task_id: {self._task_id!r}]"
        return "[local]"

    def __enter__(self):
        if get_current_worker_context():
            raise ValueError("You cannot run distribute coordinator in a `worker_fn`.\t" + self._debug_message())
        _state.current = self

    def __exit__(self, *exc):
        _state.current = None

    def _get_master_target(self):
        """The address of this task's master (its own, or the chief's for a task without a type)."""
        if not self._cluster_spec or self._task_type == EVALUATOR:
            return ""
        task_type, task_id = self._task_type, self._task_id
        if not task_type:
            task_type, task_id = (CHIEF if CHIEF in self._cluster_spec.jobs else WORKER), 0
        prefix = self._rpc_layer + "://" if self._rpc_layer else ""
        return prefix + self._cluster_spec.job_tasks(task_type)[task_id or 0]

    def _is_chief(self):
        if not self._cluster_spec or self._task_type in (CHIEF, EVALUATOR, None):
            return True
        return CHIEF not in self._cluster_spec.jobs and self._task_type == WORKER and self._task_id == 0

    def wait_for_other_workers(self):
        if self._worker_barrier:
            self._worker_barrier.wait()

    def session_creator(self, scaffold=None, config=None, checkpoint_dir=None, checkpoint_filename_with_path=None,
                        max_wait_secs=7200):
        """The chief's session creator where the strategy initialises (or there is none), else a worker's."""
        if config is not None and self._session_config is not None:
            raise NotImplementedError("devlab does not implement merging the `config` of "
                                      "_WorkerContext.session_creator into the worker context's session_config")
        session_config = config if config is not None else self._session_config
        if not self._strategy or self._strategy.extended.experimental_should_init:
            return _creators["chief"](scaffold, master=self.master_target, config=session_config,
                                       checkpoint_dir=checkpoint_dir,
                                       checkpoint_filename_with_path=checkpoint_filename_with_path)
        return _creators["worker"](scaffold, master=self.master_target, config=session_config,
                                    max_wait_secs=max_wait_secs)

    @property
    def session_config(self):
        return self._session_config

    @property
    def has_barrier(self):
        return self._worker_barrier is not None

    @property
    def distributed_mode(self):
        return bool(self._cluster_spec) and self._task_type != EVALUATOR

    @property
    def cluster_spec(self):
        return self._cluster_spec

    @property
    def task_type(self):
        return self._task_type

    @property
    def task_id(self):
        return self._task_id

    @property
    def master_target(self):
        return self._master_target

    @property
    def is_chief(self):
        return self._is_chief_node

    @property
    def num_workers(self):
        return self._num_workers

    @property
    def experimental_should_init(self):
        return self._strategy.extended.experimental_should_init

    @property
    def should_checkpoint(self):
        return self._strategy.extended.should_checkpoint

    @property
    def should_save_summary(self):
        return self._strategy.extended.should_save_summary
