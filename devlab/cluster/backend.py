"""The Dask backend: the master's side of running each task on a Dask worker.

The Session places the graph and compiles its plan as it does in-process; this backend splits
the plan by task (``split.py``), sends each task's part to that task's runtime (an object in
its worker's process, ``task_runtime.py``) once, and then runs it as one transaction:

* phase one: every task runs its part at once; tensors that cross tasks go from worker to
  worker; each task ends *prepared* (its writes held back) and votes;
* phase two: a task that writes variables commits once every other task of the run voted;
  if any task failed (a kernel error, an unreachable worker), the master aborts the run on
  every task, so no task changes a variable. The votes travel with the tasks' last values,
  so the commit costs no extra round trip from the master.

A worker that cannot be reached is TF's ``UnavailableError`` naming its task; its handle is
dropped, and the next run that needs the task finds the task's worker again (Dask's nanny
restarts a killed worker under the same name) and starts a fresh, empty runtime there: the
variables it held are gone until a ``Saver`` restores them.

Dask's public API finds the tasks' workers and starts the runtimes there (``Client.run(...,
workers=[address])``, which runs exactly where it is told); the runs themselves go over the data plane
(``channel.py``): a blocking socket call from the user's thread to the coordinating task, so a
step pays no hop through the client's event loop and a lost worker fails the call at once. No
error of Dask's own (``CommClosedError``) reaches the user: each is TF's ``UnavailableError``.
"""
import importlib.util
import itertools
import threading
import time
import uuid
import weakref

import numpy as np

from .. import config as devlab_config
from ..devices.device import Device
from ..framework import errors
from ..runtime import cluster as cluster_mod
from ..runtime.events import StepFinished, Transfer
from ..runtime.steps import OpStep
from ..runtime.variable_store import hold
from .reports import RunReport, TaskInfo, TransferRecord
from .split import split_plan, task_name
from .task_runtime import start_runtime
from . import channel, py_funcs

FIND_WORKER_SECONDS = 60.0  # how long to wait for a task's worker to (re)appear
CLOSE_SECONDS = 5  # how long closing waits for Dask's client and cluster
DIRECT_FEED_BYTES = 1 << 16  # feeds above this size go straight to their task's worker


class TaskHandle:
    """Where one task's runtime lives: the worker's address, its process, where it listens."""

    def __init__(self, task, address, info):
        self.task, self.address = task, address
        self.pid, self.worker_name = info["pid"], info["name"]
        self.endpoint = tuple(info["endpoint"])  # where the runtime listens (channel.py)
        self.pool = channel.Pool(self.endpoint)
        self.lost = False
        self.registered = set()  # plan keys this runtime has received

    def __repr__(self):
        return f"<task {task_name(self.task)} on {self.address} (pid {self.pid})>"


