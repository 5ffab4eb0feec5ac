"""``tf.sparse_*`` and ``tf.sparse.*``: the TF1 functions over a ``SparseTensor``, built op for op
and name for name as TensorFlow 2.21's ``sparse_ops.py`` builds them (``SparseReorder``,
``SparseToDense``, ``SparseTensorDenseMatMul/SparseTensorDenseMatMul``...), so the graph, its
placement log and the values read as TF's do. A function takes a SparseTensorValue where TF does
and refuses anything else with TF's TypeError.
"""
import collections.abc
import numbers

import numpy as np

from ..framework import dtypes
from ..framework.scopes import name_scope
from ..framework.tensor import Tensor
from ..framework.tensor_shape import TensorShape
from ..ops.build import apply_op, apply_op_output, constant, convert_to_tensor, op
from ..ops.sparse_tensor import SparseTensor, SparseTensorValue
from ..ops.tensor_util import constant_value, constant_value_as_shape, static_value
from . import array_ops, gen_sparse_ops, math_ops
from .asserts import Assert
from .control_flow_ops import with_dependencies
from .gen_sparse_ops import sparse_fill_empty_rows_grad  # noqa: F401 - TF's sparse_ops has the gen names


def _sparse(sp_input):
    """TF's ``_convert_to_sparse_tensor``."""
    if isinstance(sp_input, SparseTensorValue):
        return SparseTensor.from_value(sp_input)
    if not isinstance(sp_input, SparseTensor):
        raise TypeError("Input must be a SparseTensor.")
    return sp_input


def _parts(sp):
    return [sp.indices, sp.values, sp.dense_shape]


def sparse_placeholder(dtype, shape=None, name=None):
    """A SparseTensor of three placeholders (``name/indices``, ``name/values``, ``name/shape``),
    fed with a SparseTensorValue or an (indices, values, dense_shape) tuple. A given ``shape``
    (None or -1 for an unknown dim) is the default of the fed dense shape."""
    shape_name = None if name is None else name + "/shape"
    if shape is None:
        rank = None
        dense_shape = array_ops.placeholder(dtypes.int64, shape=[rank], name=shape_name)
        static = TensorShape(None)
    else:
        if isinstance(shape, Tensor):
            rank = shape.shape.sizes[0] if shape.shape.sizes else None
            known = constant_value_as_shape(shape)
            static = TensorShape(known if known is not None else None)
        else:
            rank = len(shape)
            static = TensorShape([None if d == -1 else d for d in shape])
            shape = constant([-1 if d is None else int(d) for d in static.sizes], dtype=dtypes.int64,
                             name=None if name is None else name + "/shape_default")
        dense_shape = array_ops.placeholder_with_default(shape, shape=shape.shape, name=shape_name)
    result = SparseTensor(
        values=array_ops.placeholder(dtype, shape=[None], name=None if name is None else name + "/values"),
        indices=array_ops.placeholder(dtypes.int64, shape=[None, rank],
                                      name=None if name is None else name + "/indices"),
        dense_shape=dense_shape)
    result._dense_shape_default = static  # what the given shape says, as TF's set_shape gives it
    return result


def sparse_tensor_to_dense(sp_input, default_value=None, validate_indices=True, name=None):
    """The dense tensor: the entries at their indices, ``default_value`` (0) elsewhere."""
    sp_input = _sparse(sp_input)
    if default_value is None:
        default_value = array_ops.zeros([], dtype=sp_input.dtype)
    return op("SparseToDense", name, [("sparse_indices", sp_input.indices, None),
                                      ("output_shape", sp_input.dense_shape, None),
                                      ("sparse_values", sp_input.values, None),
                                      ("default_value", default_value, sp_input.dtype.base_dtype)],
              {"validate_indices": bool(validate_indices)}).outputs[0]


