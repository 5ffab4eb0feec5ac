"""Kernels of the sparse updates: ``Unique``, the ``Scatter*`` writes and the sparse optimizer
updates (``SparseApply*``: each optimizer's dense formula applied to the rows a gradient lists),
``SparseToDense`` and ``GatherNd``, as TensorFlow's kernels compute and check them (scatter_op.cc,
training_ops.cc, unique_op.cc, sparse_to_dense_op.cc).
A write touches only the rows its indices name, in the buffer the run hands it (``ref.copy_for_rows``):
the variable's own array when nothing else can see it (its old rows kept to undo the write), else
a copy, so a run that fails later leaves the variable as it was."""
import numpy as np

from ..framework import errors
from .kernels import _shape_text, check_bad_indices_policy, scatter_add as _scatter_add, to_host


def unique(k, x):
    """The distinct values of a vector in order of first appearance, and for each element the
    position of its value among them."""
    xp = k.xp
    if x.ndim != 1:
        raise errors.InvalidArgumentError(None, None, "unique expects a 1D vector.")
    values, first, inverse = xp.unique(x, return_index=True, return_inverse=True)
    order = xp.argsort(first, kind="stable")
    rank = xp.empty_like(order)
    rank[order] = xp.arange(order.size)
    out_idx = k.attrs.get("out_idx")
    return values[order], rank[inverse.reshape(-1)].astype(out_idx.as_numpy_dtype if out_idx else "int32")


def _check_scatter(params, indices, updates):
    if params.ndim < 1:
        raise errors.InvalidArgumentError(None, None, f"params must be at least 1-D, got shape {_shape_text(params)}")
    if updates.ndim != 0 and updates.shape != indices.shape + params.shape[1:]:
        raise errors.InvalidArgumentError(
            None, None, f"Must have updates.shape = indices.shape + params.shape[1:] or updates.shape = [], got "
                        f"updates.shape {_shape_text(updates)}, indices.shape {_shape_text(indices)}, "
                        f"params.shape {_shape_text(params)}")
    if not indices.size or indices_below(indices, params.shape[0]):
        return  # one reduction: cheaper than the mask below, which only a bad index needs
    bad = (indices < 0) | (indices >= params.shape[0])
    if bad.any():
        flat = int(bad.reshape(-1).argmax())
        where = ",".join(str(int(i)) for i in _unravel(flat, indices.shape))
        raise errors.InvalidArgumentError(None, None, f"indices[{where}] = {int(indices.reshape(-1)[flat])} is not "
                                          f"in [0, {params.shape[0]})")


def indices_below(indices, n):
    """Whether every index is in [0, n): for signed integers one ``max`` over them read as unsigned,
    where a negative index is larger than any row."""
    unsigned = _UNSIGNED.get(indices.dtype) if isinstance(indices, np.ndarray) and indices.flags.c_contiguous else None
    if unsigned is not None:
        return int(indices.view(unsigned).max()) < n
    return indices.min() >= 0 and indices.max() < n


_UNSIGNED = {np.dtype(np.int32): np.uint32, np.dtype(np.int64): np.uint64}


def _unravel(flat, shape):
    out = []
    for n in reversed(shape):
        out.append(flat % n)
        flat //= n
    return list(reversed(out)) or [0]


def _scatter(write):
    def kernel(k, ref, indices, updates):
        _check_scatter(ref.read(), indices, updates)  # no reference kept: the write may then go in place
        rows = indices.reshape(-1)
        new = _copy_for_rows(k.xp, ref, rows)
        write(k.xp, new, rows, updates.reshape((-1,) + new.shape[1:]) if updates.ndim else updates)
        ref.assign(new)
        return ref
    kernel.__name__ = write.__name__
    return kernel


