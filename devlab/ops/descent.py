"""Plain gradient descent's update, ``var - delta * lr``, in one pass over memory.

numpy makes it two passes (the product into the new buffer, then the difference into it again),
so a large weight's update reads and writes its buffer twice. Where numba is installed (the
``fast`` extra), one compiled loop reads the variable and the gradient once and writes the new
value once, with TensorFlow's rounding: the product rounded to the dtype, then the difference
(no fused multiply-add: numba compiles without ``fastmath``). numpy's two ufuncs stay the
reference, taken for small or non-float arrays and where ``DEVLAB_NUMBA=0`` (as
``relu_kernels.py``); the loop is compiled once and cached on disk (``cache=True``).
"""
import functools

import numpy as np

from . import optional_numba

ENABLED = optional_numba.ENABLED
NUMBA_FROM = 1 << 15  # elements: smaller updates take numpy's path (numba costs a second to load)
FLOATS = (np.dtype(np.float32), np.dtype(np.float64))


def _descend(old, delta, lr, new):
    """The loop numba compiles (flat arrays of one dtype, ``lr`` a scalar of that dtype)."""
    for i in range(old.size):
        new[i] = old[i] - delta[i] * lr


@functools.lru_cache(maxsize=None)
def _compiled():
    """``_descend`` compiled by numba, or None where numba is not installed."""
    loops = optional_numba.compile(_descend)
    return loops and loops[0]


def gradient_descent(old, delta, lr, new):
    """``new = old - delta * lr`` (``new`` a buffer shaped like ``old``, not ``old`` itself)."""
    loop = None
    if (ENABLED and type(old) is np.ndarray and old.size >= NUMBA_FROM and old.dtype in FLOATS
            and all(type(a) is np.ndarray and a.dtype == old.dtype and a.shape == old.shape
                    and a.flags.c_contiguous for a in (old, delta, new))):
        loop = _compiled()
    if loop is None:
        np.multiply(delta, lr, out=new)
        np.subtract(old, new, out=new)
    else:
        loop(old.reshape(-1), delta.reshape(-1), old.dtype.type(lr), new.reshape(-1))
