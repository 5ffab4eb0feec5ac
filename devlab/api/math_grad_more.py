"""Gradient rules of ``Prod``, ``Cumprod``, the sorted-segment max/min/prod/mean, ``NextAfter`` and
the complex-number ops (``ComplexAbs``, ``Conj``, ``Real``, ``Imag``; ``Complex``'s is in grad_table), built op for op
as TensorFlow 2.21's ``math_grad.py`` builds them.

The product rules avoid dividing by the input (which fails at zeros): ``Prod``'s gradient is the
product of everything before an element times everything after it (two exclusive ``Cumprod``s
over the reduced axes packed into one); ``SegmentProd``'s treats segments with one zero and with
several zeros apart."""
import numpy as np

from ..framework import dtypes
from ..framework.scopes import control_dependencies, device
from ..ops.build import apply_op, apply_op_output
from ..ops.tensor_util import constant_value
from . import array_ops as A
from . import math_ops as M
from .grad_shapes import reduced_shape
from .math_ops_more import complex as complex_, conj, cumprod
from .segment_ops import segment_prod, segment_sum


def _prod_grad(op, grad):
    x, axes = op.inputs
    input_shape = A.shape(x)
    reduction_indices = A.reshape(axes, [-1])
    if not op.get_attr("keep_dims"):
        grad = A.reshape(grad, reduced_shape(input_shape, axes))
    grad = apply_op_output("BroadcastTo", [grad, input_shape], None, "BroadcastTo")
    # The reduced axes first, packed into one, so that one pair of cumprods covers them; the shape
    # arithmetic stays on the CPU, as in TF (ListDiff has only a CPU kernel).
    with device("/cpu:0"):
        rank = A.rank(x)
        reduction_indices = A.cast(reduction_indices, rank.dtype.base_dtype)
        reduced = (reduction_indices + rank) % rank
        idx = A.range(0, rank)
        other = apply_op("ListDiff", [idx, reduced], {"out_idx": reduced.dtype.base_dtype}, "ListDiff").outputs[0]
        perm = A.concat([reduced, other], 0)
        reduced_num = M.reduce_prod(A.gather(input_shape, reduced))
        other_num = M.reduce_prod(A.gather(input_shape, other))
    permuted = A.transpose(x, perm)
    dims, axes_value = x.shape.sizes, constant_value(axes)
    if dims is not None and None not in dims and axes_value is not None:
        # TF's shape inference evaluates the small perm graph while building, so the permuted
        # shape is known there and its Shape folds to a Const: the same shape, worked out here
        first = sorted({int(a) % len(dims) for a in np.asarray(axes_value).reshape(-1)}, key=lambda a: list(
            (int(b) % len(dims) for b in np.asarray(axes_value).reshape(-1))).index(a)) if dims else []
        permuted.set_shape([dims[a] for a in first] + [d for a, d in enumerate(dims) if a not in first])
    permuted_shape = A.shape(permuted)
    reshaped = A.reshape(permuted, [reduced_num, other_num])
    left = cumprod(reshaped, axis=0, exclusive=True)
    right = cumprod(reshaped, axis=0, exclusive=True, reverse=True)
    y = A.reshape(conj(left) * conj(right), permuted_shape)  # complex: the conjugate direction
    out = grad * A.transpose(y, A.invert_permutation(perm))
    return [A.reshape(out, input_shape), None]


def _cumprod_grad(op, grad):
    x, axis = op.inputs
    exclusive, reverse = op.get_attr("exclusive"), op.get_attr("reverse")
    prod = cumprod(x, axis, exclusive=exclusive, reverse=reverse)
    out = M.cumsum(prod * grad, axis, exclusive=exclusive, reverse=not reverse)
    return [M.div_no_nan(out, x), None]


