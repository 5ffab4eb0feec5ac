"""Relu, its gradient, a bias add followed by relu, and the sum over leading axes that is a bias's
gradient: the elementwise work around every layer of a network, done at the speed of memory.

On a CNN step these arrays are megabytes each and every op reads them from memory again, so
the cost is passes over memory. numpy's formulas make more passes than the op needs: ReluGrad's
``dy * (x > 0)`` writes a mask, then multiplies through a casting loop (3.5x the time of a
plain product); a bias add then relu is two passes and an intermediate array; a sum over axes
0, 1, 2 of an NHWC gradient runs numpy's reduction 64 channels at a time. Here:

* with numba installed (the ``fast`` extra), Relu, ReluGrad, bias-add-then-Relu and ReluGrad with
  its bias's gradient are one compiled loop each (``relu_numba.py``), 2x to 4x faster than numpy
  at 1M floats (3x to 8x on data in cache);
* without it, ReluGrad writes its 0/1 mask as floats into its output and multiplies in place
  (2x faster than the casting loop), and the rest are numpy's ufuncs;
* the sum over leading axes (both paths) first adds whole blocks of rows as one long row (a wide,
  vectorised reduction), then folds that row; 3x faster, and as accurate or more (shorter chains
  of additions).

numpy's formulas are the reference: the numba loops give the same values, bit for bit (NaN and
the sign of zero included); ``DEVLAB_NUMBA=0`` (or ``ENABLED = False``) runs numpy's. Arrays
below ``NUMBA_FROM`` elements always take numpy's path: the first large array costs a process
numba's import and its loops' loading (1.2 s on a loaded 2-core VM; 2.7 s the very first time,
when they are compiled and cached), which small graphs never pay.
"""
import functools
import types

import numpy as np

from . import optional_numba

ENABLED = optional_numba.ENABLED  # tests and benchmarks compare both paths
NUMBA_FROM = 1 << 15  # elements: smaller arrays take numpy's path
FLOATS = (np.dtype(np.float32), np.dtype(np.float64))
SUM_ROW = 4096  # elements a block of rows is added as, in ``sum_leading``
SPLIT_FROM = 1 << 19  # elements: from here on a bias-then-relu into a given buffer runs on the cores (as ``parallel.split``)


@functools.lru_cache(maxsize=None)
def _numba_loops():
    """``relu_numba``'s loops compiled (as attributes of one namespace), or None where numba is not
    installed."""
    from . import relu_numba
    names = ("relu", "relu_grad", "bias_relu", "relu_grad_sum")
    loops = optional_numba.compile(*(getattr(relu_numba, n) for n in names))
    return None if loops is None else types.SimpleNamespace(**dict(zip(names, loops)))


def _loops(*arrays):
    """The compiled loops when they run on ``arrays`` (large, contiguous host arrays of one float
    dtype), else None."""
    first = arrays[0]
    if not ENABLED or first.size < NUMBA_FROM or first.dtype not in FLOATS:
        return None
    if any(type(a) is not np.ndarray or a.dtype != first.dtype or not a.flags.c_contiguous for a in arrays):
        return None
    return _numba_loops()


def relu(x, out=None, split=None):
    """``max(x, 0)``, into ``out`` when given. ``split``: ``KernelContext.split`` (or
    ``parallel.split``), to run a large array's parts on the cores (``_run``)."""
    loops = _loops(x) if type(x) is np.ndarray else None
    if loops is None:
        return np.maximum(x, x.dtype.type(0), out=out)
    zero = x.dtype.type(0)
    return _run(split, out, lambda x, out: loops.relu(x, out, zero), x)


def relu_grad(dy, x, out=None, split=None):
    """``dy * (x > 0)``: dy where the input (or relu's output) is positive, else ``dy * 0``."""
    if type(dy) is not np.ndarray or dy.shape != x.shape or dy.dtype not in FLOATS or x.dtype != dy.dtype:
        return np.multiply(dy, x > 0, out=out, dtype=dy.dtype)  # integers, broadcasting, other modules
    loops = _loops(dy, x) if out is None else _loops(dy, x, out)
    zero, one = dy.dtype.type(0), dy.dtype.type(1)
    if loops is not None:
        return _run(split, out, lambda dy, x, out: loops.relu_grad(dy, x, out, zero, one), dy, x)

    def part(dy, x, out):
        np.greater(x, zero, out=out)  # the mask as 1.0 and 0.0 ...
        np.multiply(dy, out, out=out)  # ... times dy, as TF's functor multiplies
    return _run(split, out, part, dy, x)


