"""Large elementwise work split over the host's cores, as TensorFlow's Eigen kernels split theirs.

numpy runs a ufunc on one core, but it lets go of the interpreter lock while it loops, so an
update of a 10M-float variable runs about twice as fast on two cores when each thread takes
half of the elements. Elementwise arithmetic gives every element the same result whoever
computes it, so the split changes the speed, never the values.

``split(fn, shape, *args)`` calls ``fn`` once per part: every argument shaped ``shape`` is cut
into matching contiguous parts, the others (scalars, learning rates) are passed whole. Small,
non-contiguous or non-numpy arrays run in one call, in the calling thread.
"""
import os
import threading
from concurrent.futures import ThreadPoolExecutor

import numpy as np

MIN_ELEMENTS = 1 << 18  # below this (1 MB of floats) starting threads costs more than it saves

_lock = threading.Lock()
_pool = None


def cores():
    """The cores this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def _forget_pool():
    global _pool
    _pool = None  # a forked child has none of the parent's threads: it makes its own pool


os.register_at_fork(after_in_child=_forget_pool)


def _workers():
    """The pool of helper threads (one per core beyond the caller's), made on first use."""
    global _pool
    with _lock:
        if _pool is None:
            _pool = ThreadPoolExecutor(max_workers=max(1, min(cores(), 8) - 1), thread_name_prefix="devlab-split")
        return _pool


def split(fn, shape, *args):
    """``fn(*args)``, computed as one call per core on matching parts of the arrays shaped
    ``shape`` when they are large numpy arrays laid out contiguously."""
    shape = tuple(shape)
    size = 1
    for n in shape:
        size *= n
    parts = min(cores(), 8, size // MIN_ELEMENTS)
    cut = [isinstance(a, np.ndarray) and a.shape == shape for a in args]
    if parts < 2 or not all(a.flags.c_contiguous for a, c in zip(args, cut) if c):
        fn(*args)
        return
    flat = [a.reshape(-1) if c else a for a, c in zip(args, cut)]
    bounds = [size * i // parts for i in range(parts + 1)]

    def part(i):
        lo, hi = bounds[i], bounds[i + 1]
        fn(*[a[lo:hi] if c else a for a, c in zip(flat, cut)])

    pending = [_workers().submit(part, i) for i in range(1, parts)]
    errors = []
    try:
        part(0)
    except Exception as e:  # noqa: BLE001 - raised below, once every part is done with the arrays
        errors.append(e)
    for p in pending:
        if p.exception() is not None:
            errors.append(p.exception())
    if errors:
        raise errors[0]
