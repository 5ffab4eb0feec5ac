"""Device specifications: parse ``/job:w/replica:0/task:1/device:GPU:0``, merge partial specs.

Follows TensorFlow 2.x's ``DeviceSpecV2`` (``tf.compat.v1.DeviceSpec``): the string is split on
``/`` and each piece on ``:``; unset fields stay None; ``to_string`` prints the fields in a
fixed order. Merging lets each field that the *inner* spec sets overwrite the outer one.
"""
import functools

# Device types recognised in the short forms ``/gpu:0`` and ``CPU:1`` (TF's registered types).
# the types a bare piece may name (TF 2.x ``_VALID_DEVICE_TYPES``; XLA_GPU needs ``/device:XLA_GPU``)
SHORT_DEVICE_TYPES = ("CPU", "GPU", "TPU", "CUSTOM", "EPU")


class DeviceSpecV2:  # TF 2.x's tf.DeviceSpec: immutable
    """A (possibly partial) device: job, replica, task, device type and index; None when unset.

    Immutable, as TF 2.x's ``DeviceSpecV2``: ``replace`` and ``make_merged_spec`` return new
    specs, and there is no ``merge_from``. ``DeviceSpec`` (TF1's) below adds the setters.
    """

    __slots__ = ("_job", "_replica", "_task", "_device_type", "_device_index")

    def __init__(self, job=None, replica=None, task=None, device_type=None, device_index=None):
        self._job = None if job is None else str(job)
        self._replica = None if replica is None else int(replica)
        self._task = None if task is None else int(task)
        self._device_type = _device_type(device_type)
        self._device_index = None if device_index is None else int(device_index)

    job = property(lambda self: self._job)
    replica = property(lambda self: self._replica)
    task = property(lambda self: self._task)
    device_type = property(lambda self: self._device_type)
    device_index = property(lambda self: self._device_index)

    @classmethod
    def from_string(cls, spec):
        """Parses a device string; raises ValueError with TensorFlow's words when it is malformed."""
        if spec and not isinstance(spec, str):
            raise TypeError(f"A device is a string, a DeviceSpec, a function or None, got {spec!r}")
        return cls(*_parse(spec or ""))

    def parse_from_string(self, spec):
        """TF 2.x: a new spec parsed from ``spec`` (this one is unchanged)."""
        return self.from_string(spec)

    def to_string(self):
        """The canonical form: ``/job:J/replica:R/task:T/device:TYPE:IDX``, unset fields omitted."""
        out = []
        if self._job is not None:
            out.append("/job:" + self._job)
        if self._replica is not None:
            out.append(f"/replica:{self._replica}")
        if self._task is not None:
            out.append(f"/task:{self._task}")
        if self._device_type is not None:
            index = "*" if self._device_index is None else str(self._device_index)
            out.append(f"/device:{self._device_type}:{index}")
        return "".join(out)

    def make_merged_spec(self, dev):
        """A new spec: self's fields, overwritten by each field that ``dev`` sets."""
        return self.__class__(*(d if d is not None else s for s, d in zip(self._fields(), dev._fields())))

    def replace(self, **kwargs):
        """A new spec with the fields named in ``kwargs`` replaced (None unsets one)."""
        fields = dict(zip(("job", "replica", "task", "device_type", "device_index"), self._fields()))
        fields.update(kwargs)
        return self.__class__(**fields)

    def _fields(self):
        return (self._job, self._replica, self._task, self._device_type, self._device_index)

    def __eq__(self, other):
        return isinstance(other, self.__class__) and self._fields() == other._fields()

    def __hash__(self):
        return hash(self._fields())

    def __repr__(self):
        return (f"<DeviceSpec(job={self.job}, replica={self.replica}, task={self.task}, "
                f"device_type={self.device_type}, device_index={self.device_index})>")


def _device_type(device_type):
    # Lowercase cpu/gpu are accepted for backwards compatibility and upper-cased, as TF does.
    if device_type in ("cpu", "gpu"):
        return device_type.upper()
    return None if device_type is None else str(device_type)


def _setter(field, convert):
    def set_field(self, value):
        setattr(self, field, convert(value))
    return set_field


