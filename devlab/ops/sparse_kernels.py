"""Kernels of the sparse updates: ``Unique``, the ``Scatter*`` writes and the sparse optimizer
updates (``SparseApplyMomentum``, ``SparseApplyAdagrad``), as TensorFlow's kernels compute and
check them (scatter_op.cc, training_ops.cc, unique_op.cc). A write touches only the rows its
indices name; it still goes into the buffer the run hands it (``ref.new_buffer()``), so a run
that fails later leaves the variable as it was."""
from ..framework import errors
from .kernels import _same_shape, _scalar, _shape_text, scatter_add as _scatter_add


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
    bad = (indices < 0) | (indices >= params.shape[0])
    if bad.any():
        flat = int(bad.reshape(-1).argmax())
        where = ",".join(str(int(i)) for i in _unravel(flat, indices.shape))
        raise errors.InvalidArgumentError(None, None, f"indices[{where}] = {int(indices.reshape(-1)[flat])} is not "
                                          f"in [0, {params.shape[0]})")


def _unravel(flat, shape):
    out = []
    for n in reversed(shape):
        out.append(flat % n)
        flat //= n
    return list(reversed(out)) or [0]


def _scatter(write):
    def kernel(k, ref, indices, updates):
        old = ref.read()
        _check_scatter(old, indices, updates)
        new = ref.new_buffer()
        k.xp.copyto(new, old)
        write(k.xp, new, indices.reshape(-1), updates.reshape((-1,) + old.shape[1:]) if updates.ndim else updates)
        ref.assign(new)
        return ref
    kernel.__name__ = write.__name__
    return kernel


def _update(xp, out, index, values):
    out[index] = values


def _add(xp, out, index, values):
    _scatter_add(xp, out, index, values)  # a row listed twice gets both


def _subtract(xp, out, index, values):
    _scatter_add(xp, out, index, -values)  # a - b is exactly a + (-b)


scatter_update = _scatter(_update)
scatter_add = _scatter(_add)
scatter_sub = _scatter(_subtract)


def _check_sparse_apply(var, slots, grad, indices, scalars):
    for name, slot in slots:
        _same_shape(var, name, slot)
    for name, x in scalars:
        _scalar(name, x)
    if indices.ndim != 1:
        raise errors.InvalidArgumentError(None, None, "indices must be one-dimensional")
    if var.ndim < 1:
        raise errors.InvalidArgumentError(None, None, "var must be at least 1 dimensional")
    if grad.shape[1:] != var.shape[1:]:
        raise errors.InvalidArgumentError(
            None, None, "var and grad must match in dimension 1 and higher")
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


def sparse_apply_momentum(k, var, accum, lr, grad, indices, momentum):
    """For each listed row: accum = accum * momentum + grad; var -= accum * lr (Nesterov:
    var -= grad * lr + accum * momentum * lr)."""
    xp, v, a = k.xp, var.read(), accum.read()
    _check_sparse_apply(v, [("accum", a)], grad, indices, [("lr", lr), ("momentum", momentum)])
    new_v, new_a = var.new_buffer(), accum.new_buffer()
    xp.copyto(new_v, v)
    xp.copyto(new_a, a)
    nesterov = k.attrs.get("use_nesterov")
    for at in _positions(xp, indices):
        rows, g = indices[at], grad[at]
        new_a[rows] = new_a[rows] * momentum + g
        if nesterov:
            new_v[rows] -= g * lr + new_a[rows] * momentum * lr
        else:
            new_v[rows] -= new_a[rows] * lr
    accum.assign(new_a)
    var.assign(new_v)
    return var


def sparse_apply_adagrad(k, var, accum, lr, grad, indices):
    """For each listed row: accum += grad²; var -= grad * lr / sqrt(accum)."""
    xp, v, a = k.xp, var.read(), accum.read()
    _check_sparse_apply(v, [("accum", a)], grad, indices, [("lr", lr)])
    new_v, new_a = var.new_buffer(), accum.new_buffer()
    xp.copyto(new_v, v)
    xp.copyto(new_a, a)
    for at in _positions(xp, indices):
        rows, g = indices[at], grad[at]
        if k.attrs.get("update_slots", True):
            new_a[rows] += g * g
        new_v[rows] -= g * lr / xp.sqrt(new_a[rows])
    accum.assign(new_a)
    var.assign(new_v)
    return var