def bias_relu(x, bias, out=None, parts=None):
    """``max(x + bias, 0)`` for a bias along the last axis of ``x`` (a layer's bias add, then
    relu), into ``out`` when given. ``parts``: ``parallel.ranges``, to run a large array's rows
    on the cores (when it writes into ``out``, as ``_run``)."""
    given = out
    if out is None:
        out = np.empty(np.broadcast_shapes(x.shape, bias.shape), np.result_type(x, bias))
    loops = _loops(x, bias, out) if bias.ndim == 1 and x.ndim >= 1 and out.shape == x.shape else None
    if loops is None:
        np.add(x, bias, out=out)
        return np.maximum(out, out.dtype.type(0), out=out)
    rows = x.reshape(-1, x.shape[-1])
    into = out.reshape(rows.shape)
    zero = x.dtype.type(0)

    def run(lo, hi):
        loops.bias_relu(rows[lo:hi], bias, into[lo:hi], zero)

    if parts is not None and given is not None and x.size >= SPLIT_FROM:
        parts(run, rows.shape[0])
    else:
        run(0, rows.shape[0])
    return out


def _run(split, out, fn, *inputs):
    """``fn(*inputs, out)`` on the arrays seen flat (the compiled loops index one axis), ``out`` made
    like the first input when None; returns ``out``. Through ``split`` (large arrays in parts on the
    cores) only into a given ``out``: a new array's pages are mapped by its first write, and threads
    writing into one at once contend for the process's page tables (more CPU time than one thread)."""
    threads = split is not None and out is not None
    out = np.empty_like(inputs[0]) if out is None else out
    flat = [a.reshape(-1) for a in inputs + (out,)]
    if threads:
        split(fn, flat[0].shape, *flat)
    else:
        fn(*flat)
    return out


def sum_leading(x, count):
    """The sum of ``x`` over its first ``count`` axes (a bias's gradient: NHWC over N, H, W), or
    None when another way is not faster (not a large contiguous float array, or rows too wide).

    numpy adds a (rows, channels) array row into row, ``channels`` elements at a time; here blocks
    of ``w`` rows are added as one row of ``w * channels`` elements (a long vectorised loop), and
    the ``w`` partial sums folded at the end."""
    width = _block_width(x, count)
    if width is None:
        return None
    block = np.add.reduce(x.reshape(-1, width), axis=0)
    return _fold(block, x.shape[count:])


def _block_width(x, count):
    """The elements in a block of rows that ``sum_leading`` adds as one row (None: it does not)."""
    if type(x) is not np.ndarray or x.dtype not in FLOATS or not x.flags.c_contiguous or not 0 < count < x.ndim:
        return None
    rows, channels = int(np.prod(x.shape[:count])), int(np.prod(x.shape[count:]))
    if x.size < NUMBA_FROM or channels > SUM_ROW // 16:  # from 256 channels on, numpy's own loop is as fast
        return None
    w = SUM_ROW // channels
    while rows % w:  # the widest block that divides the rows
        w -= 1
    return w * channels if w >= 2 else None


def _fold(block, shape):
    """The sum of a block's rows of ``prod(shape)`` elements, shaped ``shape``."""
    return np.add.reduce(block.reshape(-1, int(np.prod(shape))), axis=0).reshape(shape)


def relu_grad_sum(dy, x, count, out=None):
    """(``relu_grad(dy, x)``, its sum over the first ``count`` axes): a ReluGrad and the bias
    gradient summed from it (``runtime/layer_fusion.py``), with the values of the two kernels run
    one after the other; one pass over memory where the numba loops run. It runs in one thread:
    cut into parts, the sums would be added in another order (and the towers of a model, each
    with its own, keep the cores busy)."""
    width = _block_width(dy, count)
    if width is None or dy.shape != x.shape or _loops(dy, x) is None or (out is not None and _loops(out) is None):
        grad = relu_grad(dy, x, out)
        total = sum_leading(grad, count)
        if total is None:
            total = np.add.reduce(grad, axis=tuple(range(count)))
        return grad, np.asarray(total, grad.dtype)
    out = np.empty_like(dy) if out is None else out
    block = np.empty(width, dy.dtype)
    _numba_loops().relu_grad_sum(dy.reshape(-1), x.reshape(-1), out.reshape(-1), block,
                                 dy.dtype.type(0), dy.dtype.type(1))
    return out, _fold(block, dy.shape[count:])
