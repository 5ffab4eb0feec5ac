"""Finding real GPUs. CuPy is optional: it is imported here only, and only when asked."""
import contextlib
import functools
import os


@functools.lru_cache(maxsize=None)
def cupy_module():
    """The cupy module if a CUDA GPU is usable, else None (never raises)."""
    if os.environ.get("DEVLAB_DISABLE_CUPY"):
        return None
    try:
        import cupy
        if cupy.cuda.runtime.getDeviceCount() > 0:
            return cupy
    except Exception:  # noqa: BLE001 - no cupy, no driver, no device: all mean "no real GPU"
        return None
    return None


def physical_gpu_count():
    cp = cupy_module()
    return 0 if cp is None else cp.cuda.runtime.getDeviceCount()


def describe(physical_id):
    """TF's physical-device text for a real GPU: name, PCI bus id, compute capability."""
    cp = cupy_module()
    props = cp.cuda.runtime.getDeviceProperties(physical_id)
    name = props["name"].decode() if isinstance(props["name"], bytes) else props["name"]
    bus = cp.cuda.Device(physical_id).pci_bus_id
    return (f"device: {physical_id}, name: {name}, pci bus id: {bus}, "
            f"compute capability: {props['major']}.{props['minor']}")


def stream_of(device):
    """The CUDA stream of a real GPU device: each logical GPU gets its own, so towers overlap."""
    if device.stream is None:
        with device.xp.cuda.Device(device.physical_id):
            device.stream = device.xp.cuda.Stream(non_blocking=True)
    return device.stream


@contextlib.contextmanager
def on_device(device):
    """Kernels launched inside run on ``device``'s card and stream."""
    cp = device.xp
    with cp.cuda.Device(device.physical_id), stream_of(device):
        yield
