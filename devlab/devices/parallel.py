"""Large host-memory work split over the cores, as TensorFlow's Eigen kernels split theirs.

numpy runs a ufunc on one core, but it lets go of the interpreter lock while it loops, so an
update of a 10M-float variable runs about twice as fast on two cores when each thread takes
half of the elements. Elementwise arithmetic gives every element the same result whoever
computes it, so the split changes the speed, never the values.

``split(fn, shape, *args)`` calls ``fn`` once per part: every argument shaped ``shape`` is cut
into matching contiguous parts, the others (scalars, learning rates) are passed whole. Small,
non-contiguous or non-numpy arrays run in one call, in the calling thread.

``ranges(fn, count)`` calls ``fn(lo, hi)`` once per core on ranges of ``range(count)``: the
convolution and pooling kernels hand each core a range of images.

``matmul(a, b, out)`` splits a large matrix product the same way, by rows or columns of its
output, each part one single-threaded BLAS call. numpy's BLAS would split it over its own
threads, but those then spin, waiting for more work, for about a tenth of a second, holding a
core that the elementwise parts after the product need. Telling BLAS to use one thread needs
``threadpoolctl`` (the ``fast`` extra); without it, products are left to BLAS.

A product of a few rows by a large matrix (a batch through a layer) runs as its transpose,
``(a @ b)ᵀ = bᵀ @ aᵀ``: BLAS kernels are tuned for many output rows, and measured here (OpenBLAS,
one thread) 32 rows times a 2560 x 2560 weight take 5.7 ms as written, 3.6 ms transposed.
"""
import functools
import math
import os
import sys
import threading
from concurrent.futures import ThreadPoolExecutor, wait

import numpy as np

MIN_ELEMENTS = 1 << 18  # below this (1 MB of floats) starting threads costs more than it saves
MIN_PRODUCT = 1 << 24  # multiply-adds: below this a product is left to one BLAS call
_BLAS_TYPES = (np.dtype(np.float32), np.dtype(np.float64))

_lock = threading.Lock()
_pool = None


