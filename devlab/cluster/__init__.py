"""``devlab.cluster``: each ``/job:x/task:n`` of a TF1 cluster runs on a Dask worker.

``local(ps=1, worker=2)`` starts a local Dask cluster (one worker process per task) and
returns a ``tf.train.ClusterSpec`` bound to it; ``connect(address, cluster)`` binds a
ClusterSpec to the workers of an existing Dask cluster. Then, as in TensorFlow::

    spec = devlab.cluster.local(ps=1, worker=2)
    server = tf.train.Server(spec, job_name="worker", task_index=0)
    with tf.Session(server.target) as sess: ...

The Session places and plans as it does in-process; each task's part of a plan runs on its
worker (``task_runtime.py``), variables live on their task's worker, and tensors that cross
tasks go from worker to worker. ``last_run(sess)`` tells what crossed tasks in a session's last
run; ``tasks(spec)`` where each task runs and what it holds. Needs the ``cluster`` extra.
"""
from .backend import DaskBackend
from .connect import connect, local, worker_name
from .reports import RunReport, TaskInfo, TransferRecord

__all__ = ["DaskBackend", "RunReport", "TaskInfo", "TransferRecord", "connect", "last_run", "local", "tasks",
           "worker_name"]


def last_run(session):
    """The RunReport of a cluster session's last run: its cross-task ``_Send``/``_Recv`` pairs,
    the bytes each carried and the measured time (None before the first run)."""
    return getattr(session.variables, "last_run", None)


def tasks(spec_or_session):
    """Where each task of a bound cluster runs (worker address, pid) and the variables it holds."""
    backend = getattr(spec_or_session, "backend", None)
    if not isinstance(backend, DaskBackend):
        raise ValueError("not a cluster bound to Dask workers (see devlab.cluster.local / connect)")
    return backend.task_infos()