class DaskBackend(cluster_mod.ClusterBackend):
    """Runs the tasks of a ClusterSpec on Dask workers (see ``devlab.cluster.local``/``connect``)."""

    def __init__(self, client, selectors, cluster=None):
        self.client = client
        self.selectors = dict(selectors)  # task -> ("name", worker name) | ("address", worker address)
        self.cluster = cluster  # the LocalCluster this backend started, or None
        self.spec = None  # the bound ClusterSpec (set by whoever binds it)
        self.handles = {}
        self._dead = set()  # (address, Dask's worker id) of workers found gone, which the scheduler may still list
        self._worker_ids = {}  # address -> the id of the worker last seen there
        self.uid = uuid.uuid4().hex[:10]
        self._ids = itertools.count()
        self._splits = weakref.WeakKeyDictionary()  # plan -> (plan key, Split)
        self._lock = threading.RLock()
        self._closed = threading.Event()
        _live.add(self)
        cluster_mod.add_resolver(_resolve_target)

    # -- the per-task interface ------------------------------------------------------------------
    def attach(self, job_name, task_index):
        self.handle((job_name, task_index))

    def devices(self, device_count):
        device_count = dict(device_count or {})
        n_cpu = int(device_count.get("CPU", devlab_config.get("default_cpus") or 1))
        n_gpu = int(device_count.get("GPU", devlab_config.simulated_gpus() or 0))
        devices = []
        for task in self.spec.tasks():
            h = self.handle(task)
            where = f"Dask worker {h.address} (name {h.worker_name}, pid {h.pid})"
            for i in range(n_cpu):
                devices.append(Device(task[0], 0, task[1], "CPU", i, np,
                                      description=f"device: {i}, name: CPU on {where}"))
            for i in range(n_gpu):
                devices.append(Device(task[0], 0, task[1], "GPU", i, np, simulated=True, description=(
                    f"device: {i}, name: Simulated GPU (devlab, numpy-backed) on {where}, pci bus id: "
                    f"simulated:{i}, compute capability: 9.0")))
        return devices

    def variables(self, session):
        return RemoteVariables(self, session)

    def new_run(self, plan, variables, feed_values, host, subscribers=()):
        return DistributedRun(self, plan, variables, feed_values, subscribers)

    def close_session(self, session):
        state = session.variables
        for h in list(self.handles.values()):
            if not h.lost and not self._closed.is_set():
                try:
                    self._tell(h, "forget", state.key)
                except Exception:  # noqa: BLE001 - a lost worker has nothing to forget
                    pass

    def join(self, job_name, task_index, timeout=None):
        deadline = None if timeout is None else time.monotonic() + timeout
        while not self._closed.is_set():
            if deadline is not None and time.monotonic() >= deadline:
                return
            if self._current_address((job_name, task_index)) is None:
                return
            self._closed.wait(0.5 if deadline is None else max(0.0, min(0.5, deadline - time.monotonic())))

    def close(self):
        if self._closed.is_set():
            return
        self._closed.set()
        _live.discard(self)
        for h in self.handles.values():
            h.pool.close()
        try:  # bounded: with the scheduler gone, Dask would wait for it for its comm timeout (30 s)
            self.client.close(timeout=CLOSE_SECONDS)
        except Exception:  # noqa: BLE001 - a client whose scheduler is gone
            pass
        if self.cluster is not None:
            try:
                self.cluster.close(timeout=CLOSE_SECONDS)
            except Exception:  # noqa: BLE001
                pass

    @property
    def scheduler_address(self):
        """The Dask scheduler's address: what another process passes to ``devlab.cluster.connect``."""
        return self.client.scheduler.address

    @property
    def dashboard_link(self):
        """The Dask dashboard's address, or None when it is not running (it needs bokeh)."""
        try:
            info = self.client.scheduler_info()
        except Exception:  # noqa: BLE001
            return None
        if "dashboard" not in info.get("services", {}):
            return None
        if self.cluster is not None and importlib.util.find_spec("bokeh") is None:
            return None  # the scheduler serves no dashboard pages without bokeh
        return self.client.dashboard_link

    # -- tasks -----------------------------------------------------------------------------------
    def handle(self, task):
        """The task's runtime: the one this client knows, or the one another client started on the
        task's worker, or a new one (a task whose worker was replaced starts empty)."""
        with self._lock:
            h = self.handles.get(task)
            if h is not None and not h.lost:
                return h
            if self._closed.is_set():
                raise errors.UnavailableError(None, None, f"{task_name(task)}: the cluster was closed")
            h = self.handles[task] = self._resolve(task)
            return h

    def _resolve(self, task):
        """The task's runtime on the worker that serves it now: the one every client of the cluster
        shares, started there by the first (``task_runtime.start_runtime``)."""
        deadline = time.monotonic() + FIND_WORKER_SECONDS
        while True:
            address = self._find_worker(task)
            try:
                info = self.client.run(start_runtime, task_name(task), workers=[address])[address]
                break
            except Exception as e:  # noqa: BLE001 - Dask's CommClosedError, a worker gone...: TF's class
                self._mark_dead(address)  # the scheduler may list a killed worker for a moment
                if time.monotonic() > deadline or self._closed.is_set():
                    raise errors.UnavailableError(None, None, f"{task_name(task)}: the Dask worker at {address} "
                                                              f"cannot be reached ({type(e).__name__}: {e})") from None
                time.sleep(0.2)
        return TaskHandle(task, address, info)

    def _find_worker(self, task):
        """The address of the worker that serves ``task`` now (waiting for a restarted one)."""
        deadline = time.monotonic() + FIND_WORKER_SECONDS
        while True:
            address = self._current_address(task)
            if address is not None:
                return address
            if time.monotonic() > deadline:
                kind, value = self.selectors[task]
                raise errors.UnavailableError(None, None, f"{task_name(task)}: no Dask worker with {kind} {value!r} "
                                                          f"joined the scheduler in {FIND_WORKER_SECONDS:.0f} s")
            time.sleep(0.2)

    def _current_address(self, task):
        kind, value = self.selectors[task]
        try:
            workers = workers_of(self.client)
        except Exception:  # noqa: BLE001 - the scheduler is gone
            return None
        for address, w in workers.items():
            self._worker_ids[address] = w.get("id")
            if (address, w.get("id")) in self._dead:
                continue
            if (kind == "name" and str(w.get("name")) == str(value)) or (kind == "address" and address == value):
                return address
        return None

    def _mark_dead(self, address):
        self._dead.add((address, self._worker_ids.get(address)))

    def task_infos(self):
        """Where each task runs and the variables it holds now (for the cluster view)."""
        out = []
        for task in self.spec.tasks():
            h = self.handle(task)
            try:
                variables = self._call(h, "variables", None)
            except errors.UnavailableError:
                variables = {}
            out.append(TaskInfo(task, h.address, h.pid, h.worker_name, variables))
        return out

    # -- calls -----------------------------------------------------------------------------------
    def _call(self, h, function, payload):
        """``function(payload)`` on the task's runtime, over the data plane (``channel.py``)."""
        try:
            return h.pool.call(function, payload)
        except OSError as e:
            h.lost = True
            self._mark_dead(h.address)
            raise errors.UnavailableError(None, None, f"the Dask worker at {h.address} cannot be reached "
                                                      f"({type(e).__name__}: {e})") from None
        except RuntimeError as e:
            raise errors.InternalError(None, None, f"devlab task runtime failed: {e}") from None

    def _tell(self, h, function, payload):
        try:
            h.pool.tell(function, payload)
        except OSError:
            h.lost = True
            self._mark_dead(h.address)

    # -- running a plan ----------------------------------------------------------------------------
    def split(self, plan, state):
        """(plan key, Split) of a plan, made once."""
        found = self._splits.get(plan)
        if found is None:
            graph = state.session.graph
            found = (f"{state.key}/{next(self._ids)}", split_plan(plan, graph.seed, py_funcs.shipped))
            self._splits[plan] = found
        return found

    def run(self, state, plan, feed_values, trace, timeout_ms=0):
        """Runs every task's part (each writing task commits once all voted); returns (run id,
        {task: reply}, handles), or raises after the run was aborted on every task. A part that
        waits (a dequeue) longer than ``timeout_ms`` fails with DeadlineExceededError."""
        plan_key, split = self.split(plan, state)
        for attempt in range(2):
            run_id = f"{self.uid}:{next(self._ids)}"
            handles = {t: self.handle(t) for t in split.parts}
            coordinator = self._coordinator(state, split)
            replies, failures = self._run(run_id, plan_key, split, handles, feed_values, trace, coordinator,
                                          timeout_ms)
            stale = [t for t, f in failures.items() if f[0] == "NeedPlan"]
            if not stale or attempt:
                break
            for t in stale:  # a runtime that lost the plan (a replaced worker): send it again
                handles[t].registered.discard(plan_key)
        if failures:
            raise self._error(state, failures, handles)
        for t in split.parts:
            handles[t].registered.add(plan_key)
        return run_id, replies, handles

    @staticmethod
    def _coordinator(state, split):
        """The task that runs the others' parts: the first that writes variables (it decides the
        commit), else the session's own task, else the first task of the run."""
        if split.writers:
            return split.writers[0]
        local = state.session.local_task
        return local if local in split.parts else min(split.parts)

    def _run(self, run_id, plan_key, split, handles, feeds, trace, coordinator, timeout_ms=0):
        peers = {t: h.endpoint for t, h in handles.items()}
        for t in split.writers if len(split.writers) > 1 else ():  # locks in task order: no deadlock
            try:
                self._call(handles[t], "lock", run_id)
            except errors.UnavailableError as e:
                self._abort_all(run_id, handles)
                return {}, {t: ("UnavailableError", None, e.message, t)}
        subs = {}
        for t, part in split.parts.items():
            vote_to = [w for w in split.writers if w != t]
            sub = {"run": run_id, "plan": plan_key, "trace": trace, "vote_to": vote_to, "timeout_ms": timeout_ms,
                   "voters": [o for o in split.parts if o != t] if part.writes else [],
                   "peers": {p: peers[p] for p in set(part.peers) | set(vote_to)}}
            if plan_key not in handles[t].registered:
                sub["part"] = part
            values = [feeds[p] for p, _ in part.feeds]
            if t != coordinator and sum(getattr(v, "nbytes", 0) for v in values) > DIRECT_FEED_BYTES:
                # large feeds go straight to their task; small ones ride with the run's request
                sub["feeds"] = None
                self._tell(handles[t], "deliver", (run_id, [(("feeds",), values)], time.time()))
            else:
                sub["feeds"] = values
            subs[t] = sub
        request = {"run": run_id, "mine": subs.pop(coordinator), "others": subs, "peers": peers}
        try:
            reply = self._call(handles[coordinator], "coordinate", request)
        except errors.UnavailableError as e:
            self._abort_all(run_id, handles)
            return {}, {coordinator: ("UnavailableError", None, e.message, coordinator)}
        if "failures" in reply:
            return {}, reply["failures"]
        return reply["replies"], {}

    def _abort_all(self, run_id, handles):
        for h in handles.values():
            if not h.lost:
                self._tell(h, "abort", run_id)

    def _error(self, state, failures, handles):
        """The error to raise for a failed run: an unreachable task first, then a kernel's error."""
        unavailable = [f for f in failures.values() if f[0] == "UnavailableError"]
        for f in unavailable:
            if f[3] in handles:
                handles[f[3]].lost = True
                self._mark_dead(handles[f[3]].address)
        if unavailable:
            name, _, message, task = unavailable[0]
            h = handles.get(task)
            where = f" (Dask worker {h.address}, pid {h.pid})" if h else ""
            return errors.UnavailableError(None, None, f"{task_name(task)}{where} is unavailable: {message}\n"
                                                       "The run was aborted on every task: no variable changed.")
        chosen = next((f for f in failures.values() if f[0] not in ("CancelledError", "NeedPlan")),
                      next(iter(failures.values())))
        name, op_name, message, _ = chosen
        cls = getattr(errors, name, errors.InternalError)
        op = None
        if op_name is not None:
            try:
                op = state.session.graph.get_operation_by_name(op_name)
            except (KeyError, ValueError):
                op = None
        return cls(op.node_def if op is not None else None, op, message)

    def assign(self, state, values):
        """Sets committed values on the tasks that hold the variables ({name: array})."""
        placement = state.session.placement
        by_task = {}
        for name, value in values.items():
            device = placement.device_of(name)
            by_task.setdefault((device.job, device.task), {})[name] = value
        for t, group in by_task.items():
            try:
                self._call(self.handle(t), "assign", group)
            except errors.UnavailableError as e:
                raise errors.UnavailableError(None, None, f"{task_name(t)} is unavailable: {e.message}") from None


