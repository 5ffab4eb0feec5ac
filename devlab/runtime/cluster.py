"""Clusters: ``ClusterSpec``, ``Server`` and the interface a backend implements to run tasks elsewhere.

Without a backend (the default) a cluster is *simulated*: a Session on a server's target gets
devices for every task of every job (``/job:ps/replica:0/task:0/device:CPU:0``, ...), all in
this process, so a parameter-server program can be placed, run, logged and drawn on one
machine. Ops that name no job go to the server's own task, as TensorFlow's master prefers the
client's devices.

A ``ClusterSpec`` may be *bound* to a backend (``devlab.cluster.local()`` or ``connect()`` bind
one to Dask workers). The Session then places and plans exactly as before and hands each plan
to the backend, which runs every task's part of it where that task lives. The backend is the
small per-task interface below: it names the devices of each task, holds the variables there,
and runs a plan as one transaction across the tasks. This module never imports a backend; a
backend attaches itself to the specs it binds.

Targets are TensorFlow's: ``grpc://host:port`` names the task at that address.
"""
import itertools

from ..framework import errors
from ..unimplemented import argument


class ClusterSpec:
    """Jobs and their tasks: ``{"ps": ["ps0:2222"], "worker": ["w0:2222", "w1:2222"]}``.

    ``backend`` is None for a simulated cluster, or the ``ClusterBackend`` that runs its tasks.
    """

    def __init__(self, cluster, backend=None):
        if isinstance(cluster, ClusterSpec):
            backend = backend or cluster.backend
            cluster = cluster.as_dict()
        self._jobs = {}
        for job, tasks in dict(cluster).items():
            self._jobs[job] = dict(tasks) if isinstance(tasks, dict) else dict(enumerate(tasks))
        self.backend = backend

    @property
    def jobs(self):
        return sorted(self._jobs)

    def num_tasks(self, job_name):
        if job_name not in self._jobs:
            raise ValueError(f"No such job in cluster: {job_name!r}")
        return len(self._jobs[job_name])

    def task_indices(self, job_name):
        return sorted(self._jobs[job_name])

    def task_address(self, job_name, task_index):
        """The address of one task (TF's ``ClusterSpec.task_address``)."""
        if job_name not in self._jobs:
            raise ValueError(f"No such job in cluster: {job_name!r}")
        if task_index not in self._jobs[job_name]:
            raise ValueError(f"No task with index {task_index!r} in job {job_name!r}")
        return self._jobs[job_name][task_index]

    def job_tasks(self, job_name):
        return [self._jobs[job_name][i] for i in sorted(self._jobs[job_name])]

    def as_dict(self):
        return {job: [tasks[i] for i in sorted(tasks)] for job, tasks in self._jobs.items()}

    def as_cluster_def(self):
        return self

    def tasks(self):
        """Every (job, task index) in the cluster."""
        return [(job, i) for job in self.jobs for i in self.task_indices(job)]

    def close(self):
        """Shuts the backend down (a cluster that ``devlab.cluster.local`` started stops)."""
        if self.backend is not None:
            self.backend.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False

    def __bool__(self):
        return bool(self._jobs)

    def __eq__(self, other):
        return isinstance(other, ClusterSpec) and self.as_dict() == other.as_dict()

    def __repr__(self):
        return f"ClusterSpec({self.as_dict()!r})"


class ClusterBackend:
    """The per-task interface: what a Session needs from a backend that runs tasks elsewhere.

    The Session still places the graph and compiles its plan here (the master's job); the
    backend then runs the plan's per-task parts where the tasks live.
    """

    def attach(self, job_name, task_index):
        """Checks that the task is reachable (``Server(spec, job, task)`` starts no second server)."""
        raise NotImplementedError

    def devices(self, device_count):
        """The devices of every task, named ``/job:J/replica:0/task:T/device:X:i``; their
        ``description`` names what backs them (the Device mapping block prints it)."""
        raise NotImplementedError

    def variables(self, session):
        """The session's variable store: an object with ``assign({name: array})`` (restores,
        ``load``) and ``locked(names)``, the write locks a run holds; the values themselves live on the tasks."""
        raise NotImplementedError

    def new_run(self, plan, variables, feed_values, host, subscribers=()):
        """A run of ``plan`` with the interface of ``runtime.run.Run``: ``run_to_end()`` runs
        every task's part and prepares its writes, ``fetch()`` returns the fetched values,
        ``commit()`` makes the writes visible on every task, ``abandon()`` drops them everywhere."""
        raise NotImplementedError

    def close_session(self, session):
        """Forgets what a closed session left on the tasks (its plans, its random generators)."""

    def join(self, job_name, task_index, timeout=None):
        """Blocks while the task is being served (``Server.join``)."""
        raise NotImplementedError

    def close(self):
        """Releases the backend (and a cluster it started)."""


