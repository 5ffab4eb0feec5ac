"""``tf.norm`` (``tf.linalg.norm``): vector norms (euclidean, 1, inf, any p > 0) over one axis
or the whole tensor, and the Frobenius, 1 and inf matrix norms over two axes, built from
reductions as TF builds them (``sqrt(sum(x * x))`` for the euclidean one)."""
import numpy as np

from ..framework.scopes import name_scope
from ..ops.build import convert_to_tensor
from . import math_ops as M
from .array_ops import squeeze


def norm(tensor, ord="euclidean", axis=None, keepdims=None, name=None, keep_dims=None):  # noqa: A002 - TF's name
    """The ``ord`` norm of ``tensor`` over ``axis`` (None: all of it; two axes: a matrix norm)."""
    if keepdims is not None and keep_dims is not None:
        raise ValueError("Cannot specify both 'keepdims' and 'keep_dims'")
    keepdims = bool(keep_dims if keepdims is None else keepdims)
    is_matrix_norm = isinstance(axis, (tuple, list)) and len(axis) == 2
    if is_matrix_norm:
        axis = tuple(axis)
        if not isinstance(axis[0], int) or not isinstance(axis[1], int) or axis[0] == axis[1]:
            raise ValueError(f"'axis' must be None, an integer, or a tuple of 2 unique integers, got {axis}")
        supported = ["euclidean", "fro", 1, 2, np.inf]
        if ord not in supported:
            raise ValueError(f"'ord' must be a supported matrix norm in {supported}, got {ord}")
        if ord == 2:
            raise NotImplementedError("tf.norm(ord=2) over two axes: devlab has no SVD for the matrix 2-norm")
    else:
        if not (isinstance(axis, int) or axis is None):
            raise ValueError(f"'axis' must be None, an integer, or a tuple of 2 unique integers, got {axis}")
        if ord not in ["euclidean", 1, 2, np.inf] and (not np.isreal(ord) or ord <= 0):
            raise ValueError(f"'ord' must be a supported vector norm, got {ord}")
        if axis is not None:
            axis = (axis,)
    with name_scope(name, "norm", [tensor]):
        tensor = convert_to_tensor(tensor)
        if tensor.dtype.is_complex:
            raise NotImplementedError(f"tf.norm of a {tensor.dtype.name} tensor: devlab has no complex conj")
        if ord in ["fro", "euclidean", 2, 2.0]:
            result = M.sqrt(M.reduce_sum(tensor * tensor, axis, keepdims=True))  # conj(x) is x for real x
        else:
            result = M.abs(tensor)
            if ord == 1:
                result = M.reduce_sum(result, None if axis is None else axis[0], keepdims=True)
                if is_matrix_norm:
                    result = M.reduce_max(result, axis[-1], keepdims=True)
            elif ord == np.inf:
                if is_matrix_norm:
                    result = M.reduce_sum(result, axis[1], keepdims=True)
                result = M.reduce_max(result, None if axis is None else axis[0], keepdims=True)
            else:
                result = M.pow(M.reduce_sum(M.pow(result, ord), axis, keepdims=True), 1.0 / ord)
        if not keepdims:
            result = squeeze(result, axis)
        return result