class RemoteVariables:
    """A session's variables when they live on the tasks' workers: ``assign`` sends values there;
    the session keeps only a key that names it on the workers and its last run's report."""

    def __init__(self, backend, session):
        self.backend = backend
        self._session = weakref.ref(session)
        self.key = f"{backend.uid}/s{next(backend._ids)}"
        self._write_locks = {}  # variable name -> the lock a run of this session writing it holds
        self._last = None  # the last run committed, or its RunReport once asked for

    @property
    def last_run(self):
        """The RunReport of the last run (made when asked: a step does not pay for it)."""
        if isinstance(self._last, DistributedRun):
            self._last = self._last._report()
        return self._last

    def locked(self, names):
        """The locks a run holds from start to commit: one per variable it writes, taken in name
        order (a run waiting in a dequeue holds only its own variables', as in-process)."""
        with self.backend._lock:
            locks = [self._write_locks.setdefault(n, threading.RLock()) for n in sorted(set(names))]
        return hold(locks)

    @property
    def session(self):
        return self._session()

    def assign(self, values):
        self.backend.assign(self, values)

    @property
    def values(self):
        raise errors.UnimplementedError(None, None, "The stepper runs a plan in this process; this session runs "
                                                    "each task on its Dask worker. Step through it in-process.")

    def open_run(self):
        return self.values


