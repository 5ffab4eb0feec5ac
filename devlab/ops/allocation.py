"""The largest tensor a kernel may allocate, checked before numpy is asked for it.

TensorFlow's allocator refuses a tensor it cannot hold with ResourceExhaustedError "OOM when
allocating tensor with shape[...] and type float on <device> by allocator cpu". numpy would
instead try: a 16 GiB request may succeed lazily and then swap the machine to a halt, or fail
after seconds with a MemoryError. So a kernel whose output size comes from an input's *value*
(Fill's ``dims``, Tile's ``multiples``, Range's bounds...) is wrapped by ``guarded``, which works
out that size first and refuses it when it is over ``limit()``.

The bound: the memory the machine has available now (``MemAvailable``; the physical memory
where that is unknown), at most 2**40 bytes, or ``DEVLAB_MAX_TENSOR_BYTES`` when that is set (a
test lowers it). Sizes under 64 MiB are never checked, so small tensors cost nothing.
"""
import functools
import os

import numpy as np

from ..framework import errors

ENV = "DEVLAB_MAX_TENSOR_BYTES"
ALWAYS_FINE = 64 << 20
CEILING = 1 << 40


def limit():
    """The bound in bytes (see the module's docstring)."""
    if os.environ.get(ENV):
        return int(os.environ[ENV])
    return min(_available(), CEILING)


def _available():
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):
        return CEILING


def nbytes(shape, dtype):
    """The bytes of a dense tensor of ``shape`` and numpy ``dtype`` (exact, as a Python int)."""
    n = 1
    for d in shape:
        n *= max(int(d), 0)
    return n * np.dtype(dtype).itemsize


def check(k, shape, dtype):
    """TF's ResourceExhaustedError when a tensor of ``shape`` and ``dtype`` is over the bound;
    ``k`` (the kernel's context) names the device."""
    size = nbytes(shape, dtype)
    if size <= ALWAYS_FINE or size <= limit():
        return
    allocator = "cpu" if k.device.device_type == "CPU" else "GPU_0_bfc"
    raise errors.ResourceExhaustedError(
        None, None, f"OOM when allocating tensor with shape[{','.join(str(int(d)) for d in shape)}] and type "
        f"{_TF_NAME.get(np.dtype(dtype).name, np.dtype(dtype).name)} on {k.device.name} by allocator {allocator}")


_TF_NAME = {"float32": "float", "float64": "double", "float16": "half", "object": "string", "bool": "bool"}


def check_constant(k):
    """A Const too big to hold: TF fails to parse its proto when the op is run (InvalidArgumentError)."""
    value = k.attrs["value"]
    if nbytes(value.shape, value.dtype) > max(ALWAYS_FINE, limit()):
        raise errors.InvalidArgumentError(
            None, None, "Cannot parse tensor from proto: goo.gle/debugstr    \n"
            f"dtype: {k.attrs['dtype'].name}\ntensor_shape {list(value.shape)}")


def _ints(a):
    values = np.asarray(a).ravel().tolist()
    return values if isinstance(a, np.ndarray) and a.dtype.kind in "iu" else [int(v) for v in values]


def _padded(k, x, paddings, *rest):
    pairs = _ints(paddings)
    return [d + pairs[2 * i] + pairs[2 * i + 1] for i, d in enumerate(np.shape(x)) if 2 * i + 1 < len(pairs)], x.dtype


def _range(k, start, limit, delta):
    start, limit, delta = (np.asarray(v).item() for v in (start, limit, delta))
    size = 0 if delta == 0 else max(0, int(np.ceil((limit - start) / delta)))
    return [size], k.attrs["Tidx"].as_numpy_dtype


def _random(k, shape, *rest):
    return _ints(shape), k.attrs["dtype"].as_numpy_dtype


# What each op whose output size comes from an input's value will allocate: (shape, numpy dtype).
def _stitched(k, *indices_and_data):
    """DynamicStitch's output: as many rows as the largest index says, each shaped like the data's."""
    n = len(indices_and_data) // 2
    indices, data = indices_and_data[:n], indices_and_data[n:]
    rows = max((int(np.max(i)) + 1 for i in indices if np.size(i)), default=0)
    return [max(rows, 0)] + list(np.shape(data[0])[np.ndim(indices[0]):]), data[0].dtype


OUTPUTS = {
    "Fill": lambda k, dims, value: (_ints(dims), value.dtype),
    "RandomUniform": _random, "RandomStandardNormal": _random, "TruncatedNormal": _random,
    "RandomUniformInt": _random,
    "Tile": lambda k, x, multiples: ([d * m for d, m in zip(np.shape(x), _ints(multiples))], x.dtype),
    "Range": _range,
    "Pad": _padded, "PadV2": _padded, "MirrorPad": _padded,
    "OneHot": lambda k, indices, depth, on, off: (list(np.shape(indices)) + [int(depth)], on.dtype),
    "ScatterNd": lambda k, indices, updates, shape: (_ints(shape), updates.dtype),
    "DynamicStitch": _stitched, "ParallelDynamicStitch": _stitched,
    "UnsortedSegmentSum": lambda k, data, ids, n: ([int(n)] + list(np.shape(data)[np.ndim(ids):]), data.dtype),
}


def guarded(op_type, kernel):
    """``kernel`` that first checks the tensor it will make (``OUTPUTS``), or ``kernel`` itself for
    an op that allocates no more than its inputs' sizes."""
    if op_type == "Const":
        @functools.wraps(kernel)
        def run_const(k):
            check_constant(k)
            return kernel(k)
        return run_const
    output = OUTPUTS.get(op_type)
    if output is None:
        return kernel

    @functools.wraps(kernel)
    def run(k, *args):
        check(k, *output(k, *args))
        return kernel(k, *args)
    return run