@functools.lru_cache(maxsize=None)
def cores():
    """The cores this process may run on (asked once: every large kernel call wants it)."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def _forget_pool():
    global _pool
    _pool = None  # a forked child has none of the parent's threads: it makes its own pool
    cores.cache_clear()


os.register_at_fork(after_in_child=_forget_pool)


def _workers():
    """The pool of helper threads (one per core beyond the caller's), made on first use."""
    global _pool
    with _lock:
        if _pool is None:
            _pool = ThreadPoolExecutor(max_workers=max(1, min(cores(), 8) - 1), thread_name_prefix="devlab-split")
        return _pool


def _parts(size, min_size):
    return min(cores(), 8, size // min_size)


def split(fn, shape, *args):
    """``fn(*args)``, computed as one call per core on matching parts of the arrays shaped
    ``shape`` when they are large numpy arrays laid out contiguously."""
    size = math.prod(shape)
    if size < 2 * MIN_ELEMENTS:
        fn(*args)  # small: the common case, first
        return
    shape = tuple(shape)
    parts = _parts(size, MIN_ELEMENTS)
    cut = [isinstance(a, np.ndarray) and a.shape == shape for a in args]
    if parts < 2 or not all(a.flags.c_contiguous for a, c in zip(args, cut) if c):
        fn(*args)
        return
    flat = [a.reshape(-1) if c else a for a, c in zip(args, cut)]
    bounds = [size * i // parts for i in range(parts + 1)]

    def part(i):
        lo, hi = bounds[i], bounds[i + 1]
        fn(*[a[lo:hi] if c else a for a, c in zip(flat, cut)])

    _run(part, parts)


def _run(part, parts):
    """``part(i)`` for every i below ``parts``, each exactly once, shared between the calling
    thread and the pool: every thread takes the next part not yet taken until none is left, so
    when the machine is busy and a helper thread does not get a core soon, the caller does its
    parts instead of waiting for it. The first error any part raised, once all are done."""
    taken = iter(range(parts))
    take = threading.Lock()
    errors = []

    def work():
        while True:
            with take:
                i = next(taken, None)
            if i is None:
                return
            try:
                part(i)
            except Exception as e:  # noqa: BLE001 - raised below, once every part is done with the arrays
                errors.append(e)

    pool = _workers()
    # workers running a program's lanes (``side_by_side``) are not asked to help: none would come
    helpers = [pool.submit(work) for _ in range(min(parts - 1, pool._max_workers - _lanes))]
    work()
    for h in helpers:
        if not h.cancel():  # a helper that started finishes the part it took
            h.result()
    if errors:
        raise errors[0]


_lanes = 0  # pool workers running a lane of a program now (``side_by_side``)

# While lanes run, each needs the interpreter lock between its kernels, and a lane that finds it
# held waits for the holder to let go: at its next call into numpy, BLAS or OpenVINO, or when
# Python asks it to after the switch interval (5 ms by default). Lanes run with 0.5 ms (the CNN
# towers of bench_models on 2 cores, steps alternated in one process: wall -3 to -5%, CPU -2 to
# -5%; 1 ms and 0.1 ms gave less; a program without lanes, the MLP step, is unchanged).
SWITCH_INTERVAL = 0.0005
_switching = [0, None]  # side_by_side calls running now, the caller's interval in µs (None: kept)


def _shorter_switches():
    """The switch interval made ``SWITCH_INTERVAL`` while lanes run, if it is longer (holding
    ``_lock``). Python keeps whole microseconds, truncated: the caller's is put back as the same
    number of them, never one less each run."""
    if _switching[0] == 0:
        before = round(sys.getswitchinterval() * 1e6)
        shorter = before > SWITCH_INTERVAL * 1e6
        _switching[1] = before if shorter else None
        if shorter:
            sys.setswitchinterval(SWITCH_INTERVAL)
    _switching[0] += 1


def _usual_switches():
    """The caller's switch interval back once the last lanes have returned (holding ``_lock``)."""
    _switching[0] -= 1
    if _switching[0] == 0 and _switching[1] is not None:
        sys.setswitchinterval((_switching[1] + 0.5) / 1e6)


def side_by_side(first, others, stop=None):
    """Runs ``first()`` in the calling thread and every function of ``others`` on a worker of the
    pool, all at once (a compiled program's lanes, ``runtime/lanes.py``), and returns once all
    have returned; False, having run nothing, when the pool has not that many workers free (a run
    inside another's lane, or two sessions at once: the caller then runs its program in one
    thread). The reserved workers take no split parts meanwhile, so the threads computing stay
    one per core, and the interpreter switches threads every ``SWITCH_INTERVAL`` at most. Every
    function catches its own errors; when the caller is interrupted, ``stop()`` tells the others
    to end and they are waited for before the interrupt goes on."""
    global _lanes
    pool = _workers()
    with _lock:
        if not others or _lanes + len(others) > pool._max_workers:
            return False
        _lanes += len(others)
        _shorter_switches()
    futures = []
    try:
        futures = [pool.submit(fn) for fn in others]
        first()
        for f in futures:
            f.result()
    except BaseException:
        if stop is not None:
            stop()
        wait(futures)  # what they still use (a program's buffers) is theirs until they end
        raise
    finally:
        with _lock:
            _lanes -= len(others)
            _usual_switches()
    return True


def ranges(fn, count, blas=False, few=False):
    """``fn(lo, hi)`` over ranges that cover ``range(count)``, one per core, in parallel (a
    kernel's images, say). ``blas``: ``fn`` calls BLAS, which is then held to one thread while
    the parts run; without threadpoolctl such work stays in one call, BLAS keeping its threads.
    ``few``: each call costs much (``count`` is then at most the cores): while a program's lanes
    hold every worker, the caller makes one call on the whole range rather than the parts in turn
    (an OpenVINO convolution of 32 images takes 7.4 ms of CPU, two of 16 images 8.0 ms)."""
    if min(cores(), 8, count) < 2 or (blas and not _blas_libraries()):
        fn(0, count)
        return
    if few and _lanes >= _workers()._max_workers:
        if blas:
            with one_blas_thread():
                fn(0, count)
        else:
            fn(0, count)
        return
    parts = min(count, 4 * min(cores(), 8))  # a few parts a core: a core that is busy takes fewer
    bounds = [count * i // parts for i in range(parts + 1)]

    def part(i):
        fn(bounds[i], bounds[i + 1])

    if blas:
        with one_blas_thread():
            _run(part, parts)
    else:
        _run(part, parts)


def matmul(a, b, out=None):
    """``a @ b`` of two matrices, into ``out`` when given, split by the output's rows (or columns,
    whichever are more) over the cores when it is large and BLAS can be held to one thread."""
    if a.size * b.shape[-1] < 1 << 20 or a.ndim != 2 or b.ndim != 2 or a.dtype != b.dtype \
            or a.dtype not in _BLAS_TYPES or not isinstance(a, np.ndarray) or not isinstance(b, np.ndarray):
        if a.ndim == 2 and a.shape[1] == 1 and b.ndim == 2 and b.shape[0] == 1 and isinstance(a, np.ndarray):
            # an outer product (a gradient of x @ ones): each element is one product, as BLAS's
            # is, without BLAS's packing (20 µs for 128 x 1 by 1 x 128, 3 µs as a multiply)
            return np.multiply(a, b, out=out)
        return np.matmul(a, b, out=out)  # small (the common case, checked first), batched or not floats
    return _large_matmul(a, b, out)


def _large_matmul(a, b, out):
    """``matmul`` of two large float matrices. (A function of its own: the parts' closure makes
    its variables cells, which cost every call of ``matmul`` 0.2 µs, a small product 1.1 µs.)"""
    (m, k), n = a.shape, b.shape[-1]
    if k != b.shape[0]:
        return np.matmul(a, b, out=out)  # numpy's own error
    if _few_rows(m, k, n) or (m <= 64 and b.flags.f_contiguous and not b.flags.c_contiguous):
        product = matmul(b.T, a.T).T  # the large operand on the left, the result copied back to rows
        if out is None:
            return np.ascontiguousarray(product)
        np.copyto(out, product)
        return out
    if m * k * n < 2 * MIN_PRODUCT:
        return np.matmul(a, b, out=out)
    parts = _parts(m * n * k, MIN_PRODUCT)
    if parts < 2 or not _blas_libraries():
        return np.matmul(a, b, out=out)
    if out is None:
        out = np.empty((m, n), a.dtype)
    by_rows = m >= n
    length = m if by_rows else n
    parts = min(parts, length)
    bounds = [length * i // parts for i in range(parts + 1)]

    def part(i):
        lo, hi = bounds[i], bounds[i + 1]
        if by_rows:
            np.matmul(a[lo:hi], b, out=out[lo:hi])
        else:
            np.matmul(a, b[:, lo:hi], out=out[:, lo:hi])

    with one_blas_thread():
        _run(part, parts)
    return out


# A ``b`` that is a transposed view (an LSTM's gradient reads its kernel so, ``transpose_b``) with
# at most 64 rows in ``a`` is also faster swapped: 0.45x to 0.9x the time with one BLAS thread for
# k, n of 256 to 4096 (measured on a 2-core EPYC; from 128 rows it no longer pays).


def _few_rows(m, k, n):
    """Whether ``a @ b`` (m x k times k x n) runs faster as ``(bᵀ @ aᵀ)ᵀ`` (measured with one BLAS
    thread: 0.5x to 0.9x the time from 8 to 64 rows with k and n of 1024 to 2560; slower from
    128 rows, or with k = 512)."""
    return (m <= 32 and min(k, n) >= 1024) or (m <= 64 and min(k, n) >= 2048)


@functools.lru_cache(maxsize=None)
def _blas_libraries():
    """The BLAS libraries numpy loaded, as threadpoolctl controls them; () without threadpoolctl."""
    try:
        from threadpoolctl import ThreadpoolController
    except ImportError:
        return ()
    return tuple(c for c in ThreadpoolController().lib_controllers if c.user_api == "blas")


_blas_users = 0  # runs and products being split now: BLAS gets its threads back when the last one ends
_blas_threads = ()


def blas_on_one_thread_from_now():
    """BLAS computes in the calling thread from now on, in a process that runs only devlab's
    kernels (a cluster task's worker: Dask's nannies start workers with OPENBLAS_NUM_THREADS=1
    anyway). Cheaper than ``one_blas_thread`` around every part of every run, which asks and
    sets the libraries' thread counts each time."""
    for c in _blas_libraries():
        c.set_num_threads(1)


class one_blas_thread:  # noqa: N801 - used as a ``with`` block
    """BLAS computes in the calling thread while devlab splits work over its own threads. A
    session holds this for each whole run: OpenBLAS's threads spin for a while after every
    product, waiting for the next, and on a busy machine they take the cores that devlab's
    threads (and other processes) need; a product of 20 x 512 by 512 x 1024 took 10x longer with
    BLAS's two threads than with one under load. Nested and concurrent holders count: BLAS gets
    its threads back when the last one leaves."""

    def __enter__(self):
        global _blas_users, _blas_threads
        with _lock:
            if _blas_users == 0:
                libraries = _blas_libraries()
                _blas_threads = [c.get_num_threads() for c in libraries]
                for c in libraries:
                    c.set_num_threads(1)
            _blas_users += 1

    def __exit__(self, *exc):
        global _blas_users
        with _lock:
            _blas_users -= 1
            if _blas_users == 0:
                for c, n in zip(_blas_libraries(), _blas_threads):
                    c.set_num_threads(n)
        return False
