"""Shape rules of the ops over a SparseTensor's three components (indices ``[N, rank]``, values
``[N]``, dense shape ``[rank]``), giving the static shapes TensorFlow's shape functions give
(sparse_ops.cc): what the inputs fix is known, what depends on the data (how many entries a sum
keeps) is not."""
import numpy as np

from ..framework import dtypes
from .shapes import ShapeError, dims
from .tensor_util import constant_value_as_shape, static_value

I64 = dtypes.int64


def _n(t):
    """The first dim of ``t`` (None when unknown)."""
    d = dims(t)
    return None if not d else d[0]


def _rank_of_shape(t):
    """The rank a dense-shape vector gives (its length), or None."""
    d = dims(t)
    return None if not d else d[0]


def _second(t):
    d = dims(t)
    return None if d is None or len(d) < 2 else d[1]


def _first_known(*values):
    return next((v for v in values if v is not None), None)


def reorder(inputs, attrs):
    """SparseReorder: the entries in another order, their number unchanged."""
    return [(I64, dims(inputs[0])), (inputs[1].dtype.base_dtype, dims(inputs[1]))]


def reshape(inputs, attrs):
    """SparseReshape: as many entries, each indexed in the new shape's rank."""
    rank = _rank_of_shape(inputs[2])
    return [(I64, (_n(inputs[0]), rank)), (I64, (rank,))]


def add(inputs, attrs):
    """SparseAdd: how many entries the sum keeps is known when it runs."""
    rank = _first_known(_second(inputs[0]), _second(inputs[3]), _rank_of_shape(inputs[2]))
    return [(I64, (None, rank)), (inputs[1].dtype.base_dtype, (None,)), (I64, (rank,))]


def add_grad(inputs, attrs):
    """SparseAddGrad: one gradient per entry of each operand."""
    dtype = inputs[0].dtype.base_dtype
    return [(dtype, (_n(inputs[1]),)), (dtype, (_n(inputs[2]),))]


def dense_add(inputs, attrs):
    """SparseTensorDenseAdd: the dense operand's shape."""
    for n, m in ((_n(inputs[0]), _n(inputs[1])), (_second(inputs[0]), _rank_of_shape(inputs[2]))):
        if n is not None and m is not None and n != m:
            raise ShapeError(f"Dimensions {n} and {m} are not compatible")
    return [(inputs[1].dtype.base_dtype, dims(inputs[3]))]


def dense_matmul(inputs, attrs):
    """SparseTensorDenseMatMul: rows of (adjoint) a, columns of (adjoint) b."""
    a_shape = constant_value_as_shape(inputs[2])
    b = dims(inputs[3])
    if b is not None and len(b) != 2:
        raise ShapeError(f"Shape must be rank 2 but is rank {len(b)}")
    if a_shape is not None and len(a_shape) != 2:
        raise ShapeError(f"Shape must be rank 2 but is rank {len(a_shape)}")
    rows = None if a_shape is None else a_shape[1 if attrs.get("adjoint_a") else 0]
    inner_a = None if a_shape is None else a_shape[0 if attrs.get("adjoint_a") else 1]
    cols = None if b is None else b[0 if attrs.get("adjoint_b") else 1]
    inner_b = None if b is None else b[1 if attrs.get("adjoint_b") else 0]
    if inner_a is not None and inner_b is not None and inner_a != inner_b:
        raise ShapeError(f"Dimensions must be equal, but are {inner_a} and {inner_b}")
    return [(inputs[1].dtype.base_dtype, (rows, cols))]


def concat(inputs, attrs):
    """SparseConcat: every input's entries, as many as they hold together."""
    n = attrs["N"]
    ranks = {r for r in [_second(t) for t in inputs[:n]] + [_rank_of_shape(t) for t in inputs[2 * n:]] if r is not None}
    if len(ranks) > 1:
        a, b = sorted(ranks)[:2]
        raise ShapeError(f"Dimensions {a} and {b} are not compatible")
    counts = [_n(t) for t in inputs[:n]]
    total = None if None in counts else sum(counts)
    rank = _first_known(*[_second(t) for t in inputs[:n]], *[_rank_of_shape(t) for t in inputs[2 * n:]])
    return [(I64, (total, rank)), (inputs[n].dtype.base_dtype, (total,)), (I64, (rank,))]


def fill_empty_rows(inputs, attrs):
    """SparseFillEmptyRows: the entries plus one per empty row (known when it runs)."""
    shape = constant_value_as_shape(inputs[2])
    rows = None if not shape else shape[0]
    return [(I64, (None, _second(inputs[0]))), (inputs[1].dtype.base_dtype, (None,)),
            (dtypes.bool, (rows,)), (I64, (_n(inputs[0]),))]


def fill_empty_rows_grad(inputs, attrs):
    dtype = inputs[1].dtype.base_dtype
    return [(dtype, dims(inputs[0])), (dtype, ())]


def reduce(inputs, attrs):
    """SparseReduceSum/Max: the dense shape less (or with ones at) the reduced axes, when both are
    known."""
    shape = constant_value_as_shape(inputs[2])
    axes = static_value(inputs[3])
    dtype = inputs[1].dtype.base_dtype
    if shape is None or axes is None:
        return [(dtype, None)]
    rank = len(shape)
    reduced = {int(a) % rank if rank else 0 for a in np.asarray(axes).reshape(-1)}
    if attrs.get("keep_dims"):
        return [(dtype, tuple(1 if i in reduced else d for i, d in enumerate(shape)))]
    return [(dtype, tuple(d for i, d in enumerate(shape) if i not in reduced))]


def values_like(inputs, attrs):
    """SparseSoftmax, SparseDenseCwise*: one value per entry."""
    return [(inputs[1].dtype.base_dtype, dims(inputs[1]))]


def segment_reduce(inputs, attrs):
    """SparseSegmentSum/Mean/SqrtN and SegmentSum: as many rows as segments (known when it runs)."""
    data = dims(inputs[0])
    return [(inputs[0].dtype.base_dtype, None if data is None else (None,) + tuple(data[1:]))]


def segment_reduce_grad(inputs, attrs):
    """SparseSegment*Grad: the data's rows (``output_dim0`` of them), each shaped as the gradient's."""
    grad, n = dims(inputs[0]), static_value(inputs[3])
    rows = None if n is None else int(n)
    return [(inputs[0].dtype.base_dtype, None if grad is None else (rows,) + tuple(grad[1:]))]


def segment_reduce_grad_v2(inputs, attrs):
    """SparseSegment*GradV2: the rows the indices touch (known when it runs) and which they are."""
    grad = dims(inputs[0])
    return [(inputs[0].dtype.base_dtype, None if grad is None else (None,) + tuple(grad[1:])),
            (inputs[1].dtype.base_dtype, (None,))]


def sparse_sparse(inputs, attrs):
    """SparseSparseMaximum/Minimum: the union of the entries (known when it runs)."""
    return [(I64, (None, None)), (inputs[1].dtype.base_dtype, (None,))]
