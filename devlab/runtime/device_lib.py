"""``tensorflow.python.client.device_lib.list_local_devices()``: the devices a session would have.

TF1 scripts count GPUs with it (``[d for d in list_local_devices() if d.device_type == "GPU"]``),
so it lists the devices a ``tf.Session`` built with ``session_config`` gets here: devlab's
simulated GPUs included. Each entry has TF's DeviceAttributes fields. A CPU reports TF's
256 MiB ``memory_limit``; a simulated GPU has no memory to report (0); a real GPU its free memory.
"""
import zlib

from ..devices.device_set import build_devices
from ..framework.device_spec import canonical_name
from .protos import ConfigProto

CPU_MEMORY_LIMIT = 268435456  # what TF reports for its CPU device


class _Locality:
    def __init__(self, bus_id=0):
        self.bus_id = bus_id


class DeviceAttributes:
    """TF's DeviceAttributes: ``name``, ``device_type``, ``memory_limit``, ``locality``,
    ``incarnation``, ``physical_device_desc``, ``xla_global_id``."""

    def __init__(self, name, device_type, memory_limit, physical_device_desc=""):
        self.name, self.device_type, self.memory_limit = name, device_type, memory_limit
        self.locality = _Locality(1 if device_type == "GPU" else 0)
        self.incarnation = zlib.crc32(name.encode())  # stable per name (TF's is random per process)
        self.physical_device_desc = physical_device_desc
        self.xla_global_id = -1

    def __repr__(self):
        lines = [f'name: "{self.name}"', f'device_type: "{self.device_type}"', f"memory_limit: {self.memory_limit}",
                 "locality {" + (f"\n  bus_id: {self.locality.bus_id}\n" if self.locality.bus_id else "\n") + "}",
                 f"incarnation: {self.incarnation}"]
        if self.physical_device_desc:
            lines.append(f'physical_device_desc: "{self.physical_device_desc}"')
        return "\n".join(lines + [f"xla_global_id: {self.xla_global_id}"]) + "\n"


def _memory_limit(device):
    if device.device_type == "CPU":
        return CPU_MEMORY_LIMIT
    if device.simulated:
        return 0
    import cupy
    with cupy.cuda.Device(device.physical_id):
        return cupy.cuda.runtime.memGetInfo()[0]


def list_local_devices(session_config=None):
    """The local devices (``/device:CPU:0``, ``/device:GPU:0``...) of a session with this config."""
    config = session_config if session_config is not None else ConfigProto()
    return [DeviceAttributes(f"/device:{d.device_type}:{d.index}", d.device_type, _memory_limit(d), d.description)
            for d in build_devices(config.device_count)]


class _DeviceAttributes:
    """What ``Session.list_devices()`` returns per device (TF's ``session._DeviceAttributes``):
    the full ``name`` (canonical), ``device_type``, ``memory_limit_bytes`` and ``incarnation``."""

    def __init__(self, name, device_type, memory_limit_bytes, incarnation):
        self._name = canonical_name(name)
        self._device_type = device_type
        self._memory_limit_bytes = memory_limit_bytes
        self._incarnation = incarnation

    name = property(lambda self: self._name)
    device_type = property(lambda self: self._device_type)
    memory_limit_bytes = property(lambda self: self._memory_limit_bytes)
    incarnation = property(lambda self: self._incarnation)

    def __repr__(self):
        return f"_DeviceAttributes({self._name}, {self._device_type}, {self._memory_limit_bytes}, {self._incarnation})"


def session_device(device):
    """The ``_DeviceAttributes`` of one of a session's devices."""
    return _DeviceAttributes(device.name, device.device_type, _memory_limit(device), zlib.crc32(device.name.encode()))
