"""Math kernels beside the common ones of ``kernels.py``: ``MulNoNan``, ``NextAfter``, ``ArgMin``,
``Cumprod`` and ``ListDiff`` (the ops TF's gradient rules for Prod and the segment reductions
build, and the ops ``tf.math`` offers next to them)."""
import numpy as np

from ..framework import errors
from .kernels import arg_index, scan, to_host


def mul_no_nan(k, x, y):
    """x * y, and 0 wherever y is 0, even where x is NaN or infinite."""
    xp = k.xp
    return xp.where(y == 0, xp.zeros((), x.dtype), x * y).astype(x.dtype, copy=False)


def next_after(k, x1, x2):
    """The next representable value after x1 in the direction of x2 (C's ``nextafter``)."""
    return k.xp.nextafter(x1, x2).astype(x1.dtype, copy=False)


def argmin(k, x, dimension):
    return arg_index(k, x, dimension, k.xp.argmin)


def cumprod(k, x, axis):
    """Running products along ``axis`` (TF's ScanOp, as ``kernels.cumsum``)."""
    return scan(k, x, axis, k.xp.cumprod, 1)


def list_diff(k, x, y):
    """The values of x not in y, in x's order, and where each is in x (TF's ``ListDiff``)."""
    xs, ys = np.asarray(to_host(x)), np.asarray(to_host(y))
    if xs.ndim != 1 or ys.ndim != 1:
        raise errors.InvalidArgumentError(None, None, "x should be a 1D vector.")
    keep = np.flatnonzero(~np.isin(xs, ys))
    return [k.xp.asarray(xs[keep]), k.xp.asarray(keep.astype(k.attrs["out_idx"].as_numpy_dtype))]


# -- complex numbers: built from two real tensors, taken apart, conjugated, measured ---------------
def complex_(k, real, imag):
    """real + i * imag, elementwise (broadcast), as the complex dtype ``Tout``."""
    return (real + 1j * imag).astype(k.attrs["Tout"].as_numpy_dtype)


def complex_abs(k, x):
    """|x| of complex x, as its real dtype ``Tout``."""
    return k.xp.abs(x).astype(k.attrs["Tout"].as_numpy_dtype)


def conj(k, x):
    return k.xp.conj(x)


def real(k, x):
    return k.xp.real(x).astype(k.attrs["Tout"].as_numpy_dtype)


def imag(k, x):
    return k.xp.imag(x).astype(k.attrs["Tout"].as_numpy_dtype)