def _copy_for_rows(xp, ref, rows):
    """A buffer for the variable's new value holding its current value, for a write of ``rows``:
    a run's VarRef copies only the rows its spare buffer lacks (``runtime/variable_store.py``)."""
    copy = getattr(ref, "copy_for_rows", None)
    if copy is not None:
        return copy(rows)
    new = ref.new_buffer()
    xp.copyto(new, ref.read())
    return new


def _update(xp, out, index, values):
    out[index] = values


def _add(xp, out, index, values):
    _scatter_add(xp, out, index, values)  # a row listed twice gets both


def _subtract(xp, out, index, values):
    _scatter_add(xp, out, index, values, subtract=True)  # a - b is exactly a + (-b)


scatter_update = _scatter(_update)
scatter_add = _scatter(_add)
scatter_sub = _scatter(_subtract)


def _check_sparse_apply(var, grad, indices):
    if indices.ndim != 1:
        raise errors.InvalidArgumentError(None, None, "indices must be one-dimensional")
    if var.ndim < 1:
        raise errors.InvalidArgumentError(None, None, "var must be at least 1 dimensional")
    if grad.shape[1:] != var.shape[1:]:
        raise errors.InvalidArgumentError(None, None, "var and grad must match in dimension 1 and higher")
    if grad.shape[0] != indices.shape[0]:
        raise errors.InvalidArgumentError(None, None, "grad must be the same size as indices in the first dimension.")
    bad = (indices < 0) | (indices >= var.shape[0])
    if bad.any():
        at = int(bad.argmax())
        raise errors.InvalidArgumentError(None, None, f"Index {int(indices[at])} at offset {at} in indices is out "
                                          f"of range")


def _positions(xp, indices):
    """Which positions of ``indices`` to apply together: all at once when no index repeats, else
    one at a time (a row listed twice sees its first update, as in TF's loop)."""
    if xp.unique(indices).size == indices.size:
        return [slice(None)]
    return [slice(i, i + 1) for i in range(indices.size)]


class _Rows:
    """Some rows of a variable's new value, standing in for the variable: a dense update kernel
    given these updates just those rows (``read``, ``new_buffer`` and ``assign`` of a VarRef)."""

    def __init__(self, xp, full, rows):
        self.xp, self.full, self.rows = xp, full, rows

    def read(self):
        return self.full[self.rows]

    def new_buffer(self):
        return self.xp.empty((self.rows.size,) + self.full.shape[1:], self.full.dtype)

    def assign(self, value):
        self.full[self.rows] = value


def sparse(dense, grad_at):
    """The ``SparseApply*`` kernel of a dense ``Apply*`` kernel whose gradient is input
    ``grad_at``: the sparse op takes the gradient's rows there and their indices right after,
    and applies the dense formula to those rows of the variable and its slots only."""
    def kernel(k, *inputs):
        xp, grad, indices = k.xp, inputs[grad_at], inputs[grad_at + 1]
        args = list(inputs[:grad_at + 1] + inputs[grad_at + 2:])
        refs = [i for i, x in enumerate(args) if hasattr(x, "new_buffer")]  # the variable and its slots
        _check_sparse_apply(args[refs[0]].read(), grad, indices)
        fulls = {}
        for i in refs:
            fulls[i] = _copy_for_rows(xp, args[i], indices)
        for at in _positions(xp, indices):
            rows = [_Rows(xp, fulls[i], indices[at]) if i in fulls else x for i, x in enumerate(args)]
            rows[grad_at] = grad[at]
            dense(k, *rows)
        for i in refs:
            args[i].assign(fulls[i])
        return args[refs[0]]
    kernel.__name__ = "sparse_" + dense.__name__
    return kernel


def _index_text(index):
    return "[" + ",".join(str(int(i)) for i in index) + "]"


