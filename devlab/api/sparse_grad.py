"""Gradient rules of the SparseTensor ops and the segment sums, as TensorFlow 2.21's
``sparse_grad.py`` and ``math_grad.py`` build them: a SparseTensor's values get a gradient, its
indices and dense shape none. The segment sums that ``embedding_lookup_sparse`` makes with
``sparse_gradient=True`` hand their table an ``IndexedSlices`` of the rows it read."""
from ..framework import dtypes
from ..framework.indexed_slices import IndexedSlices
from ..ops.build import apply_op, apply_op_output
from ..ops.sparse_tensor import SparseTensor
from . import array_ops as A
from . import math_ops as M
from . import sparse_ops
from .grad_shapes import reduced_shape


def _reorder_grad(op, unused_indices_grad, values_grad):
    """Each input entry takes the gradient of the place the sort moved it to."""
    input_indices, input_shape = op.inputs[0], op.inputs[2]
    num_entries = A.shape(input_indices)[0]
    entry_indices = A.range(num_entries)
    sp_ordered = sparse_ops.sparse_reorder(SparseTensor(input_indices, entry_indices, input_shape))
    inverted = A.invert_permutation(sp_ordered.values)
    return [None, A.gather(values_grad, inverted), None]


def _add_grad(op, *grads):
    a_grad, b_grad = apply_op("SparseAddGrad", [grads[1], op.inputs[0], op.inputs[3], op.outputs[0]], None,
                              "SparseAddGrad").outputs
    a_grad.set_shape(op.inputs[1].shape)
    b_grad.set_shape(op.inputs[4].shape)
    return [None, a_grad, None, None, b_grad, None, None]


def _dense_add_grad(op, grad):
    return [None, A.gather_nd(grad, op.inputs[0]), None, grad]


