"""Resources: stateful objects that ops share through a handle (TF's ``ResourceMgr``).

A queue or a gradient accumulator is made by one op (``FIFOQueueV2``,
``ResourceConditionalAccumulator``) and used by the ops that take its handle
(``QueueDequeueV2``, ``ResourceAccumulatorApplyGradient``...). It lives in the ``ResourceMgr``
of its device under a name: the op's ``shared_name``, so that every session reaching the device
shares it (on a cluster, every worker's session sees the one token queue on the ps), or else a
name of its own for each session and node, ``_<n>_<node>``, as TF names it (a plain
``tf.Session`` gets a fresh queue). The handle is a small value naming the device and the
resource; its consumers run on the same device (the placer colocates them) and look it up there.

A Session gives each of its devices ``device.resource_manager``: a ``SessionResources`` view of
the device's manager that knows which session asks (for the anonymous names).
"""
import itertools
import threading
from dataclasses import dataclass

from ..framework import errors


@dataclass(frozen=True)
class ResourceHandle:
    """The value of a resource tensor: where the resource lives and its name."""
    device: str
    container: str
    name: str

    def __repr__(self):
        return f"<resource {self.container or 'localhost'}/{self.name} on {self.device}>"


class ResourceMgr:
    """The resources of one device, by (container, name)."""

    def __init__(self, device_name):
        self.device_name = device_name
        self._lock = threading.Lock()
        self._resources = {}
        self._anonymous = {}  # (session, node) -> the name TF gives an op without shared_name
        self._ids = itertools.count()

    def session(self, owner):
        """The view a session's device uses (``owner`` tells sessions apart)."""
        return SessionResources(self, owner)

    def lookup_or_create(self, owner, container, shared_name, node, make):
        """(handle, resource): the resource named by ``shared_name`` (or the node's own, per
        session), made by ``make(name)`` the first time."""
        if isinstance(container, bytes):  # an op's attr, as TF's get_attr gives it
            container = container.decode()
        with self._lock:
            name = shared_name
            if not name:
                name = self._anonymous.get((owner, node))
                if name is None:
                    name = self._anonymous[(owner, node)] = f"_{next(self._ids)}_{node}"
            resource = self._resources.get((container, name))
            if resource is None:
                resource = self._resources[(container, name)] = make(name)
            return ResourceHandle(self.device_name, container, name), resource

    def lookup(self, handle, kind):
        """The resource behind ``handle``; ``kind`` names its type in TF's NotFoundError."""
        resource = self._resources.get((handle.container, handle.name))
        if resource is None or not isinstance(resource, kind):
            raise errors.NotFoundError(
                None, None, f"Resource {handle.container or 'localhost'}/{handle.name}/{kind.__name__} does not "
                f"exist on {self.device_name}.")
        return resource

    def clear(self, containers=None):
        """Drops the resources of ``containers`` (None: all): ``tf.Session.reset``."""
        with self._lock:
            for key in [k for k in self._resources if containers is None or (k[0] or "localhost") in containers]:
                del self._resources[key]

    def names(self):
        with self._lock:
            return sorted(name for _, name in self._resources)


class SessionResources:
    """A device's resources as one session sees them (what ``device.resource_manager`` holds)."""

    __slots__ = ("manager", "owner")

    def __init__(self, manager, owner):
        self.manager, self.owner = manager, owner

    def create(self, container, shared_name, node, make):
        return self.manager.lookup_or_create(self.owner, container, shared_name, node, make)

    def lookup(self, handle, kind):
        if not isinstance(handle, ResourceHandle):
            raise errors.InvalidArgumentError(None, None, f"Expected a resource handle, got {type(handle).__name__}")
        return self.manager.lookup(handle, kind)


def resources_of(k):
    """The resources of the device a kernel runs on (a KernelContext ``k``)."""
    found = getattr(k.device, "resource_manager", None)
    if found is None:
        raise errors.FailedPreconditionError(
            None, None, f"{k.device.name} has no resource manager: resources live on a Session's devices")
    return found
