"""Max and average pooling and their gradients compiled by numba, when the ``fast`` extra installs it.

The numpy kernels of ``nn_kernels.py`` run a pooling one tap at a time over whole arrays: each
tap reads the input and reads and writes the running maximum, and the gradient does it twice
(once to find the maximum, once to hand each window's gradient to it). Compiled, each window is
searched once, its taps read three at a time with the running maximum in a register, and its
gradient added straight to the input that holds the maximum. On the CNN of
``benchmarks/bench_models.py`` (3x3 windows, stride 2, SAME; CPU time, least of 25 calls, 2-core
machine under load): MaxPool of 32x24x24x64 0.22 ms here, 0.9 ms in numpy (TensorFlow 0.28 ms);
MaxPoolGrad 0.62 ms, 5.7 ms in numpy (TF's Eigen kernel 12 ms; its default oneDNN kernel, which
keeps the forward's argmax, about 0.5 ms); AvgPool 0.28 ms, 1.3 ms in numpy (TF 0.24 ms);
AvgPoolGrad 0.3 ms, 1.7 ms in numpy (TF 0.62 ms).

The values are the numpy kernels', bit for bit (an average's NaN up to its sign), and for max
pooling TF's Eigen kernels': the same maximum (NaN skipped, the first of equal values kept, so
-0.0 before 0.0 stays -0.0), the gradient to the same input (the window's first, replaced by each
later one that is greater), and an input's shares of several windows added in the same order
(the windows' scan order).

Each function returns its result, or None when this path does not compute it (numba not
installed, ``DEVLAB_NUMBA=0``, not float32 or float64 host arrays, not NHWC) and the numpy
kernels run instead: they stay the reference. A kernel compiles on its first call, once per dtype
(0.4 to 0.8 s of CPU time each, written to numba's cache: a later process loads them at once,
after numba's own import, 0.4 s, on the first pooling). They release the interpreter lock, so the
parts of a batch that ``k.parts`` hands to devlab's threads run on the cores at once; numba's own
threads are not used (devlab keeps the one pool of threads).
"""
import functools

import numpy as np

from . import optional_numba

ENABLED = optional_numba.ENABLED  # DEVLAB_NUMBA=0: the numpy kernels (tests and benchmarks compare both paths)
_DTYPES = (np.dtype(np.float32), np.dtype(np.float64))


def usable(k, *arrays):
    """Whether this path runs the kernel on ``arrays`` (host float arrays of one dtype, NHWC)."""
    if not ENABLED or any(type(a) is not np.ndarray or a.dtype not in _DTYPES or a.ndim != 4 for a in arrays):
        return False
    if len({a.dtype for a in arrays}) != 1 or k.attrs.get("data_format", "NHWC") not in ("NHWC", b"NHWC"):
        return False
    return _kernels() is not None


@functools.lru_cache(maxsize=None)
def _kernels():
    """(max_pool, max_pool_grad, avg_pool, avg_pool_grad), each compiled by numba on its first call,
    or None where numba is not installed."""
    return optional_numba.compile(_max_pool, _max_pool_grad, _avg_pool, _avg_pool_grad)


def _geometry(win):
    """The kernels' window arguments: size, strides, padding before."""
    return win.kh, win.kw, win.sh, win.sw, win.top, win.left


def max_pool(k, win, x, parts):
    """MaxPool of NHWC ``x`` for the windows ``win`` (``nn_kernels.Windows``), or None. ``parts``
    runs ``fn(lo, hi)`` over the images (in parts on the cores when they are many)."""
    if not usable(k, x) or win.oh < 1 or win.ow < 1:
        return None
    # a maximum starts at the least finite value, TensorFlow's: a window of only NaN or -inf gives it
    lowest = x.dtype.type(np.finfo(x.dtype).min)
    return _launch(0, (win.n, win.oh, win.ow, win.c), [x], _geometry(win) + (lowest,), parts)


def max_pool_grad(k, win, x, dy, parts):
    """MaxPoolGrad: each window's ``dy`` added to the input that holds its maximum, or None."""
    if not usable(k, x, dy) or dy.shape != (win.n, win.oh, win.ow, win.c):
        return None
    return _launch(1, x.shape, [x, dy], _geometry(win), parts)


def avg_pool(k, win, x, parts):
    """AvgPool: the mean of each window's inputs inside the image, or None."""
    if not usable(k, x) or win.oh < 1 or win.ow < 1:
        return None
    return _launch(2, (win.n, win.oh, win.ow, win.c), [x], _geometry(win), parts)


def avg_pool_grad(k, win, dy, parts):
    """AvgPoolGrad: each window's ``dy`` over its count added into its inputs, or None."""
    if not usable(k, dy) or dy.shape != (win.n, win.oh, win.ow, win.c) or min(win.n, win.h, win.w, win.c) < 1:
        return None
    return _launch(3, (win.n, win.h, win.w, win.c), [dy], _geometry(win), parts)


def _launch(which, shape, arrays, args, parts):
    """A new array shaped ``shape`` (the first array's dtype) written by compiled kernel ``which``
    from ``arrays`` (contiguous), the images in parts: ``kernel(*arrays, out, *args)`` per part."""
    arrays = [np.ascontiguousarray(a) for a in arrays]
    out = np.empty(shape, arrays[0].dtype)
    kernel = _kernels()[which]
    parts(lambda lo, hi: kernel(*[a[lo:hi] for a in arrays], out[lo:hi], *args))
    return out


# -- the kernels (compiled by numba; plain Python loops otherwise, never run that way) --------------
# A window's taps are read three at a time along its rows, the running maximum of each channel kept
# in a local (a register) meanwhile: the comparisons run in the same order as one at a time.