class ValueInfo:
    """The shape and size of a value that stayed on its worker (what the tracer reads)."""

    __slots__ = ("shape", "nbytes")

    def __init__(self, shape, nbytes):
        self.shape, self.nbytes = shape, nbytes


class DistributedRun:
    """One run of a plan on the cluster, with ``runtime.run.Run``'s interface."""

    def __init__(self, backend, plan, variables, feed_values, subscribers=()):
        self.backend, self.plan, self.state = backend, plan, variables
        self.feed_values = feed_values
        self.subscribers = list(subscribers)
        self.replies = None
        self.closed = False
        self.timeout_ms = 0  # the run's time limit (Session.run sets it from RunOptions / ConfigProto)

    def run_to_end(self):
        start = time.perf_counter()
        self.run_id, self.replies, self.handles = self.backend.run(
            self.state, self.plan, self.feed_values, bool(self.subscribers), self.timeout_ms)
        self.seconds = time.perf_counter() - start
        if self.subscribers:
            for event in self._events():
                for fn in self.subscribers:
                    fn(event)

    def fetch(self):
        out = [None] * len(self.plan.fetches)
        for reply in self.replies.values():
            for position, value in reply["fetches"]:
                value = np.asarray(value)
                out[position] = value[()] if value.ndim == 0 else value
        return out

    def commit(self):
        """The tasks committed when every one of them had prepared; this keeps the run for its
        report (``RemoteVariables.last_run``)."""
        if not self.closed:
            self.closed = True
            self.state._last = self

    def abandon(self):
        """Nothing to undo here: a run that failed on any task was aborted on every task."""
        self.closed = True

    def _report(self):
        _, split = self.backend.split(self.plan, self.state)
        transfers = []
        for reply in self.replies.values():
            for index, sent_at, arrived, nbytes in reply["transfers"]:
                transfers.append(TransferRecord(split.cross[index], nbytes, max(arrived - sent_at, 0.0)))
        transfers.sort(key=lambda r: r.cross.index)
        tasks = {t: (h.address, h.pid) for t, h in self.handles.items()}
        return RunReport(self.run_id, tasks, transfers, self.seconds)

    def _events(self):
        """The workers' step records as the step events an in-process run would emit."""
        steps = self.plan.steps
        events = []
        for reply in self.replies.values():
            for record in reply["records"] or ():
                step = steps[record[1]]
                if record[0] == "op" and isinstance(step, OpStep):
                    ins = tuple(None if v is None else ValueInfo(*v) for v in record[4])
                    outs = tuple(None if v is None else ValueInfo(*v) for v in record[5])
                    events.append(StepFinished(step, record[2], record[3], ins, outs))
                elif record[0] == "copy":
                    events.append(Transfer(step, record[2], record[3], None, record[4]))
            for index, sent_at, arrived, nbytes in reply["transfers"]:
                events.append(Transfer(steps[index], sent_at, arrived, None, nbytes))
        events.sort(key=lambda e: (e.start, e.step.index))
        return events


def workers_of(client):
    """{address: info} of every worker the scheduler knows (Dask >= 2025 lists only a few unless
    asked for all; older versions take no such argument)."""
    try:
        return client.scheduler_info(n_workers=-1)["workers"]
    except TypeError:
        return client.scheduler_info()["workers"]


_live = weakref.WeakSet()  # backends of this process, for targets no Server named yet


def _resolve_target(target):
    """A Server for ``grpc://host:port`` when a live backend's cluster has a task at that address."""
    address = target.split("://", 1)[-1]
    for backend in list(_live):
        spec = backend.spec
        if spec is None:
            continue
        for job, index in spec.tasks():
            if spec.task_address(job, index).split("://", 1)[-1] == address:
                return cluster_mod.Server(spec, job, index)
    return None