def _segment_min_or_max_grad(op, grad):
    """The segment's gradient shared evenly among the elements equal to its min (max)."""
    data, segment_ids = op.inputs
    zeros = A.zeros_like(data, dtype=data.dtype.base_dtype)
    gathered_outputs = A.gather(op.outputs[0], segment_ids)
    is_selected = M.equal(data, gathered_outputs)
    num_selected = segment_sum(A.cast(is_selected, grad.dtype.base_dtype), segment_ids)
    weighted_grads = M.divide(grad, num_selected)
    gathered_grads = A.gather(weighted_grads, segment_ids)
    return [A.where_v2(is_selected, gathered_grads, zeros), None]


def _segment_prod_grad(op, grad):
    """Each element's gradient is the product of the rest of its segment: the product divided by
    it where the segment has no zero, the product of the non-zeros at a segment's only zero, and 0
    in a segment with two zeros or more."""
    data, segment_ids = op.inputs
    is_zero = M.equal(data, 0)
    num_zeros = segment_sum(A.cast(is_zero, dtype=dtypes.int32), segment_ids)
    grad = A.where_v2(M.greater(num_zeros, 1), A.zeros_like(grad), grad)
    non_zero_data = A.where_v2(is_zero, A.ones_like(data), data)
    non_zero_prod = segment_prod(non_zero_data, segment_ids)
    gathered_prod = A.gather(op.outputs[0], segment_ids)
    gathered_non_zero_prod = A.gather(non_zero_prod, segment_ids)
    prod_divided_by_el = gathered_prod / non_zero_data
    partial_derivative = A.where_v2(is_zero, gathered_non_zero_prod, prod_divided_by_el)
    gathered_grad = A.gather(grad, segment_ids)
    return [gathered_grad * partial_derivative, None]


def _segment_mean_grad(op, grad):
    """The segment's gradient divided by its number of rows, given back to each row."""
    data, segment_ids = op.inputs
    data_rank = A.rank(data)
    segment_ids_shape = A.shape(segment_ids)
    remaining_shape = A.ones(A.expand_dims(data_rank - 1, 0), dtype=segment_ids_shape.dtype.base_dtype)
    ones_shape = A.concat([segment_ids_shape, remaining_shape], 0)
    ones = A.ones(ones_shape, dtype=grad.dtype.base_dtype)
    scaled_grad = M.divide(grad, segment_sum(ones, segment_ids))
    return [A.gather(scaled_grad, segment_ids), None]


def _next_after_grad(op, grad):
    """1 with respect to x1 and 0 with respect to x2, each summed back to its input's shape."""
    x1, x2 = op.inputs
    s_x1, s_x2 = A.shape(x1), A.shape(x2)
    r_x1, r_x2 = apply_op("BroadcastGradientArgs", [s_x1, s_x2], None, "BroadcastGradientArgs").outputs
    with control_dependencies([grad]):
        partial_x1 = A.ones(s_x1, dtype=x1.dtype.base_dtype)
        partial_x2 = A.zeros(s_x2, dtype=x2.dtype.base_dtype)
        return [A.reshape(M.reduce_sum(partial_x1 * grad, r_x1), s_x1),
                A.reshape(M.reduce_sum(partial_x2 * grad, r_x2), s_x2)]


def _complex_abs_grad(op, grad):
    """grad * x / |x| (0 where x is 0), as complex numbers."""
    return [M.div_no_nan(complex_(grad, A.zeros_like(grad)) * op.inputs[0],
                         complex_(op.outputs[0], A.zeros_like(op.outputs[0])))]


GRADIENTS = {
    "ComplexAbs": _complex_abs_grad,
    "Conj": lambda op, grad: [conj(grad)],
    "Real": lambda op, grad: [complex_(grad, A.constant(0, dtype=grad.dtype.base_dtype))],
    "Imag": lambda op, grad: [complex_(A.constant(0, dtype=grad.dtype.base_dtype), grad)],
    "Prod": _prod_grad,
    "Cumprod": _cumprod_grad,
    "SegmentMax": _segment_min_or_max_grad,
    "SegmentMin": _segment_min_or_max_grad,
    "SegmentProd": _segment_prod_grad,
    "SegmentMean": _segment_mean_grad,
    "NextAfter": _next_after_grad,
}
NOT_DIFFERENTIABLE = {"ArgMin", "ListDiff"}
