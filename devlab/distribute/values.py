"""Values with one component per device: ``PerDevice`` (may differ), ``Mirrored`` (kept equal),
``MirroredVariable`` (a variable per device, updated together) and ``TowerLocalVariable``
(a variable per device, reduced only when read)."""
from ..framework.graph_keys import GraphKeys
from ..api.control_flow_ops import group
from .context import current_device


class DistributedValues:
    def __init__(self, index):
        self._index = dict(index)  # device string -> value, in device order

    @property
    def devices(self):
        return list(self._index)

    def get(self, device=None):
        """The component on ``device`` (default: the current tower's, else the first)."""
        device = device or current_device()
        if device is None:
            return next(iter(self._index.values()))
        if device not in self._index:
            raise ValueError(f"Device {device} not found in {self.devices} (current device {device})")
        return self._index[device]

    def __repr__(self):
        items = ", ".join(f"{d!r}: {v!r}" for d, v in self._index.items())
        return f"{type(self).__name__}({{{items}}})"


class PerDevice(DistributedValues):
    """One value per device, possibly different (each tower's result)."""


class Mirrored(DistributedValues):
    """One value per device, the same on each (the result of a reduce or broadcast)."""


class WorkerDeviceIndex(PerDevice):
    """Maps each worker device to its tower index (passed through call_for_each_tower as an int)."""


class MirroredVariable(Mirrored):
    """A variable with one component per device (``v``, ``v/replica_1``...), kept in sync by
    updating every component through ``strategy.update``. Reading it inside a tower reads that
    tower's component; outside, the primary (first) one."""

    def __init__(self, index, primary):
        super().__init__(index)
        self.primary = primary

    @property
    def name(self):
        return self.primary.name

    @property
    def op(self):
        return self.get().op

    @property
    def device(self):
        return self.get().device

    @property
    def dtype(self):
        return self.primary.dtype

    @property
    def shape(self):
        return self.primary.shape

    def get_shape(self):
        return self.primary.shape

    @property
    def graph(self):
        return self.primary.graph

    @property
    def initializer(self):
        """One op running every component's initializer (built once)."""
        if getattr(self, "_initializer", None) is None:
            self._initializer = group(*[v.initializer for v in self._index.values()],
                                      name=self.primary.op.name + "/Initializer/group")
        return self._initializer

    @property
    def initial_value(self):
        return self.primary.initial_value

    def value(self):
        return self.get().value()

    def _as_graph_element(self):
        return self.get()._as_graph_element()

    def _to_tensor(self, as_ref=False):
        return self.get()._to_tensor(as_ref=as_ref)

    def _ref(self):
        return self.get()._ref()

    def assign(self, value, **kw):
        return self.get().assign(value, **kw)

    def assign_add(self, value, **kw):
        return self.get().assign_add(value, **kw)

    def assign_sub(self, value, **kw):
        return self.get().assign_sub(value, **kw)

    def eval(self, session=None):
        return self.primary.eval(session)

    def __hash__(self):
        return id(self)

    def __eq__(self, other):
        return self is other


class TowerLocalVariable(MirroredVariable):
    """One independent variable per tower; ``strategy.fetch`` reduces them with ``reduce_method``."""

    def __init__(self, index, primary, reduce_method):
        super().__init__(index, primary)
        self.reduce_method = reduce_method


COLLECTIONS_OF_WRAPPERS = (GraphKeys.GLOBAL_VARIABLES, GraphKeys.TRAINABLE_VARIABLES)


def regroup(per_device):
    """{device: value} back into one value: the shared object, a MirroredVariable, or PerDevice."""
    values = list(per_device.values())
    if all(v is values[0] for v in values):
        return values[0]
    if isinstance(values[0], (list, tuple)):
        return type(values[0])(regroup({d: v[i] for d, v in per_device.items()}) for i in range(len(values[0])))
    if isinstance(values[0], dict):
        return {k: regroup({d: v[k] for d, v in per_device.items()}) for k in values[0]}
    owners = {id(getattr(v, "_mirrored_owner", None)) for v in values}
    if len(owners) == 1 and getattr(values[0], "_mirrored_owner", None) is not None:
        return values[0]._mirrored_owner
    return PerDevice(per_device)


def select_device(device, value):
    """The component of ``value`` for ``device`` (recursing into lists, tuples and dicts)."""
    if isinstance(value, DistributedValues) and not isinstance(value, MirroredVariable):
        return value.get(device)
    if isinstance(value, (list, tuple)):
        return type(value)(select_device(device, v) for v in value)
    if isinstance(value, dict):
        return {k: select_device(device, v) for k, v in value.items()}
    return value