def sparse_to_dense(k, sparse_indices, output_shape, sparse_values, default_value):
    """A dense tensor of ``output_shape`` filled with ``default_value``, ``sparse_values`` (one
    per index, or one for all) at ``sparse_indices`` (a scalar, a vector of positions in a vector,
    or a matrix of n-D indices), checked as TF checks them (sparse_to_dense_op.cc)."""
    xp = k.xp
    indices, shape = to_host(sparse_indices), to_host(output_shape)
    if indices.ndim > 2:
        raise errors.InvalidArgumentError(None, None, f"sparse_indices should be a scalar, vector, or matrix, got "
                                                       f"shape {_shape_text(indices)}")
    if shape.ndim != 1:
        raise errors.InvalidArgumentError(None, None, f"output_shape must be rank 1, got shape {_shape_text(shape)}")
    num_elems = indices.shape[0] if indices.ndim > 0 else 1
    num_dims = indices.shape[1] if indices.ndim > 1 else 1
    values = sparse_values
    if values.ndim > 1 or (values.ndim == 1 and values.shape[0] != num_elems):
        raise errors.InvalidArgumentError(None, None, f"sparse_values has incorrect shape {_shape_text(values)}, "
                                                       f"should be [] or [{num_elems}]")
    if default_value.ndim != 0:
        raise errors.InvalidArgumentError(None, None, "default_value should be a scalar.")
    if shape.shape[0] != num_dims:
        raise errors.InvalidArgumentError(None, None, f"output_shape has incorrect number of elements: "
                                                       f"{shape.shape[0]} should be: {num_dims}")
    rows = indices.reshape(num_elems, num_dims).astype(np.int64)
    dims_ = [int(d) for d in shape.tolist()]
    if k.attrs.get("validate_indices", True):
        _validate_sorted(rows, dims_)
    elif ((rows < 0) | (rows >= np.array(dims_, np.int64))).any():
        raise errors.InvalidArgumentError(None, None, f"Indices are not valid (out of bounds).  Shape: "
                                                       f"{_index_text(dims_)}")
    dense = xp.full(dims_, default_value, dtype=values.dtype)
    dense[tuple(rows.T)] = xp.broadcast_to(values, (num_elems,))
    return dense


def _validate_sorted(rows, dims_):
    """TF's SparseTensor::ValidateIndices: in bounds, in lexicographic order, no repeats."""
    for n, index in enumerate(rows.tolist()):
        if any(not 0 <= i < d for i, d in zip(index, dims_)):
            raise errors.InvalidArgumentError(None, None, f"indices[{n}] = {_index_text(index)} is out of bounds: "
                                                           f"need 0 <= index < {_index_text(dims_)}")
        if n > 0:
            previous = rows[n - 1].tolist()
            if index < previous:
                raise errors.InvalidArgumentError(None, None, f"indices[{n}] = {_index_text(index)} is out of order. "
                                                               f"Many sparse ops require sorted indices.")
            if index == previous:
                raise errors.InvalidArgumentError(None, None, f"indices[{n}] = {_index_text(index)} is repeated")


def gather_nd(k, params, indices):
    """The slices of ``params`` at the index tuples in the last dimension of ``indices``."""
    indices = to_host(indices)
    depth = indices.shape[-1]
    check_bad_indices_policy(k, "GatherNd")
    ignore = k.attrs.get("bad_indices_policy") == "IGNORE"  # a bad index gives zeros instead of the error
    bad = []
    for row, index in enumerate(indices.reshape(-1, depth).tolist()):
        if any(not 0 <= i < d for i, d in zip(index, params.shape)):
            if ignore:
                bad.append(row)
                continue
            where = ", ".join(map(str, index))
            raise errors.InvalidArgumentError(None, None, f"indices[{where}] does not index into param shape "
                                                           f"{_shape_text(params)}")
    if not bad:
        return params[tuple(np.moveaxis(indices, -1, 0))]
    rows = indices.reshape(-1, depth).copy()
    rows[bad] = 0
    out = params[tuple(np.moveaxis(rows, -1, 0))]
    out[bad] = 0
    return out.reshape(indices.shape[:-1] + params.shape[depth:])
