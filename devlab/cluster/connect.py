"""Where the tasks come from: a local Dask cluster, or the workers of an existing one.

``local(ps=1, worker=2)`` starts a Dask ``LocalCluster`` with one worker *process* per task,
each named after its task (``/job:ps/task:0``), all bound to 127.0.0.1, and returns a
``ClusterSpec`` bound to them. ``connect(address, cluster)`` maps the tasks of a ClusterSpec
onto the workers of a running Dask cluster. Either way, ``tf.train.Server(spec, job, task)``
attaches to its task's worker and ``tf.Session(server.target)`` runs through it.
"""
import copy
import logging
import re
import time

from ..framework.extras import require
from ..runtime.cluster import ClusterSpec
from .backend import DaskBackend, workers_of
from .split import task_name

_NAME = re.compile(r"^/job:([A-Za-z][A-Za-z0-9_]*)(?:/replica:0)?/task:(\d+)$")


def worker_name(job, index):
    """The Dask worker name that serves a task: ``/job:ps/task:0``."""
    return f"/job:{job}/task:{index}"


def local(ps=1, worker=2, *, memory_limit="auto", dashboard=True, silence_logs=logging.ERROR, verbose=True,
          **other_jobs):
    """Starts a local Dask cluster, one worker process per task, and returns its ClusterSpec.

    ``ps`` and ``worker`` (and any other ``job=count``) give the tasks of each job. Each task's
    worker is a process of its own (threads_per_worker=1) on 127.0.0.1; ``memory_limit`` is per
    worker (Dask's "auto" shares the machine's memory, or a cgroup's limit, among them).
    ``spec.close()`` (or ``with devlab.cluster.local() as spec:``) stops the cluster. With
    ``verbose`` it prints where each task runs and the link to Dask's dashboard (which needs
    bokeh, in the ``cluster`` extra).
    """
    distributed = require("distributed", "devlab.cluster.local")
    Client, LocalCluster = distributed.Client, distributed.LocalCluster  # noqa: N806 - Dask's classes
    jobs = {"ps": ps, "worker": worker, **other_jobs}
    tasks = [(job, i) for job, n in jobs.items() for i in range(int(n))]
    if not tasks:
        raise ValueError("devlab.cluster.local needs at least one task")
    cluster = LocalCluster(n_workers=0, threads_per_worker=1, processes=True, host="127.0.0.1",
                           dashboard_address="127.0.0.1:0", memory_limit=memory_limit,
                           silence_logs=silence_logs)
    try:
        for job, i in tasks:
            cluster.worker_spec[worker_name(job, i)] = copy.deepcopy(cluster.new_spec)
        cluster.scale(len(tasks))
        client = Client(cluster, set_as_default=False)
        _wait_for_workers(cluster, client, len(tasks))
    except BaseException:
        cluster.close()
        raise
    addresses = {str(w["name"]): address for address, w in workers_of(client).items()}
    backend = DaskBackend(client, {t: ("name", worker_name(*t)) for t in tasks}, cluster=cluster)
    spec = ClusterSpec({job: [_host_port(addresses[worker_name(job, i)]) for i in range(int(n))]
                        for job, n in jobs.items() if int(n)}, backend=backend)
    backend.spec = spec
    if verbose:
        link = backend.dashboard_link if dashboard else None
        print(f"devlab.cluster: {len(tasks)} Dask worker processes on 127.0.0.1 ("
              + ", ".join(f"{task_name(t)} at {_host_port(addresses[worker_name(*t)])}" for t in tasks) + ")"
              + (f"\nDask dashboard: {link}" if link else ""))
    return spec


def _wait_for_workers(cluster, client, n, timeout=120):
    """Waits until ``n`` workers joined; a worker process that failed to start stops the wait at
    once, with the usual cause."""
    from distributed.core import Status
    deadline = time.monotonic() + timeout
    while len(workers_of(client)) < n:
        if any(getattr(w, "status", None) == Status.failed for w in cluster.workers.values()):
            raise RuntimeError(
                "devlab.cluster.local: the Dask worker processes failed to start. In a script, start the "
                "cluster under `if __name__ == \"__main__\":` (Dask starts each worker with Python's spawn "
                "method, which imports the script again); the error above says more.")
        if time.monotonic() > deadline:
            raise RuntimeError(f"devlab.cluster.local: only {len(workers_of(client))} "
                               f"of {n} Dask workers started in {timeout} s")
        time.sleep(0.1)


def connect(address, cluster=None, workers=None, timeout=60):
    """Maps a ClusterSpec's tasks onto the workers of the Dask cluster at ``address``.

    Each task (job, i) is served by, in this order: the worker ``workers`` names for it
    (``{"/job:ps/task:0": worker name or address}``); a worker named ``/job:ps/task:0``; a worker
    whose address is the task's address in ``cluster``; the i-th worker (by name) that has a
    resource named after the job (``dask worker ... --resources ps=1``). Without ``cluster`` the
    tasks are read from the workers' names (``/job:J/task:N``). Returns the bound ClusterSpec.
    """
    Client = require("distributed", "devlab.cluster.connect").Client  # noqa: N806 - Dask's class
    client = Client(address, set_as_default=False, timeout=timeout)
    try:
        info = workers_of(client)
        names = {str(w.get("name")): a for a, w in info.items()}
        if cluster is None:
            found = {}
            for name, a in names.items():
                m = _NAME.match(name)
                if m:
                    found.setdefault(m.group(1), {})[int(m.group(2))] = _host_port(a)
            if not found:
                raise ValueError(f"no Dask worker at {address} is named like /job:ps/task:0: pass the ClusterSpec "
                                 "to map, or name the workers after their tasks")
            cluster = {job: dict(sorted(tasks.items())) for job, tasks in found.items()}
        spec = ClusterSpec(cluster)
        selectors = {}
        explicit = dict(workers or {})
        for job, i in spec.tasks():
            selectors[(job, i)] = _selector(job, i, spec, explicit, info, names)
    except BaseException:
        client.close()
        raise
    backend = DaskBackend(client, selectors)
    spec = ClusterSpec(spec, backend=backend)
    backend.spec = spec
    for task in spec.tasks():
        backend.handle(task)
    return spec


def _selector(job, i, spec, explicit, info, names):
    for key in (task_name((job, i)), worker_name(job, i), f"{job}/{i}"):
        if key in explicit:
            target = str(explicit[key])
            return ("address", target) if target in info else ("name", target)
    if worker_name(job, i) in names:
        return ("name", worker_name(job, i))
    wanted = spec.task_address(job, i)
    for a in info:
        if _host_port(a) == _host_port(wanted):
            return ("address", a)
    holders = sorted((str(w.get("name")), a) for a, w in info.items() if job in (w.get("resources") or {}))
    if i < len(holders):
        return ("name", holders[i][0])
    raise ValueError(f"no Dask worker serves {task_name((job, i))}: name one {worker_name(job, i)!r}, give it the "
                     f"resource {job!r}, or map it with workers={{...}}")


def _host_port(address):
    return address.split("://", 1)[-1]
