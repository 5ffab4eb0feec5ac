"""Shapes that gradient rules compute: the input shape of a reduction with its reduced axes
set to 1 (TF's ``math_ops.reduced_shape``), known while building when its inputs are."""
import numpy as np

from ..framework.tensor import Tensor
from ..ops.build import apply_op_output
from ..ops.tensor_util import constant_value
from . import array_ops as A


def _value(v):
    return constant_value(v) if isinstance(v, Tensor) else np.asarray(v)


def reduced_shape(input_shape, axes):
    """The input shape with the reduced axes set to 1: numpy when both are known while building,
    else ops that compute it (TF's ``reduced_shape``: Size, FloorMod, Range, DynamicStitch...)."""
    shape_value, axes_value = _value(input_shape), _value(axes)
    if shape_value is not None and axes_value is not None:
        out = np.array(shape_value, dtype=np.int32)
        out[np.array(axes_value, dtype=np.int32)] = 1
        return out
    rank = A.size(input_shape, out_type=axes.dtype.base_dtype)
    axes = (axes + rank) % rank
    axes_shape = A.shape(axes)
    return apply_op_output("DynamicStitch", [A.range(rank), axes, input_shape,
                                             A.ones(axes_shape, dtype=input_shape.dtype.base_dtype)],
                           {"N": 2}, "DynamicStitch")
