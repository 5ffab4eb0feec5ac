"""Device specifications: parse ``/job:w/replica:0/task:1/device:GPU:0``, merge partial specs.

Follows TensorFlow 2.x's ``DeviceSpecV2`` (``tf.compat.v1.DeviceSpec``): the string is split on
``/`` and each piece on ``:``; unset fields stay None; ``to_string`` prints the fields in a
fixed order. Merging lets each field that the *inner* spec sets overwrite the outer one.
"""
import functools

# Device types recognised in the short forms ``/gpu:0`` and ``CPU:1`` (TF's registered types).
# the types a bare piece may name (TF 2.x ``_VALID_DEVICE_TYPES``; XLA_GPU needs ``/device:XLA_GPU``)
SHORT_DEVICE_TYPES = ("CPU", "GPU", "TPU", "CUSTOM", "EPU")


class DeviceSpec:  # TF's DeviceSpecV1 (tf.compat.v1.DeviceSpec)
    """A (possibly partial) device: job, replica, task, device type and index; None when unset."""

    __slots__ = ("job", "replica", "task", "device_type", "device_index")

    def __init__(self, job=None, replica=None, task=None, device_type=None, device_index=None):
        self.job = None if job is None else str(job)
        self.replica = None if replica is None else int(replica)
        self.task = None if task is None else int(task)
        # Lowercase cpu/gpu are accepted for backwards compatibility and upper-cased, as TF does.
        self.device_type = device_type.upper() if device_type in ("cpu", "gpu") else device_type
        self.device_index = None if device_index is None else int(device_index)

    @classmethod
    def from_string(cls, spec):
        """Parses a device string; raises ValueError with TensorFlow's words when it is malformed."""
        if spec and not isinstance(spec, str):
            raise TypeError(f"A device is a string, a DeviceSpec, a function or None, got {spec!r}")
        return cls(*_parse(spec or ""))

    def to_string(self):
        """The canonical form: ``/job:J/replica:R/task:T/device:TYPE:IDX``, unset fields omitted."""
        out = []
        if self.job is not None:
            out.append("/job:" + self.job)
        if self.replica is not None:
            out.append(f"/replica:{self.replica}")
        if self.task is not None:
            out.append(f"/task:{self.task}")
        if self.device_type is not None:
            index = "*" if self.device_index is None else str(self.device_index)
            out.append(f"/device:{self.device_type}:{index}")
        return "".join(out)

    def make_merged_spec(self, dev):
        """A new spec: self's fields, overwritten by each field that ``dev`` sets."""
        return DeviceSpec(*(d if d is not None else s for s, d in zip(self._fields(), dev._fields())))

    def merge_from(self, dev):
        """Overwrites self's fields with each field that ``dev`` sets (TF1's mutating merge)."""
        merged = self.make_merged_spec(dev)
        for k in self.__slots__:
            setattr(self, k, getattr(merged, k))

    def replace(self, **kwargs):
        fields = dict(zip(self.__slots__, self._fields()))
        fields.update(kwargs)
        return DeviceSpec(**fields)

    def parse_from_string(self, spec):
        """TF1's mutating parse: replaces every field with those of ``spec``."""
        parsed = DeviceSpec.from_string(spec)
        for k in self.__slots__:
            setattr(self, k, getattr(parsed, k))
        return self

    def _fields(self):
        return (self.job, self.replica, self.task, self.device_type, self.device_index)

    def __eq__(self, other):
        return isinstance(other, DeviceSpec) and self._fields() == other._fields()

    def __hash__(self):
        return hash(self._fields())

    def __repr__(self):
        return (f"<DeviceSpec(job={self.job}, replica={self.replica}, task={self.task}, "
                f"device_type={self.device_type}, device_index={self.device_index})>")


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
    if isinstance(device, DeviceSpec):
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
        self.spec = spec if isinstance(spec, DeviceSpec) else DeviceSpec.from_string(spec)
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
