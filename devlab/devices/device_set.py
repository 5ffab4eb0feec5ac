"""A session's devices, from ``ConfigProto.device_count`` and the machine.

``CPU: n`` gives n numpy CPUs (TF's default is 1). ``GPU: n`` gives n GPUs: the real CUDA
GPUs first (each split into logical GPUs if configured), then simulated ones. TensorFlow can
only *hide* real GPUs with device_count; devlab can also create simulated ones, on purpose.
A cluster (``/job:ps``, ``/job:worker``) gets the same devices in each of its tasks.
"""
import numpy as np

from .. import config as devlab_config
from . import gpu
from .device import Device

SIMULATED_DESCRIPTION = ("device: {i}, name: Simulated GPU (devlab, numpy-backed), pci bus id: "
                         "simulated:{i}, compute capability: 9.0")


def build_devices(device_count=None, tasks=(("localhost", 0),)):
    """The sorted device list for ``device_count`` ({"CPU": n, "GPU": m}) in each (job, task)."""
    device_count = dict(device_count or {})
    n_cpu = int(device_count.get("CPU", devlab_config.get("default_cpus") or 1))
    real = _real_gpus()
    default_gpus = devlab_config.simulated_gpus()
    n_gpu = int(device_count.get("GPU", len(real) if default_gpus is None else max(default_gpus, 0)))
    devices = []
    for job, task in tasks:
        for i in range(n_cpu):
            devices.append(Device(job, 0, task, "CPU", i, np))
        for i in range(n_gpu):
            if i < len(real):
                physical, xp = real[i]
                devices.append(Device(job, 0, task, "GPU", i, xp, physical_id=physical,
                                      description=gpu.describe(physical)))
            else:
                devices.append(Device(job, 0, task, "GPU", i, np, simulated=True,
                                      description=SIMULATED_DESCRIPTION.format(i=i)))
    return devices


def _real_gpus():
    """(physical id, cupy) per logical GPU on the real cards, in order."""
    cp = gpu.cupy_module()
    if cp is None:
        return []
    per_card = devlab_config.get("logical_gpus_per_card")
    return [(card, cp) for card in range(gpu.physical_gpu_count()) for _ in range(per_card)]


def device_mapping(devices):
    """TF's "Device mapping:" block: one line per device with a physical description."""
    lines = [f"{d.name} -> {d.description}" for d in devices if d.description]
    if not lines:
        return "Device mapping: no known devices."
    return "Device mapping:\n" + "\n".join(lines)
