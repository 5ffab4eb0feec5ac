"""TensorFlow's generated wrappers of the sparse ops (``gen_sparse_ops``): one op each, its inputs
by their OpDef names, a multi-output op's outputs as a named tuple, as TF1 code and TF's own
tests call them (``gen_sparse_ops.sparse_reorder(indices, values, shape)``)."""
import collections

from ..framework import dtypes
from ..ops.build import op
from ..ops.recorded import OP_DEFS


def _wrapper(op_type, args, outputs=None, attrs=()):
    """A function ``f(*args, <attrs>=..., name=None)`` building one ``op_type`` op."""
    result = collections.namedtuple(op_type, outputs) if outputs else None
    fixed = {a["name"]: dtypes.as_dtype(a["type"]) for a in OP_DEFS.get(op_type)["inputs"] if "type" in a}

    def build(*values, name=None, **kwargs):
        given = dict(zip(args, values))
        for key in list(kwargs):
            if key in args:
                given[key] = kwargs.pop(key)
        unknown = set(kwargs) - set(attrs)
        if unknown:
            raise TypeError(f"{build.__name__}() got an unexpected keyword argument '{sorted(unknown)[0]}'")
        missing_args = [a for a in args if a not in given]
        if missing_args:
            raise TypeError(f"{build.__name__}() missing required argument '{missing_args[0]}'")
        node = op(op_type, name, [(a, given[a], fixed.get(a)) for a in args], dict(kwargs) or None)
        return result(*node.outputs) if result else node.outputs[0]
    return build


def _named(name, fn):
    fn.__name__ = fn.__qualname__ = name
    return fn


_SP = ("indices", "values", "shape")
sparse_reorder = _named("sparse_reorder", _wrapper("SparseReorder", ("input_indices", "input_values", "input_shape"),
                                                   ("output_indices", "output_values")))
sparse_reshape = _named("sparse_reshape", _wrapper("SparseReshape", ("input_indices", "input_shape", "new_shape"),
                                                   ("output_indices", "output_shape")))
sparse_add = _named("sparse_add", _wrapper("SparseAdd", ("a_indices", "a_values", "a_shape", "b_indices", "b_values",
                                                         "b_shape", "thresh"),
                                           ("sum_indices", "sum_values", "sum_shape")))
sparse_add_grad = _named("sparse_add_grad", _wrapper("SparseAddGrad", ("backprop_val_grad", "a_indices", "b_indices",
                                                                       "sum_indices"), ("a_val_grad", "b_val_grad")))
sparse_tensor_dense_add = _named("sparse_tensor_dense_add", _wrapper(
    "SparseTensorDenseAdd", ("a_indices", "a_values", "a_shape", "b")))
sparse_tensor_dense_mat_mul = _named("sparse_tensor_dense_mat_mul", _wrapper(
    "SparseTensorDenseMatMul", ("a_indices", "a_values", "a_shape", "b"), attrs=("adjoint_a", "adjoint_b")))
sparse_to_dense = _named("sparse_to_dense", _wrapper(
    "SparseToDense", ("sparse_indices", "output_shape", "sparse_values", "default_value"),
    attrs=("validate_indices",)))
sparse_fill_empty_rows = _named("sparse_fill_empty_rows", _wrapper(
    "SparseFillEmptyRows", ("indices", "values", "dense_shape", "default_value"),
    ("output_indices", "output_values", "empty_row_indicator", "reverse_index_map")))
sparse_fill_empty_rows_grad = _named("sparse_fill_empty_rows_grad", _wrapper(
    "SparseFillEmptyRowsGrad", ("reverse_index_map", "grad_values"), ("d_values", "d_default_value")))
sparse_reduce_sum = _named("sparse_reduce_sum", _wrapper(
    "SparseReduceSum", ("input_indices", "input_values", "input_shape", "reduction_axes"), attrs=("keep_dims",)))
sparse_reduce_max = _named("sparse_reduce_max", _wrapper(
    "SparseReduceMax", ("input_indices", "input_values", "input_shape", "reduction_axes"), attrs=("keep_dims",)))
sparse_softmax = _named("sparse_softmax", _wrapper("SparseSoftmax", ("sp_indices", "sp_values", "sp_shape")))
sparse_dense_cwise_add = _named("sparse_dense_cwise_add", _wrapper(
    "SparseDenseCwiseAdd", ("sp_indices", "sp_values", "sp_shape", "dense")))
sparse_dense_cwise_mul = _named("sparse_dense_cwise_mul", _wrapper(
    "SparseDenseCwiseMul", ("sp_indices", "sp_values", "sp_shape", "dense")))
sparse_dense_cwise_div = _named("sparse_dense_cwise_div", _wrapper(
    "SparseDenseCwiseDiv", ("sp_indices", "sp_values", "sp_shape", "dense")))
sparse_sparse_maximum = _named("sparse_sparse_maximum", _wrapper(
    "SparseSparseMaximum", ("a_indices", "a_values", "a_shape", "b_indices", "b_values", "b_shape"),
    ("output_indices", "output_values")))
sparse_sparse_minimum = _named("sparse_sparse_minimum", _wrapper(
    "SparseSparseMinimum", ("a_indices", "a_values", "a_shape", "b_indices", "b_values", "b_shape"),
    ("output_indices", "output_values")))
