"""The loops of ``relu_kernels.py`` compiled by numba: each reads its arrays once and writes its
result once, where numpy's formulas make two passes (a mask, then a product) or three.

Compiled by ``relu_kernels.py`` through ``optional_numba.compile`` when numba is installed (the
``fast`` extra), never run as Python. The functions take flat (or 2-D, rows by channels) C-contiguous arrays of one float dtype and the
constants 0 and 1 of that dtype, so each compiles once per dtype (about 2 s for all of them, in the
first process only: the machine code is cached on disk). devlab's own threads run them on parts of
the arrays (``devices/parallel.py``).

Every formula is numpy's, value for value: ``relu`` is ``np.maximum(x, 0)`` (NaN stays NaN, -0.0
becomes +0.0), ``relu_grad`` multiplies by 1 or 0 as TF's functor does (a NaN or infinite
gradient where the input is not positive gives NaN, a negative one -0.0).
"""
def relu(x, out, zero):
    for i in range(x.size):
        v = x[i]
        out[i] = v if (v > zero) | (v != v) else zero


def relu_grad(dy, x, out, zero, one):
    for i in range(dy.size):
        out[i] = dy[i] * (one if x[i] > zero else zero)


def bias_relu(x, bias, out, zero):
    """``max(x + bias, 0)`` of a (rows, channels) array and a bias per channel."""
    rows, channels = x.shape
    for i in range(rows):
        for j in range(channels):
            v = x[i, j] + bias[j]
            out[i, j] = v if (v > zero) | (v != v) else zero


def relu_grad_sum(dy, x, out, block, zero, one):
    """``relu_grad`` of flat arrays, and into ``block`` the sums of its result seen as rows of
    ``block.size`` elements, added row after row as numpy's ``add.reduce(axis=0)`` adds them."""
    width = block.size
    for start in range(0, dy.size, width):
        g, f, o = dy[start:start + width], x[start:start + width], out[start:start + width]
        if start == 0:  # the first row is the sums' start, as numpy's reduction starts from it
            for k in range(width):  # loops from 0 over slices: LLVM vectorises them
                v = g[k] * (one if f[k] > zero else zero)
                o[k] = v
                block[k] = v
        else:
            for k in range(width):
                v = g[k] * (one if f[k] > zero else zero)
                o[k] = v
                block[k] += v
