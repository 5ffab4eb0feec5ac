"""The one function that moves a tensor between devices.

Everything that crosses devices goes through ``transfer``: the executor calls it for each
``_Send``/``_Recv`` pair. Between host-memory devices (CPUs and simulated GPUs, all numpy) the
array is handed over without a copy, as TensorFlow's in-process rendezvous does: values are
never mutated in place. To or from a real GPU, CuPy copies it (host to device, device to host,
or peer to peer), on the destination device.
Copies involving a real GPU are ordered with CUDA events: the destination's stream waits for
the source's stream, so kernels on different GPUs run concurrently yet never read too early.
"""
from . import gpu


def transfer(value, src, dst):
    """``value`` (an array on ``src``) as an array on ``dst``."""
    to_gpu = dst.backend == "cupy"
    from_gpu = src.backend == "cupy"
    if not to_gpu and not from_gpu:
        return value
    cp = (dst if to_gpu else src).xp
    if from_gpu:  # the value exists once its producer's stream has run up to here
        with cp.cuda.Device(src.physical_id):
            ready = gpu.stream_of(src).record()
    if not to_gpu:
        with cp.cuda.Device(src.physical_id):
            ready.synchronize()
            return cp.asnumpy(value)
    with gpu.on_device(dst):
        if from_gpu:
            gpu.stream_of(dst).wait_event(ready)  # the GPU waits; the host does not
            if src.physical_id == dst.physical_id:
                return value  # two logical GPUs on one card share its memory
        return cp.asarray(value)  # host->device, or a peer copy between cards


def nbytes(value):
    """Bytes a value occupies (0 for a value without an array, such as a NoOp's)."""
    return int(getattr(value, "nbytes", 0) or 0)