def sparse_reorder(sp_input, name=None):
    """The same tensor with its entries in row-major order (what most sparse kernels expect)."""
    sp_input = _sparse(sp_input)
    with name_scope(name, "SparseReorder", _parts(sp_input)) as scope:
        indices, values = apply_op("SparseReorder", _parts(sp_input), None, scope).outputs
    if sp_input.get_shape().is_fully_defined():
        return SparseTensor(indices, values, sp_input.get_shape().as_list())
    out = SparseTensor(indices, values, array_ops.identity(sp_input.dense_shape))
    out.set_shape(sp_input.shape)
    return out


def sparse_reshape(sp_input, shape, name=None):
    """The same entries in a dense tensor of ``shape`` (one dim may be -1)."""
    sp_input = _sparse(sp_input)
    shape = array_ops.cast(shape, dtypes.int64)
    with name_scope(name, "SparseReshape", _parts(sp_input)) as scope:
        indices, out_shape = apply_op("SparseReshape", [sp_input.indices, sp_input.dense_shape, shape], None,
                                      scope).outputs
        known = _python_shape(shape)
        if known is not None and sp_input.shape.is_fully_defined():
            given = static_value(shape)
            if given is not None and sum(int(d) == -1 for d in np.asarray(given).reshape(-1)) > 1:
                raise ValueError(f"At most one dimension can be inferred (-1). Found: {np.asarray(given)}")
            original = list(known)
            size = int(np.prod(sp_input.shape.as_list()))
            implied = sum(d is None for d in known)
            if implied == 1 and 0 not in known:
                i = original.index(None)
                rest = original[:i] + original[i + 1:]
                known[i] = int(size // int(np.prod(rest)))
            if implied == 0 or (implied == 1 and 0 not in known):
                if int(np.prod(known)) != size:
                    raise ValueError(f"Cannot reshape a tensor with {size} elements to shape {original} "
                                     f"({int(np.prod(known))} elements).")
                out_shape = constant(known, dtype=dtypes.int64)
        return SparseTensor(indices, array_ops.identity(sp_input.values), out_shape)


def _python_shape(t):
    """The dims TF's Python ``constant_value_as_shape`` reads from a shape tensor while building
    (a Cast or Pack of constants; not what shape inference folds further), as a list with None for
    unknown dims, or None when even the rank is unknown."""
    if t.op.type == "Cast":
        return _python_shape(t.op.inputs[0])
    if t.op.type == "Pack":
        dims = []
        for x in t.op.inputs:
            v = constant_value(x)
            dims.append(None if v is None or int(v) < 0 else int(v))
        return dims
    return constant_value_as_shape(t)


def sparse_add(a, b, threshold=None, thresh=None):
    """``a + b``: two SparseTensors give a SparseTensor (a sum whose magnitude is under
    ``threshold`` is dropped); a SparseTensor and a dense tensor give a dense tensor."""
    threshold = thresh if threshold is None else threshold
    threshold = 0 if threshold is None else threshold
    classes = (SparseTensor, SparseTensorValue)
    if not any(isinstance(x, classes) for x in (a, b)):
        raise TypeError("At least one input should be SparseTensor; do you mean to use tf.add()?")
    if all(isinstance(x, classes) for x in (a, b)):
        a, b = _sparse(a), _sparse(b)
        threshold = convert_to_tensor(threshold, dtype=a.values.dtype.real_dtype.base_dtype, name="threshold")
        indices, values, out_shape = apply_op("SparseAdd", _parts(a) + _parts(b) + [threshold], None,
                                              "SparseAdd").outputs
        a.get_shape().assert_is_compatible_with(b.get_shape())
        static = a.get_shape().merge_with(b.get_shape())
        if static.is_fully_defined():
            out_shape = static.as_list()
        return SparseTensor(indices, values, out_shape)
    if isinstance(b, classes):
        a, b = b, a
    a = _sparse(a)
    return op("SparseTensorDenseAdd", None, [("a_indices", a.indices, None), ("a_values", a.values, None),
                                             ("a_shape", a.dense_shape, None), ("b", b, a.dtype.base_dtype)]).outputs[0]


def sparse_tensor_dense_matmul(sp_a, b, adjoint_a=False, adjoint_b=False, name=None):
    """``sp_a @ b`` (either adjoint), a dense matrix; a SparseTensor ``b`` with a dense ``sp_a``
    is computed transposed, as TF does."""
    if isinstance(b, (SparseTensor, SparseTensorValue)):
        if adjoint_a != adjoint_b:
            return array_ops.transpose(sparse_tensor_dense_matmul(b, sp_a, adjoint_a, adjoint_b))
        return array_ops.transpose(sparse_tensor_dense_matmul(b, sp_a, adjoint_a=not adjoint_a,
                                                              adjoint_b=not adjoint_b))
    sp_a = _sparse(sp_a)
    with name_scope(name, "SparseTensorDenseMatMul", [sp_a.indices, sp_a.values, b]):
        b = convert_to_tensor(b, name="b")
        return apply_op_output("SparseTensorDenseMatMul", _parts(sp_a) + [b],
                               {"adjoint_a": bool(adjoint_a), "adjoint_b": bool(adjoint_b)}, "SparseTensorDenseMatMul")


def sparse_concat(axis, sp_inputs, name=None, expand_nonconcat_dim=False, concat_dim=None,
                  expand_nonconcat_dims=None):
    """The SparseTensors side by side along ``axis``."""
    if expand_nonconcat_dims is not None:
        expand_nonconcat_dim = expand_nonconcat_dims
    axis = concat_dim if axis is None else axis
    if not isinstance(sp_inputs, (list, tuple)):
        raise TypeError("Inputs must be a list or tuple.")
    sp_inputs = [_sparse(s) for s in sp_inputs]
    if len(sp_inputs) == 1:
        return sp_inputs[0]
    shapes = [s.dense_shape for s in sp_inputs]
    if expand_nonconcat_dim:  # every other dim grown to the largest input's
        max_shape = math_ops.reduce_max(array_ops.concat([array_ops.reshape(shape, [1, -1]) for shape in shapes], 0), 0)
        shapes = [array_ops.concat([max_shape[:axis], shape[-1:] if axis == -1 else shape[axis:axis + 1],
                                    [] if axis == -1 else max_shape[axis + 1:]], 0) for shape in shapes]
    inputs = [s.indices for s in sp_inputs] + [s.values for s in sp_inputs] + shapes
    indices, values, out_shape = apply_op("SparseConcat", inputs, {"concat_dim": int(axis), "N": len(sp_inputs)},
                                          name or "SparseConcat").outputs
    static_shapes = [s.shape for s in sp_inputs]
    if all(s.ndims is not None for s in static_shapes):
        if expand_nonconcat_dim:
            static = [None if any(s.sizes[d] is None for s in static_shapes) else max(s.sizes[d] for s in static_shapes)
                      for d in range(static_shapes[0].ndims)]
        else:
            static = list(static_shapes[0].sizes)
        along = [s.sizes[axis] for s in static_shapes]
        static[axis] = None if None in along else sum(along)
    else:
        static = None
    if all(s.is_fully_defined() for s in static_shapes):
        return SparseTensor(indices, values, convert_to_tensor(static, dtype=dtypes.int64))
    out = SparseTensor(indices, values, out_shape)
    out.set_shape(TensorShape(static))
    return out


def sparse_retain(sp_input, to_retain):
    """The entries where the boolean vector ``to_retain`` is True."""
    sp_input = _sparse(sp_input)
    to_retain = convert_to_tensor(to_retain)
    if to_retain.shape.ndims is not None and to_retain.shape.ndims != 1:
        raise ValueError(f"Shape {to_retain.shape} must have rank 1")
    n, m = sp_input.values.shape.sizes and sp_input.values.shape.sizes[0], \
        to_retain.shape.sizes and to_retain.shape.sizes[0]
    if n is not None and m is not None and n != m:
        raise ValueError(f"Dimensions {n} and {m} are not compatible")
    where_true = array_ops.reshape(array_ops.where_v2(to_retain), [-1])
    return SparseTensor(array_ops.gather(sp_input.indices, where_true), array_ops.gather(sp_input.values, where_true),
                        array_ops.identity(sp_input.dense_shape))


def sparse_fill_empty_rows(sp_input, default_value, name=None):
    """(the tensor with ``[row, 0...] = default_value`` in each empty row, which rows were empty)."""
    sp_input = _sparse(sp_input)
    with name_scope(name, "SparseFillEmptyRows", _parts(sp_input)):
        default_value = convert_to_tensor(default_value, dtype=sp_input.values.dtype)
        indices, values, empty, _ = apply_op("SparseFillEmptyRows", _parts(sp_input) + [default_value], None,
                                             "SparseFillEmptyRows").outputs
        return SparseTensor(indices, values, sp_input.dense_shape), empty


def _reduce(op_type, sp_input, axis, keepdims, name):
    from .math_ops import _all_axes
    axis = _all_axes(sp_input) if axis is None else axis
    return op(op_type, name, [("input_indices", sp_input.indices, None), ("input_values", sp_input.values, None),
                              ("input_shape", sp_input.dense_shape, None), ("reduction_axes", axis, dtypes.int32)],
              {"keep_dims": bool(keepdims)}).outputs[0]


def sparse_reduce_sum(sp_input, axis=None, keepdims=None, reduction_axes=None, keep_dims=None):
    """The dense sum over ``axis`` (every axis when None) of the entries; absent ones count as 0."""
    axis = reduction_axes if axis is None else axis
    keepdims = keep_dims if keepdims is None else keepdims
    return _reduce("SparseReduceSum", _sparse(sp_input), axis, keepdims, None)


def sparse_reduce_max(sp_input, axis=None, keepdims=None, reduction_axes=None, keep_dims=None):
    """The dense maximum over ``axis`` of the present entries."""
    axis = reduction_axes if axis is None else axis
    keepdims = keep_dims if keepdims is None else keepdims
    return _reduce("SparseReduceMax", _sparse(sp_input), axis, keepdims, None)


def sparse_softmax(sp_input, name=None):
    """The softmax over the last dim of each row's present entries; absent ones stay absent."""
    sp_input = _sparse(sp_input)
    with name_scope(name, "SparseSoftmax", [sp_input.indices, sp_input.values]):
        values = apply_op_output("SparseSoftmax", _parts(sp_input), None, "SparseSoftmax")
        return SparseTensor(sp_input.indices, values, sp_input.dense_shape)


def _assert_elementwise(compare, x, y, text):
    """An Assert that ``compare(x, y)`` holds everywhere, failing with TF's check_ops words."""
    return Assert(math_ops.reduce_all(compare(x, y)),
                  [f"Condition {text} did not hold element-wise:", "x = ", x, "y = ", y])


def sparse_reset_shape(sp_input, new_shape=None):
    """The same entries with the dense shape ``new_shape`` (no smaller than the old), or, without
    one, the smallest shape that holds them."""
    sp_input = _sparse(sp_input)
    in_indices = array_ops.identity(sp_input.indices)
    in_values = array_ops.identity(sp_input.values)
    in_shape = array_ops.identity(sp_input.dense_shape)
    if new_shape is None:
        low = math_ops.reduce_max(in_indices, axis=0)
        out_shape = math_ops.maximum(constant(0, dtype=dtypes.int64), math_ops.add(low, array_ops.ones_like(in_shape)))
        return SparseTensor(in_indices, in_values, out_shape)
    out_shape = convert_to_tensor(new_shape)
    if out_shape.shape.ndims is not None and out_shape.shape.ndims != 1:
        raise ValueError(f"Shape {out_shape.shape} must have rank 1")
    out_shape = array_ops.cast(out_shape, dtypes.int64)
    n, m = out_shape.shape.sizes and out_shape.shape.sizes[0], in_shape.shape.sizes and in_shape.shape.sizes[0]
    if n is not None and m is not None and n != m:
        raise ValueError(f"Dimensions {n} and {m} are not compatible")
    known = constant_value(out_shape)
    if known is None or not sp_input.get_shape().is_fully_defined():
        # checked when it runs, with TF's words (TF's check_ops build more ops for the same checks)
        out_shape = with_dependencies([_assert_elementwise(math_ops.equal, array_ops.shape(in_shape),
                                                           array_ops.shape(out_shape), "x == y")], out_shape)
        out_shape = with_dependencies([_assert_elementwise(math_ops.less_equal, in_shape, out_shape, "x <= y")],
                                      out_shape)
        return SparseTensor(in_indices, in_values, out_shape)
    old = np.array(sp_input.get_shape().as_list())
    if not np.all(old <= known):
        raise ValueError(f"Requested new_shape should have dimension sizes >= sp_input.shape.  Found new_shape "
                         f"({old}), sp_input.shape ({known}).")
    return SparseTensor(in_indices, in_values, known)


def _sparse_sparse(op_type, sp_a, sp_b, name):
    sp_a, sp_b = _sparse(sp_a), _sparse(sp_b)
    with name_scope(name, op_type, [sp_a.indices, sp_a.values, sp_b.indices, sp_b.values]) as scope:
        indices, values = apply_op(op_type, _parts(sp_a) + _parts(sp_b), None, scope).outputs
    return SparseTensor(indices, values, sp_a.dense_shape)


def sparse_maximum(sp_a, sp_b, name=None):
    """The elementwise maximum of two SparseTensors of one shape (an absent entry counts as 0)."""
    return _sparse_sparse("SparseSparseMaximum", sp_a, sp_b, name)


def sparse_minimum(sp_a, sp_b, name=None):
    """The elementwise minimum of two SparseTensors of one shape (an absent entry counts as 0)."""
    return _sparse_sparse("SparseSparseMinimum", sp_a, sp_b, name)


def sparse_transpose(sp_input, perm=None, name=None):
    """The SparseTensor with its dims permuted by ``perm`` (reversed when None), reordered."""
    sp_input = _sparse(sp_input)
    with name_scope(name, "SparseTranspose", [sp_input]):
        if perm is None:
            if sp_input.shape.rank is not None:
                rank = sp_input.shape.rank
                perm = (rank - 1) - np.arange(0, rank, 1)
            else:
                rank = array_ops.size(sp_input.dense_shape)
                perm = (rank - 1) - array_ops.range(0, rank, 1)
        indices = sp_input.indices
        transposed_indices = array_ops.transpose(array_ops.gather(array_ops.transpose(indices), perm))
        perm_ = constant_value(convert_to_tensor(perm))
        if perm_ is not None and sp_input.get_shape().is_fully_defined():
            old_shape_ = sp_input.get_shape().as_list()
            transposed_dense_shape = list(old_shape_)
            for i, p in enumerate(perm_):
                transposed_dense_shape[i] = old_shape_[p]
        else:
            dense_shape = sp_input.dense_shape
            transposed_dense_shape = array_ops.gather(dense_shape, perm)
        return sparse_reorder(SparseTensor(transposed_indices, sp_input.values, transposed_dense_shape))


def sparse_dense_cwise_add(sp_t, dense_t):
    """The entries plus the dense tensor broadcast to them (a SparseTensor of the same entries)."""
    sp_t = _sparse(sp_t)
    values = apply_op_output("SparseDenseCwiseAdd", _parts(sp_t) + [dense_t], None, "SparseDenseCwiseAdd")
    return SparseTensor(sp_t.indices, values, sp_t.dense_shape)


def _merge(sp_ids, sp_values, vocab_size, name=None, already_sorted=False):
    """TF's ``sparse_merge_impl``: each id tensor becomes one more index column (a list of them,
    several), the values ``sp_values``' own; sorted unless ``already_sorted``."""
    if isinstance(sp_ids, (SparseTensor, SparseTensorValue)):
        sp_ids = [sp_ids]
        if not isinstance(vocab_size, (Tensor, numbers.Integral)):
            raise TypeError(f"vocab_size has to be a Tensor or Python int. Found {type(vocab_size)}")
        vocab_size = [vocab_size]
    else:
        if not isinstance(sp_ids, collections.abc.Iterable):
            raise TypeError(f"sp_ids has to be a SparseTensor or list thereof. Found {type(sp_ids)}")
        if not isinstance(vocab_size, collections.abc.Iterable):
            raise TypeError(f"vocab_size has to be a list of Tensors or Python ints. Found {type(vocab_size)}")
        for dim in vocab_size:
            if not isinstance(dim, (Tensor, numbers.Integral)):
                raise TypeError(f"vocab_size has to be a list of Tensors or Python ints. Found {type(dim)}")
    if len(sp_ids) != len(vocab_size):
        raise ValueError("sp_ids and vocab_size have to have equal lengths.")
    with name_scope(name, "SparseMerge", [sp_ids, sp_values]):
        sp_ids = [_sparse(s) for s in sp_ids]
        sp_values = _sparse(sp_values)
        ids = []
        for sp in sp_ids:
            column = sp.values
            if sp.dtype != dtypes.int64:
                column = array_ops.cast(column, dtypes.int64)
            ids.append(array_ops.expand_dims(column, axis=1))
        vocab_size = [array_ops.cast(x, dtypes.int64) for x in vocab_size]
        new_indices = array_ops.concat([sp_ids[0].indices[:, :-1]] + ids, 1)
        new_shape = array_ops.concat([sp_ids[0].dense_shape[:-1], vocab_size], 0)
        result = SparseTensor(new_indices, sp_values.values, new_shape)
        if already_sorted:
            return result
        result = sparse_reorder(result)
        return SparseTensor(result.indices, result.values, new_shape)


def sparse_merge(sp_ids, sp_values, vocab_size, name=None, already_sorted=False):
    """A SparseTensor whose last index is each entry's id (of ``sp_ids``, or one column per id
    tensor of a list) and whose value is ``sp_values``'."""
    return _merge(sp_ids, sp_values, vocab_size, name, already_sorted)


def sparse_to_indicator(sp_input, vocab_size, name=None):
    """A dense bool tensor one dim longer: True at ``[..., id]`` for each id the row holds."""
    sp_input = _sparse(sp_input)
    with name_scope(name, "SparseToIndicator", _parts(sp_input)) as scope:
        num_entries = array_ops.shape(sp_input.indices)[0]
        new_values = array_ops.fill(array_ops.expand_dims(num_entries, 0), True)
        sp_values = SparseTensor(sp_input.indices, new_values, sp_input.dense_shape)
        merged = _merge(sp_input, sp_values, vocab_size, scope)
        return sparse_tensor_to_dense(merged, default_value=False, validate_indices=False, name=scope)


def from_dense(tensor, name=None):
    """``tf.sparse.from_dense``: the non-zero entries of a dense tensor."""
    with name_scope(name, "dense_to_sparse"):
        tensor = convert_to_tensor(tensor)
        indices = array_ops.where_v2(math_ops.not_equal(tensor, array_ops.zeros_like(tensor)))
        values = array_ops.gather_nd(tensor, indices)
        shape = array_ops.shape(tensor, out_type=dtypes.int64)
        return SparseTensor(indices, values, shape)