def _reduce_sum_grad(op, out_grad):
    sp_indices, sp_shape = op.inputs[0], op.inputs[2]
    kept = reduced_shape(sp_shape, op.inputs[3])
    reshaped = A.reshape(out_grad, kept)
    scale = sp_shape // A.cast(kept, dtypes.int64)
    return [None, A.gather_nd(reshaped, sp_indices // scale), None, None]


def _dense_matmul_grad(op, grad):
    """The dense operand's gradient is aᵀ·grad (the same op, a adjoint); each entry's, the dot of
    its row of grad with its row of b."""
    a_indices, a_values, a_shape, b = op.inputs
    adj_a, adj_b = op.get_attr("adjoint_a"), op.get_attr("adjoint_b")
    if a_values.dtype.base_dtype != b.dtype.base_dtype:
        raise TypeError(f"SparseTensorDenseMatMul op received operands with different types: "
                        f"`{a_values.dtype.base_dtype}` and `{b.dtype.base_dtype}`.")
    b_grad = apply_op_output("SparseTensorDenseMatMul", [a_indices, a_values, a_shape, grad],
                             {"adjoint_a": not adj_a, "adjoint_b": False}, "SparseTensorDenseMatMul")
    if adj_b:
        b_grad = _matrix_transpose(b_grad)
    rows, cols = a_indices[:, 0], a_indices[:, 1]
    parts_a = A.gather(grad, rows if not adj_a else cols)
    parts_b = A.gather(b if not adj_b else A.transpose(b), cols if not adj_a else rows)
    if not adj_a and not adj_b:
        values_grad = M.matmul(A.expand_dims(parts_a, -2), A.expand_dims(parts_b, -2), adjoint_b=True)
    elif adj_a and not adj_b:
        values_grad = M.matmul(A.expand_dims(parts_a, -1), A.expand_dims(parts_b, -1), adjoint_a=True)
    elif not adj_a and adj_b:
        values_grad = M.matmul(A.expand_dims(parts_a, -2), A.expand_dims(parts_b, -1))
    else:
        values_grad = M.matmul(A.expand_dims(parts_a, -1), A.expand_dims(parts_b, -2), adjoint_a=True,
                               adjoint_b=True)
    return [None, A.squeeze(values_grad, axis=[-2, -1]), None, b_grad]


def _matrix_transpose(x):
    """TF's ``matrix_transpose`` of a matrix: a Transpose [1, 0] in a ``matrix_transpose`` scope."""
    from ..framework.scopes import name_scope
    with name_scope(None, "matrix_transpose", [x]):
        return A.transpose(x, [1, 0])


def _cwise_mul_or_div_grad(op, grad, is_mul):
    x_indices, x_shape, y = op.inputs[0], op.inputs[2], op.inputs[3]
    y_shape = A.cast(A.shape(y), dtypes.int64)
    num_added_dims = A.expand_dims(A.size(x_shape) - A.size(y_shape), 0)
    augmented_y_shape = A.concat([A.ones(num_added_dims, dtypes.int64), y_shape], 0)
    scaling = x_shape // augmented_y_shape
    scaled_indices = x_indices // scaling
    scaled_indices = A.slice(scaled_indices, A.concat([[0], num_added_dims], 0), [-1, -1])
    dense_vals = A.gather_nd(y, scaled_indices)
    if is_mul:
        dx = grad * dense_vals
        dy_val = grad * op.inputs[1]
    else:
        dx = grad / dense_vals
        dy_val = grad * (-op.inputs[1] / M.square(dense_vals))
    dy = sparse_ops.sparse_add(A.zeros_like(y), SparseTensor(scaled_indices, dy_val, y_shape))
    return [None, dx, None, dy]


def _softmax_grad(op, grad):
    indices, shape = op.inputs[0], op.inputs[2]
    out_vals = op.outputs[0]
    sp_output = SparseTensor(indices, out_vals, shape)
    sp_grad = SparseTensor(indices, grad, shape)
    sp_product = SparseTensor(indices, sp_output.values * sp_grad.values, shape)
    sum_reduced = -sparse_ops.sparse_reduce_sum(sp_product, [-1], keepdims=True)
    sp_sum = sparse_ops.sparse_dense_cwise_add(sp_grad, sum_reduced)
    return [None, sp_sum.values * sp_output.values, None]


def _fill_empty_rows_grad(op, unused_indices_grad, values_grad, unused_empty_grad, unused_map_grad):
    d_values, d_default = apply_op("SparseFillEmptyRowsGrad", [op.outputs[3], values_grad], None,
                                   "SparseFillEmptyRowsGrad").outputs
    return [None, d_values, None, d_default]


def _segment_grad(norm):
    suffix = {"mean": "Mean", "sqrtn": "SqrtN"}.get(norm, "Sum")

    def rule(op, grad):
        if op.get_attr("sparse_gradient"):
            indices, segment_ids = op.inputs[1], op.inputs[2]
            data_shape = A.shape(op.inputs[0])
            dim0 = data_shape[0]
            values, unique = apply_op(f"SparseSegment{suffix}GradV2", [grad, indices, segment_ids, dim0], None,
                                      f"SparseSegment{suffix}GradV2").outputs
            return [IndexedSlices(values, unique, data_shape), None, None]
        dim0 = A.shape(op.inputs[0])[0]
        return [apply_op_output(f"SparseSegment{suffix}Grad", [grad, op.inputs[1], op.inputs[2], dim0], None,
                                f"SparseSegment{suffix}Grad"), None, None]
    return rule


GRADIENTS = {
    "SparseReorder": _reorder_grad,
    "SparseAdd": _add_grad,
    "SparseTensorDenseAdd": _dense_add_grad,
    "SparseReduceSum": _reduce_sum_grad,
    "SparseTensorDenseMatMul": _dense_matmul_grad,
    "SparseDenseCwiseMul": lambda op, grad: _cwise_mul_or_div_grad(op, grad, True),
    "SparseDenseCwiseDiv": lambda op, grad: _cwise_mul_or_div_grad(op, grad, False),
    "SparseSoftmax": _softmax_grad,
    "SparseFillEmptyRows": _fill_empty_rows_grad,
    "SparseSegmentSum": _segment_grad(None),
    "SparseSegmentMean": _segment_grad("mean"),
    "SparseSegmentSqrtN": _segment_grad("sqrtn"),
    "SegmentSum": lambda op, grad: [A.gather(grad, op.inputs[1]), None],
}
NOT_DIFFERENTIABLE = {"SparseAddGrad", "SparseConcat"}