def _max_pool(x, out, kh, kw, sh, sw, top, left, lowest):
    n, h, w, c = x.shape
    oh, ow = out.shape[1], out.shape[2]
    for b in range(n):
        image = x[b].reshape(h * w, c)  # pixel by channel
        pooled = out[b].reshape(oh * ow, c)
        for oy in range(oh):
            y0 = oy * sh - top
            ylo, yhi = max(y0, 0), min(y0 + kh, h)  # the window's rows inside the image
            for ox in range(ow):
                x0 = ox * sw - left
                xlo, xhi = max(x0, 0), min(x0 + kw, w)
                o = pooled[oy * ow + ox]
                for ch in range(c):
                    o[ch] = lowest
                for iy in range(ylo, yhi):
                    p, end = iy * w + xlo, iy * w + xhi
                    while p + 3 <= end:
                        a0, a1, a2 = image[p], image[p + 1], image[p + 2]
                        for ch in range(c):
                            m = o[ch]
                            v = a0[ch]
                            m = v if v > m else m  # a NaN is never greater: it is skipped
                            v = a1[ch]
                            m = v if v > m else m
                            v = a2[ch]
                            m = v if v > m else m
                            o[ch] = m
                        p += 3
                    while p < end:
                        a0 = image[p]
                        for ch in range(c):
                            v = a0[ch]
                            if v > o[ch]:
                                o[ch] = v
                        p += 1


def _max_pool_grad(x, dy, dx, kh, kw, sh, sw, top, left):
    n, h, w, c = x.shape
    oh, ow = dy.shape[1], dy.shape[2]
    best = np.empty(c, x.dtype)
    at = np.empty(c, np.int64)  # the pixel holding each channel's maximum
    for b in range(n):
        image = x[b].reshape(h * w, c)
        grad = dy[b].reshape(oh * ow, c)
        back = dx[b].reshape(h * w, c)
        back[:] = 0  # here, image by image, while it stays in the cache for the additions below
        for oy in range(oh):
            y0 = oy * sh - top
            ylo, yhi = max(y0, 0), min(y0 + kh, h)
            for ox in range(ow):
                x0 = ox * sw - left
                xlo, xhi = max(x0, 0), min(x0 + kw, w)
                first = ylo * w + xlo  # the window's first input holds it to start with (even a NaN)
                for ch in range(c):
                    best[ch] = image[first, ch]
                    at[ch] = first
                for iy in range(ylo, yhi):
                    p, end = iy * w + xlo, iy * w + xhi
                    while p + 3 <= end:
                        a0, a1, a2 = image[p], image[p + 1], image[p + 2]
                        for ch in range(c):
                            m, i = best[ch], at[ch]
                            v = a0[ch]
                            if v > m:
                                m, i = v, p
                            v = a1[ch]
                            if v > m:
                                m, i = v, p + 1
                            v = a2[ch]
                            if v > m:
                                m, i = v, p + 2
                            best[ch], at[ch] = m, i
                        p += 3
                    while p < end:
                        a0 = image[p]
                        for ch in range(c):
                            v = a0[ch]
                            if v > best[ch]:
                                best[ch], at[ch] = v, p
                        p += 1
                g = grad[oy * ow + ox]
                for ch in range(c):
                    back[at[ch], ch] += g[ch]


# The mean's division is the numpy kernels': the float32 sum over the float64 count, rounded to float32.

def _avg_pool(x, out, kh, kw, sh, sw, top, left):
    n, h, w, c = x.shape
    oh, ow = out.shape[1], out.shape[2]
    for b in range(n):
        image = x[b].reshape(h * w, c)
        pooled = out[b].reshape(oh * ow, c)
        for oy in range(oh):
            y0 = oy * sh - top
            ylo, yhi = max(y0, 0), min(y0 + kh, h)
            for ox in range(ow):
                x0 = ox * sw - left
                xlo, xhi = max(x0, 0), min(x0 + kw, w)
                o = pooled[oy * ow + ox]
                for ch in range(c):
                    o[ch] = 0
                for iy in range(ylo, yhi):
                    p, end = iy * w + xlo, iy * w + xhi
                    while p + 3 <= end:
                        a0, a1, a2 = image[p], image[p + 1], image[p + 2]
                        for ch in range(c):
                            o[ch] = ((o[ch] + a0[ch]) + a1[ch]) + a2[ch]
                        p += 3
                    while p < end:
                        a0 = image[p]
                        for ch in range(c):
                            o[ch] += a0[ch]
                        p += 1
                count = np.float64((yhi - ylo) * (xhi - xlo))
                for ch in range(c):
                    o[ch] = np.float64(o[ch]) / count


def _avg_pool_grad(dy, dx, kh, kw, sh, sw, top, left):
    n, h, w, c = dx.shape
    oh, ow = dy.shape[1], dy.shape[2]
    share = np.empty(c, dx.dtype)
    for b in range(n):
        grad = dy[b].reshape(oh * ow, c)
        back = dx[b].reshape(h * w, c)
        back[:] = 0
        for oy in range(oh):
            y0 = oy * sh - top
            ylo, yhi = max(y0, 0), min(y0 + kh, h)
            for ox in range(ow):
                x0 = ox * sw - left
                xlo, xhi = max(x0, 0), min(x0 + kw, w)
                count = np.float64((yhi - ylo) * (xhi - xlo))
                g = grad[oy * ow + ox]
                for ch in range(c):
                    share[ch] = np.float64(g[ch]) / count
                for iy in range(ylo, yhi):
                    for p in range(iy * w + xlo, iy * w + xhi):
                        into = back[p]
                        for ch in range(c):
                            into[ch] += share[ch]
