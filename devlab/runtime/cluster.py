"""Simulated clusters: ``ClusterSpec`` and an in-process ``Server`` whose target a Session uses.

A session on a server's target gets devices for every task of every job
(``/job:ps/replica:0/task:0/device:CPU:0``, ``/job:worker/...``), all in this process, so a
parameter-server program can be placed, run, logged and drawn on one machine. Ops that name
no job go to the server's own task, as TensorFlow's master prefers the client's devices.
"""
import itertools


class ClusterSpec:
    """Jobs and their tasks: ``{"ps": ["ps0:2222"], "worker": ["w0:2222", "w1:2222"]}``."""

    def __init__(self, cluster):
        if isinstance(cluster, ClusterSpec):
            cluster = cluster.as_dict()
        self._jobs = {}
        for job, tasks in dict(cluster).items():
            self._jobs[job] = dict(tasks) if isinstance(tasks, dict) else dict(enumerate(tasks))

    @property
    def jobs(self):
        return sorted(self._jobs)

    def num_tasks(self, job_name):
        if job_name not in self._jobs:
            raise ValueError(f"No such job in cluster: {job_name!r}")
        return len(self._jobs[job_name])

    def task_indices(self, job_name):
        return sorted(self._jobs[job_name])

    def job_tasks(self, job_name):
        return [self._jobs[job_name][i] for i in sorted(self._jobs[job_name])]

    def as_dict(self):
        return {job: [tasks[i] for i in sorted(tasks)] for job, tasks in self._jobs.items()}

    def as_cluster_def(self):
        return self

    def tasks(self):
        """Every (job, task index) in the cluster."""
        return [(job, i) for job in self.jobs for i in self.task_indices(job)]

    def __bool__(self):
        return bool(self._jobs)

    def __eq__(self, other):
        return isinstance(other, ClusterSpec) and self.as_dict() == other.as_dict()

    def __repr__(self):
        return f"ClusterSpec({self.as_dict()!r})"


_servers = {}
_ids = itertools.count()


class Server:
    """An in-process stand-in for ``tf.train.Server``: its ``target`` opens a Session on the
    whole simulated cluster, local to (``job_name``, ``task_index``)."""

    def __init__(self, server_or_cluster_def, job_name=None, task_index=0, protocol=None, config=None, start=True):
        self.cluster = ClusterSpec(server_or_cluster_def)
        self.job_name = job_name or self.cluster.jobs[0]
        self.task_index = task_index
        self.config = config
        self.target = f"devlab://{self.job_name}/{task_index}/{next(_ids)}"
        _servers[self.target] = self

    def start(self):
        pass

    def join(self):
        raise RuntimeError("devlab simulates every task in one process: there is no server to join")


def lookup(target):
    """The Server behind a session target, or None for the local target ``""``."""
    if not target:
        return None
    if target not in _servers:
        raise ValueError(f"devlab cannot reach {target!r}: only targets of devlab.train.Server exist here")
    return _servers[target]
