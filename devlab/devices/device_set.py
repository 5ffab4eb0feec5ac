"""A session's devices, from ``ConfigProto.device_count`` and the machine.

``CPU: n`` gives n numpy CPUs (TF's default is 1). ``GPU: n`` gives n GPUs: the real CUDA
GPUs first (each split into logical GPUs if configured), then simulated ones. TensorFlow can
only *hide* real GPUs with device_count; devlab can also create simulated ones, on purpose.
A cluster (``/job:ps``, ``/job:worker``) gets the same devices in each of its tasks.

Counts are checked as TF checks them (an int32 per type: ``TypeError``/``ValueError``; no CPU:
``NotFoundError``; a negative GPU count means none, as in TF) and bounded: at most
``MAX_DEVICES_PER_TYPE`` (64) devices of a type per task, else ``InvalidArgumentError``.
"""
import numbers
from collections.abc import Mapping

import numpy as np

from .. import config as devlab_config
from ..config import MAX_DEVICES_PER_TYPE
from ..framework import errors
from . import gpu
from .device import Device

_INT32_MIN, _INT32_MAX = -2 ** 31, 2 ** 31 - 1

SIMULATED_DESCRIPTION = ("device: {i}, name: Simulated GPU (devlab, numpy-backed), pci bus id: "
                         "simulated:{i}, compute capability: 9.0")


def build_devices(device_count=None, tasks=(("localhost", 0),)):
    """The sorted device list for ``device_count`` ({"CPU": n, "GPU": m}) in each (job, task)."""
    device_count = check_device_count(device_count)
    n_cpu = device_count.get("CPU", devlab_config.get("default_cpus") or 1)
    if n_cpu <= 0:
        raise errors.NotFoundError(None, None, "No CPU devices are available in this process")
    real = _real_gpus()
    default_gpus = devlab_config.simulated_gpus()
    n_gpu = max(device_count.get("GPU", len(real) if default_gpus is None else default_gpus), 0)
    for kind, n in (("CPU", n_cpu), ("GPU", n_gpu)):
        if n > MAX_DEVICES_PER_TYPE:
            raise errors.InvalidArgumentError(
                None, None, f"device_count asks for {n} {kind} devices, but devlab simulates at most "
                f"{MAX_DEVICES_PER_TYPE} devices of each type (devlab.config.MAX_DEVICES_PER_TYPE); TensorFlow "
                f"would only hide devices, never create them")
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


def check_device_count(device_count):
    """``ConfigProto.device_count`` as {type: int}, with TF's errors for a value that is no int32."""
    if device_count is None:
        return {}
    if not isinstance(device_count, Mapping):
        raise TypeError(f"ConfigProto.device_count must be a dict such as {{'CPU': 1, 'GPU': 2}}, got "
                        f"{type(device_count).__name__}: {device_count!r}")
    counts = {}
    for kind, n in device_count.items():
        if not isinstance(kind, str):
            raise TypeError(f"device_count keys are device types such as 'CPU' or 'GPU', got {kind!r}")
        if not isinstance(n, numbers.Integral):
            raise TypeError(f"'{type(n).__name__}' object cannot be interpreted as an integer "
                            f"(device_count[{kind!r}] = {n!r})")
        if not _INT32_MIN <= int(n) <= _INT32_MAX:
            raise ValueError(f"Value out of range: {int(n)} (device_count[{kind!r}])")
        counts[kind] = int(n)
    return counts


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
