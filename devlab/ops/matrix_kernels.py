"""Kernels and shape rules of the matrix ops TF's initializers build: ``MatrixDiagV3`` and
``MatrixSetDiagV3`` (the main diagonal, ``k = 0``, only: another band is refused by name),
``DiagPart`` and ``Qr`` (numpy's QR, reduced or complete)."""
import numpy as np

from ..framework import errors
from .kernels import to_host
from .shapes import ShapeError
from .tensor_util import static_value


def _main_diagonal_only(k, op_type):
    if np.any(np.asarray(k) != 0):
        raise NotImplementedError(f"devlab's {op_type} kernel sets the main diagonal only (k=0), not k={k.tolist()}")


def _int(value, default):
    return default if value is None else int(np.asarray(value).reshape(-1)[0])


def matrix_diag_shape(inputs, attrs):
    """``[..., rows, cols]`` from a diagonal ``[..., n]`` (rows and cols default to n, with k=0)."""
    diag = inputs[0].shape.sizes
    if diag is not None and len(diag) < 1:
        raise ShapeError(f"Shape must be at least rank 1 but is rank {len(diag)}")
    rows, cols = (_int(static_value(t), None) for t in inputs[2:4])
    if diag is None:
        return [(inputs[0].dtype.base_dtype, None)]
    n = diag[-1]
    rows = n if rows is None or rows < 0 else rows
    cols = n if cols is None or cols < 0 else cols
    return [(inputs[0].dtype.base_dtype, tuple(diag[:-1]) + (rows, cols))]


def matrix_diag(k, diagonal, band, num_rows, num_cols, padding_value):
    _main_diagonal_only(to_host(band), "MatrixDiagV3")
    n = diagonal.shape[-1]
    rows, cols = _int(to_host(num_rows), -1), _int(to_host(num_cols), -1)
    rows, cols = (n if rows < 0 else rows), (n if cols < 0 else cols)
    out = k.xp.full(diagonal.shape[:-1] + (rows, cols), to_host(padding_value).item(), dtype=diagonal.dtype)
    m = min(rows, cols, n)
    out[..., k.xp.arange(m), k.xp.arange(m)] = diagonal[..., :m]
    return out


def set_diag_shape(inputs, attrs):
    x, diag = inputs[0].shape.sizes, inputs[1].shape.sizes
    if x is not None and len(x) < 2:
        raise ShapeError(f"Shape must be at least rank 2 but is rank {len(x)}")
    if diag is not None and len(diag) < 1:
        raise ShapeError(f"Shape must be at least rank 1 but is rank {len(diag)}")
    return [(inputs[0].dtype.base_dtype, inputs[0].shape.sizes)]


def matrix_set_diag(k, x, diagonal, band):
    _main_diagonal_only(to_host(band), "MatrixSetDiagV3")
    m = min(x.shape[-2], x.shape[-1])
    if diagonal.shape[-1] != m:
        raise errors.InvalidArgumentError(None, None, f"diagonal must be at least 1-dim and its last dimension "
                                                      f"must be {m}, got {diagonal.shape[-1]}")
    out = x.copy()
    out[..., k.xp.arange(m), k.xp.arange(m)] = diagonal
    return out


def diag_part_shape(inputs, attrs):
    shape = inputs[0].shape.sizes
    if shape is not None and (len(shape) == 0 or len(shape) % 2):
        raise ShapeError(f"Input must have even and non-zero rank, input rank is {len(shape)}")
    return [(inputs[0].dtype.base_dtype, None if shape is None else tuple(shape[:len(shape) // 2]))]


def diag_part(k, x):
    half = x.shape[:x.ndim // 2]
    if x.ndim % 2 or x.shape[x.ndim // 2:] != half:
        raise errors.InvalidArgumentError(None, None, f"Invalid shape {list(x.shape)}: dimensions [0, {x.ndim // 2}) "
                                                      f"must equal dimensions [{x.ndim // 2}, {x.ndim})")
    p = int(np.prod(half, dtype=np.int64))
    return k.xp.diagonal(x.reshape(p, p)).reshape(half).copy()


def qr_shape(inputs, attrs):
    shape, dtype = inputs[0].shape.sizes, inputs[0].dtype.base_dtype
    if shape is None:
        return [(dtype, None), (dtype, None)]
    if len(shape) < 2:
        raise ShapeError(f"Shape must be at least rank 2 but is rank {len(shape)}")
    m, n = shape[-2], shape[-1]
    full = attrs.get("full_matrices", False)
    kk = m if full else (None if m is None or n is None else min(m, n))
    return [(dtype, tuple(shape[:-2]) + (m, kk)), (dtype, tuple(shape[:-2]) + (kk, n))]


def qr(k, x):
    q, r = k.xp.linalg.qr(x, mode="complete" if k.attrs.get("full_matrices", False) else "reduced")
    return [q.astype(x.dtype), r.astype(x.dtype)]
