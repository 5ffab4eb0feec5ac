"""``out[rows] += values`` (or ``-=``) row by row in one compiled loop, when numba is installed (the
``fast`` extra): the scatter of a sparse update (ScatterSub of SGD on an embedding, the gradient of
a lookup). numpy's ``add_rows`` (``add_rows.py``) makes the same sums with a sort, a gather, an
add and a scatter, about 16 µs for word2vec's 192 rows of 128 floats; this loop about 4 µs. A row
listed twice gets its updates in the order they are listed, as ``np.add.at`` adds them, so the
floats are the same.

Only updates of at least ``MIN_ELEMENTS`` elements come here: numba's import and the load of the
compiled loop from its cache cost about 0.5 to 1 s once per process (compiling it the first time
about 1 s more), which a small program should not pay. ``DEVLAB_NUMBA=0`` keeps to numpy
(tests compare both paths).
"""
import numpy as np

from . import optional_numba

ENABLED = optional_numba.ENABLED
MIN_ELEMENTS = 4096  # updates smaller than this stay with numpy: no import for a small program
_TYPES = (np.dtype(np.float32), np.dtype(np.float64))
_INDEX_TYPES = (np.dtype(np.int32), np.dtype(np.int64))
_loops = None  # (the compiled row loop,) once compiled; False when numba cannot be imported


def add_rows(out, rows, values, subtract):
    """Adds (subtracts) each row of ``values`` into row ``rows[i]`` of ``out``; True if done here,
    False when this path does not apply (the caller then uses numpy)."""
    if not (ENABLED and values.size >= MIN_ELEMENTS and type(out) is np.ndarray and out.ndim == 2
            and out.dtype in _TYPES and values.dtype == out.dtype and out.flags.c_contiguous
            and out.flags.writeable and rows.dtype in _INDEX_TYPES and rows.ndim == 1
            and values.shape == (rows.size, out.shape[1])):
        return False
    loops = _compiled()
    if not loops:
        return False
    return loops[0](out, rows, np.ascontiguousarray(values), out.dtype.type(-1 if subtract else 1))


def _compiled():
    global _loops
    if _loops is None:
        _loops = optional_numba.compile(_add_rows) or False
    return _loops


def _add_rows(out, rows, values, sign):
    """``out[rows[i]] += sign * values[i]`` for each i in order; ``sign`` is 1 or -1, whose product
    is exact, so -1 gives the floats of subtracting. Every row is checked before any is written: one
    outside [0, len(out)) leaves ``out`` as it was and numpy's path takes the call (it knows what a
    negative row means there)."""
    for i in range(rows.shape[0]):
        if rows[i] < 0 or rows[i] >= out.shape[0]:
            return False
    for i in range(rows.shape[0]):
        r = rows[i]
        for j in range(out.shape[1]):
            out[r, j] += sign * values[i, j]
    return True