def _int_or_none(value):
    return None if value is None else int(value)


class DeviceSpec(DeviceSpecV2):  # TF's DeviceSpecV1 (tf.compat.v1.DeviceSpec)
    """TF1's mutable spec: fields can be set, ``merge_from`` and ``parse_from_string`` mutate it."""

    __slots__ = ()

    job = DeviceSpecV2.job.setter(_setter("_job", lambda v: None if v is None else str(v)))
    replica = DeviceSpecV2.replica.setter(_setter("_replica", _int_or_none))
    task = DeviceSpecV2.task.setter(_setter("_task", _int_or_none))
    device_type = DeviceSpecV2.device_type.setter(_setter("_device_type", _device_type))
    device_index = DeviceSpecV2.device_index.setter(_setter("_device_index", _int_or_none))

    def merge_from(self, dev):
        """Overwrites self's fields with each field that ``dev`` sets (TF1's mutating merge)."""
        self._assign(self.make_merged_spec(dev))

    def parse_from_string(self, spec):
        """TF1's mutating parse: replaces every field with those of ``spec``, and returns self."""
        self._assign(DeviceSpec.from_string(spec))
        return self

    def _assign(self, other):
        self._job, self._replica, self._task, self._device_type, self._device_index = other._fields()


@functools.lru_cache(maxsize=4096)
def _parse(spec):
    """The five fields of a device string (memoised: programs name the same few devices)."""
    fields = dict(job=None, replica=None, task=None, device_type=None, device_index=None)
    for piece in spec.split("/"):
        parts = piece.split(":")
        n, head = len(parts), parts[0]
        if n == 2 and head in ("job", "replica", "task"):
            fields[head] = parts[1] if head == "job" else int(parts[1])
        elif n in (1, 2) and head.upper() in SHORT_DEVICE_TYPES:
            _set_type(fields, spec, head.upper(), parts[1] if n == 2 else "*")
        elif n == 3 and head == "device":
            _set_type(fields, spec, parts[1], parts[2])
        elif head:
            raise ValueError(f"Unknown attribute '{head}' is encountered while parsing the "
                             f"device spec: '{spec}'.")
    return tuple(fields.values())


def _set_type(fields, spec, device_type, index):
    if fields["device_type"] is not None:
        raise ValueError(f"Multiple device types are not allowed while parsing the device spec: {spec}.")
    fields["device_type"] = device_type
    fields["device_index"] = None if index == "*" else int(index)


def canonical_name(device):
    """The canonical string of a device string or DeviceSpec; ``""`` for None."""
    if device is None:
        return ""
    if isinstance(device, DeviceSpecV2):
        return device.to_string()
    return DeviceSpec.from_string(device).to_string()


def check_valid(spec):
    """Raises ValueError if ``spec`` is not a valid device string."""
    DeviceSpec.from_string(spec)


class MergeDevice:
    """A device function that fills the unset fields of an op's device from one spec.

    ``tf.device("/job:ps")`` pushes one of these: the op's own (inner) fields win, so nested
    partial scopes combine ``/job:worker`` and ``/device:GPU:0`` into ``/job:worker/device:GPU:0``.
    """

    def __init__(self, spec):
        self.spec = spec if isinstance(spec, DeviceSpecV2) else DeviceSpec.from_string(spec)
        self.label = self.spec.to_string()
        self._merged = {}  # inner device string -> merged string (a loop merges the same few)

    def __call__(self, op):
        return self.merged(op.device)

    def merged(self, inner):
        """``inner`` (a device string) with this spec filling its unset fields, canonical."""
        out = self._merged.get(inner)
        if out is None:
            out = self._merged[inner] = self.spec.make_merged_spec(DeviceSpec.from_string(inner)).to_string()
        return out

    @property
    def is_null_merge(self):
        return not self.label

    def __str__(self):
        return self.label


def merge_device(spec):
    """TF1's ``pydev.merge_device``: a device function merging ``spec`` under the op's device."""
    return MergeDevice(spec)


DeviceSpecV1 = DeviceSpec  # TF's name for the TF1 (mutable) spec
