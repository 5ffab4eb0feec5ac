"""What the tasks of an in-process cluster hold: TF's per-server ``ResourceMgr``, kept by address.

In TensorFlow a task's variables, queues and accumulators live in its server, so every client
Session that reaches the cluster (one per worker in between-graph replication) sees the same
ones: the chief initialises a variable on the ps and the other workers read it. A
``tf.train.Server`` on a plain ClusterSpec runs in this process, so its task's state is kept
here, one ``TaskState`` per address, for as long as the process lives: every Session on any
target of the cluster finds a device's resources and variables through the address of the task
that owns the device. Resources sit in containers (``"localhost"`` unless an op names one);
``tf.Session.reset(target, containers)`` empties them on every task of the target's cluster and
closes the sessions whose master is that target, as TF does.
"""
import threading
import weakref

from ..framework import errors
from ..ops.resource_mgr import ResourceMgr
from .variable_store import VariableStore, hold

DEFAULT_CONTAINER = "localhost"

_tasks = {}  # address -> TaskState
_lock = threading.Lock()


class SharedStore(VariableStore):
    """The variables of one container on one device, which runs of several sessions read and
    commit. It never hands a replaced buffer back for an in-place write: a run of another session
    may still be reading it."""

    def new_buffer(self, name, like, xp):
        return xp.empty_like(like)

    def copy_for_rows(self, name, value, xp, rows):
        return _copy(value, xp)

    def rows_in_place(self, run, name, rows):
        return None  # a session reading through ``Snapshot`` is no run the store counts


def _copy(value, xp):
    buffer = xp.empty_like(value)
    xp.copyto(buffer, value)
    return buffer


class TaskState:
    """One task's state: a ResourceMgr per device and a variable store per (device, container)."""

    def __init__(self, address):
        self.address = address
        self._lock = threading.Lock()
        self.managers = {}  # device name -> ResourceMgr
        self.stores = {}  # (device name, container) -> SharedStore
        self.sessions = weakref.WeakSet()  # the sessions whose master is this task (its target)

    def manager(self, device_name):
        with self._lock:
            found = self.managers.get(device_name)
            if found is None:
                found = self.managers[device_name] = ResourceMgr(device_name)
            return found

    def store(self, device_name, container):
        key = (device_name, container or DEFAULT_CONTAINER)
        with self._lock:
            found = self.stores.get(key)
            if found is None:
                found = self.stores[key] = SharedStore()
            return found

    def reset(self, containers):
        """Forgets the variables and resources of ``containers`` (None: every container)."""
        with self._lock:
            wanted = None if containers is None else {c or DEFAULT_CONTAINER for c in containers}
            for key in [k for k in self.stores if wanted is None or k[1] in wanted]:
                del self.stores[key]
            for manager in self.managers.values():
                manager.clear(wanted)


def task_state(address):
    """The state of the task at ``address`` (made empty on first use)."""
    with _lock:
        found = _tasks.get(address)
        if found is None:
            found = _tasks[address] = TaskState(address)
        return found


def device_state(cluster, device):
    """The TaskState of the task that owns ``device`` in ``cluster``."""
    return task_state(cluster.task_address(device.job, device.task))


def reset(server, containers=None):
    """``tf.Session.reset``: empties ``containers`` on every task of the server's cluster and
    closes the sessions whose master is the server."""
    for job, index in server.cluster.tasks():
        task_state(server.cluster.task_address(job, index)).reset(containers)
    for session in list(task_state(server.cluster.task_address(server.job_name, server.task_index)).sessions):
        session._aborted = True


class ClusterVariables:
    """A session's view of the variables of an in-process cluster: each variable is read and
    written in the store of its device's task (found through the session's placement), so
    sessions of other clients see its value. It has the interface of ``VariableStore``."""

    def __init__(self, session, cluster):
        self.session, self.cluster = session, cluster
        self._where = {}  # variable name -> (address, device name, container)

    def _key(self, name):
        key = self._where.get(name)
        if key is None:
            session = self.session
            placement = session.placement or session.ensure_placed()
            try:
                op = session.graph.get_operation_by_name(name)
                device = placement.device_of(op)
                container = op.attrs.get("container", "") if hasattr(op.attrs, "get") else ""
                container = container.decode() if isinstance(container, bytes) else container
            except (KeyError, ValueError):
                device, container = session.host, ""
            address = self.cluster.task_address(device.job, device.task)
            key = self._where[name] = (address, device.name, container or DEFAULT_CONTAINER)
        return key

    def store_of(self, name):
        address, device_name, container = self._key(name)
        return task_state(address).store(device_name, container)

    @property
    def values(self):
        return Snapshot(self)

    def open_run(self):
        return Snapshot(self)

    def close_run(self, writes=None, made=(), undo=()):
        if writes:
            self.assign(writes)

    def assign(self, values):
        groups = {}
        for name, value in values.items():
            groups.setdefault(id(store := self.store_of(name)), (store, {}))[1][name] = value
        for store, group in groups.values():
            store.assign(group)

    def publish(self, run):
        """Makes the writes ``run`` made so far visible to other sessions (before an enqueue hands
        another run what these writes are a precondition of: ``framework/publishing.py``)."""
        if run.writes:
            self.assign(dict(run.writes))

    def locked(self, names):
        keyed = sorted((self._key(n), n) for n in set(names))
        return hold([self.store_of(n).lock_of(n) for _, n in keyed])

    def new_buffer(self, name, like, xp):
        return xp.empty_like(like)

    def copy_for_rows(self, name, value, xp, rows):
        return _copy(value, xp)

    def is_initialized(self, name):
        return name in self.store_of(name).values


class Snapshot:
    """The committed values a run reads, taken per store when the run first reads that store."""

    __slots__ = ("view", "seen")

    def __init__(self, view):
        self.view, self.seen = view, {}

    def _values(self, name):
        store = self.view.store_of(name)
        found = self.seen.get(id(store))
        if found is None:
            found = self.seen[id(store)] = store.values
        return found

    def get(self, name, default=None):
        return self._values(name).get(name, default)

    def __contains__(self, name):
        return name in self._values(name)

    def __getitem__(self, name):
        return self._values(name)[name]


def check_open(session):
    """TF's AbortedError for a session whose master was reset."""
    if getattr(session, "_aborted", False):
        raise errors.AbortedError(None, None, f"Session {id(session):x} is not found.")
