"""The C heap of a task's process: freed tensors are kept for the next step, not unmapped.

Dask's nanny starts each worker with ``MALLOC_TRIM_THRESHOLD_=65536`` (memory goes back to the
system soon after it is freed). Setting it also turns off glibc's adaptive mmap threshold, so
every buffer over 128 KiB is a fresh ``mmap`` that faults in page by page on its first write and
is unmapped when freed. A task makes such buffers every step (each tensor received, each
variable's new value): the issue's ps/worker step paid 130 page faults on the ps and 65 on the
worker per step, more CPU than its two matmuls. A task's process keeps buffers up to
``MMAP_THRESHOLD`` on the heap and up to ``TRIM_THRESHOLD`` of freed heap before giving it back,
so a step reuses the memory of the last one; larger tensors are still mapped and unmapped.

It is set once per process, as BLAS's thread count is, so on a cluster from ``connect`` it
holds for whatever else the worker's process runs. glibc only (``mallopt``); elsewhere (macOS,
musl) nothing changes.
"""
import ctypes
import ctypes.util

M_TRIM_THRESHOLD = -1  # glibc's mallopt parameters (malloc.h)
M_MMAP_THRESHOLD = -3
MMAP_THRESHOLD = 16 << 20  # buffers up to this size come from the heap
TRIM_THRESHOLD = 64 << 20  # freed heap kept at its top before it goes back to the system


def keep_freed_buffers():
    """Sets this process's malloc thresholds (see the module's docstring); returns whether it could."""
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        mallopt = libc.mallopt
    except (OSError, AttributeError):
        return False
    mallopt.argtypes, mallopt.restype = (ctypes.c_int, ctypes.c_int), ctypes.c_int
    return bool(mallopt(M_MMAP_THRESHOLD, MMAP_THRESHOLD)) and bool(mallopt(M_TRIM_THRESHOLD, TRIM_THRESHOLD))