_servers = {}
_resolvers = []  # functions target -> Server or None (a backend that can reach tasks by address)
_local_ports = itertools.count(2222)


class Server:
    """``tf.train.Server(cluster, job_name, task_index)``.

    On a simulated cluster it is a name: its ``target`` opens a Session on the whole cluster in
    this process, local to (``job_name``, ``task_index``). On a cluster bound to a backend it
    attaches to that task's worker (no second server starts) and Sessions on its target run
    each task's ops on the task's worker.
    """

    def __init__(self, server_or_cluster_def, job_name=None, task_index=None, protocol=None, config=None, start=True):
        if protocol not in (None, "grpc"):  # TF's other transports (grpc+verbs...) are not simulated
            raise argument("protocol", "tf.train.Server (only 'grpc')")
        self.cluster = ClusterSpec(server_or_cluster_def)
        if job_name is None:
            if len(self.cluster.jobs) != 1:
                raise ValueError("Must specify an explicit `job_name`.")
            job_name = self.cluster.jobs[0]
        if task_index is None:
            if self.cluster.num_tasks(job_name) != 1:
                raise ValueError("Must specify an explicit `task_index`.")
            task_index = self.cluster.task_indices(job_name)[0]
        self.job_name, self.task_index = job_name, int(task_index)
        self.config = config
        self.backend = self.cluster.backend
        address = self.cluster.task_address(self.job_name, self.task_index)
        if self.backend is not None:
            self.backend.attach(self.job_name, self.task_index)
        self.target = address if "://" in address else f"grpc://{address}"
        _servers[self.target] = self

    @property
    def server_def(self):
        return {"cluster": self.cluster, "job_name": self.job_name, "task_index": self.task_index,
                "protocol": "grpc"}

    @staticmethod
    def create_local_server(config=None, start=True):
        """A server for a one-task cluster in this process: ``/job:localhost/task:0``."""
        return Server({"localhost": [f"localhost:{next(_local_ports)}"]}, "localhost", 0, config=config, start=start)

    def start(self):
        pass

    def join(self, timeout=None):
        """Blocks while this task is served. A task on a Dask worker is served by that worker:
        this returns when the worker or its cluster goes away (or after ``timeout`` seconds)."""
        if self.backend is None:
            raise RuntimeError("devlab simulates every task of this cluster in one process: there is no server "
                               "to join (run the tasks on Dask workers with devlab.cluster.local() or connect())")
        self.backend.join(self.job_name, self.task_index, timeout)

    def __repr__(self):
        return f"<devlab.train.Server {self.target} (/job:{self.job_name}/task:{self.task_index})>"


def add_resolver(fn):
    """Lets a backend answer for ``grpc://`` targets no Server of this process has named yet."""
    if fn not in _resolvers:
        _resolvers.append(fn)


def lookup(target):
    """The Server behind a session target, or None for the local target ``""``."""
    if not target:
        return None
    if target not in _servers:
        text = target.decode() if isinstance(target, bytes) else str(target)
        if not text.startswith("grpc://"):  # TF has session factories for "" (direct) and grpc:// only
            raise errors.NotFoundError(None, None, "No session factory registered for the given session options: "
                                                   f'{{target: "{text}"}} Registered factories are '
                                                   "{GRPC_SESSION, DIRECT_SESSION}.")
        for resolve in _resolvers:
            server = resolve(target)
            if server is not None:
                return server
        raise ValueError(f"devlab cannot reach {target!r}: no tf.train.Server of this process has that target "
                         "(to reach tasks on Dask workers, bind the ClusterSpec with devlab.cluster.connect first)")
    return _servers[target]
