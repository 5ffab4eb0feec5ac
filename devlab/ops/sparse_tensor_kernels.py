"""Kernels of the ops over a SparseTensor's components (sparse_ops.cc, sparse_*_op.cc,
segment_reduction_ops.cc): reorder, reshape, add, concatenate, fill empty rows, reduce, softmax,
the products and sums with a dense tensor, and the segment sums an embedding_lookup_sparse makes.

Indices are worked on the host as numpy int64 (they are small and sorting them is the work);
values come back through ``k.xp``. Bad input raises TF's InvalidArgumentError with its words."""
import numpy as np

from ..framework import errors
from .kernels import scatter_add, to_host


def _err(message):
    return errors.InvalidArgumentError(None, None, message)


def _shape_text(a):
    return "[" + ",".join(str(d) for d in np.shape(a)) + "]"


def _check_sparse(indices, values, shape, what=""):
    """TF's checks of one (indices, values, dense_shape) triple."""
    if indices.ndim != 2:
        raise _err(f"Input {what}indices should be a matrix but received shape {_shape_text(indices)}")
    if values.ndim != 1:
        raise _err(f"Input {what}values should be a vector but received shape {_shape_text(values)}")
    if shape.ndim != 1:
        raise _err(f"Input {what}shape should be a vector but received shape {_shape_text(shape)}")
    if indices.shape[0] != values.shape[0]:
        raise _err(f"Number of elements in input {what}indices ({indices.shape[0]}) and values "
                   f"({values.shape[0]}) do not match")
    if indices.shape[1] != shape.shape[0]:
        raise _err(f"Input {what}indices has rank {indices.shape[1]} but dense shape has rank {shape.shape[0]}")
    _check_dense_shape(shape)


def _check_dense_shape(shape):
    """TF's TensorShape checks of a dense shape: no negative dim, no overflowing element count."""
    total = 1
    for d in shape.tolist():
        if d < 0:
            raise _err(f"Dimension {d} must be >= 0")
        if total * d > 2**63 - 1:
            raise _err(f"Encountered overflow when multiplying {total} with {d}, result: -1")
        total *= d


def _order(indices):
    """The permutation that sorts index rows lexicographically (the standard order), stable."""
    if indices.shape[0] == 0 or indices.shape[1] == 0:
        return np.arange(indices.shape[0])
    return np.lexsort(indices.T[::-1])


def _host(*arrays):
    return [np.asarray(to_host(a)) for a in arrays]


def _check_bounds(indices, shape):
    bad = (indices < 0) | (indices >= shape)
    if bad.any():
        i = int(bad.any(axis=1).argmax())
        raise _err(f"indices[{i}] = [{','.join(str(int(v)) for v in indices[i])}] is out of bounds: need 0 <= index "
                   f"< [{','.join(str(int(d)) for d in shape)}]")


def sparse_reorder(k, indices, values, shape):
    """The entries in row-major order of their indices."""
    ind, sh = _host(indices, shape)
    _check_sparse(ind, to_host(values), sh)  # TF checks no bounds here
    order = _order(ind)
    return k.xp.asarray(ind[order]), values[k.xp.asarray(order)]


def sparse_reshape(k, input_indices, input_shape, new_shape):
    """The same entries indexed in ``new_shape`` (one -1 dim inferred), by their row-major offsets."""
    ind, old, new = _host(input_indices, input_shape, new_shape)
    if ind.ndim != 2:
        raise _err(f"Input indices should be a matrix but received shape {_shape_text(ind)}")
    if old.ndim != 1:
        raise _err(f"Input shape should be a vector but received shape {_shape_text(old)}")
    if new.ndim != 1:
        raise _err(f"Target shape should be a vector but received shape {_shape_text(new)}")
    dense_size = int(np.prod(old))
    new = new.astype(np.int64).copy()
    unknown = [i for i, d in enumerate(new) if d == -1]
    if len(unknown) > 1:
        raise _err(f"only one output dimension may be -1, not both {unknown[0]} and {unknown[1]}")
    for i, d in enumerate(new):
        if d < -1:
            raise _err(f"size {i} must be non-negative, not {d}")
    product = int(np.prod([d for d in new if d != -1]))
    if unknown:
        if product == 0 or dense_size % product:
            raise _err(f"Input to reshape is a SparseTensor with {dense_size} dense values, but the requested shape "
                       f"requires a multiple of {product}. input_shape=[{','.join(map(str, old))}] "
                       f"output_shape=[{','.join(map(str, new))}]")
        new[unknown[0]] = dense_size // product
    elif product != dense_size:
        raise _err(f"Input to reshape is a tensor with {dense_size} dense values, but the requested shape has "
                   f"{product}. input_shape=[{','.join(map(str, old))}] output_shape=[{','.join(map(str, new))}]")
    if ind.shape[0] == 0:
        return k.xp.asarray(np.zeros((0, new.size), np.int64)), k.xp.asarray(new)
    flat = np.ravel_multi_index(tuple(ind.T), tuple(old)) if old.size else np.zeros(ind.shape[0], np.int64)
    out = np.stack(np.unravel_index(flat, tuple(new)), axis=1) if new.size else np.zeros((ind.shape[0], 0))
    return k.xp.asarray(out.astype(np.int64)), k.xp.asarray(new)


def _check_same_shape(a_shape, b_shape):
    if a_shape.shape != b_shape.shape:
        raise _err(f"Operands do not have the same ranks; got shapes: {_shape_text_of(a_shape)} and "
                   f"{_shape_text_of(b_shape)}")
    for i, (x, y) in enumerate(zip(a_shape, b_shape)):
        if x != y:
            raise _err(f"Operands' shapes do not match: got {x} and {y} for dimension {i}")


def _shape_text_of(shape):
    return "[" + ",".join(str(int(d)) for d in shape) + "]"


def sparse_add(k, a_indices, a_values, a_shape, b_indices, b_values, b_shape, thresh):
    """The merged entries of two sorted SparseTensors; a sum present in both is kept when its
    magnitude is at least ``thresh`` (sparse_add_op.cc)."""
    ai, ash, bi, bsh = _host(a_indices, a_shape, b_indices, b_shape)
    av, bv, th = _host(a_values, b_values, thresh)
    _check_sparse(ai, av, ash, "a_")
    _check_sparse(bi, bv, bsh, "b_")
    _check_same_shape(ash, bsh)
    out_i, out_v = [], []
    i = j = 0
    while i < len(ai) and j < len(bi):
        x, y = tuple(ai[i]), tuple(bi[j])
        if x < y:
            out_i.append(ai[i])
            out_v.append(av[i])
            i += 1
        elif x > y:
            out_i.append(bi[j])
            out_v.append(bv[j])
            j += 1
        else:
            s = av[i] + bv[j]
            if np.abs(s) >= th:
                out_i.append(ai[i])
                out_v.append(s)
            i += 1
            j += 1
    out_i += list(ai[i:]) + list(bi[j:])
    out_v += list(av[i:]) + list(bv[j:])
    rank = ash.size
    indices = np.array(out_i, np.int64).reshape(-1, rank)
    return (k.xp.asarray(indices), k.xp.asarray(np.array(out_v, av.dtype).reshape(-1)),
            k.xp.asarray(ash.astype(np.int64)))


def _sparse_sparse(fn):
    def kernel(k, a_indices, a_values, a_shape, b_indices, b_values, b_shape):
        """The union of two SparseTensors' entries, ``fn`` of their values (0 where one has none)."""
        ai, ash, bi, bsh = _host(a_indices, a_shape, b_indices, b_shape)
        av, bv = np.asarray(to_host(a_values)), np.asarray(to_host(b_values))
        for ind, sh in ((ai, ash), (bi, bsh)):
            if ind.ndim == 2 and sh.ndim == 1 and ind.shape[1] != sh.shape[0]:
                raise _err(f"Index rank ({ind.shape[1]}) and shape rank ({sh.shape[0]}) do not match")
        _check_sparse(ai, av, ash, "a_")
        _check_sparse(bi, bv, bsh, "b_")
        _check_same_shape(ash, bsh)
        merged = {}
        for row, v in zip(map(tuple, ai.tolist()), av):
            merged[row] = [v, 0]
        for row, v in zip(map(tuple, bi.tolist()), bv):
            merged.setdefault(row, [0, 0])[1] = v
        rows = sorted(merged)
        indices = np.array(rows, np.int64).reshape(-1, ash.size)
        values = np.array([fn(*merged[r]) for r in rows], av.dtype).reshape(-1)
        return k.xp.asarray(indices), k.xp.asarray(values)
    kernel.__name__ = f"sparse_sparse_{fn.__name__}"
    return kernel


sparse_sparse_maximum = _sparse_sparse(max)
sparse_sparse_minimum = _sparse_sparse(min)


def sparse_add_grad(k, backprop_val_grad, a_indices, b_indices, sum_indices):
    """Each operand's entries take the gradient of the sum's entry at their index (zero where the
    threshold dropped it)."""
    grad, ai, bi, si = _host(backprop_val_grad, a_indices, b_indices, sum_indices)
    where = {tuple(row): n for n, row in enumerate(si.tolist())}
    a = np.array([grad[where[r]] if r in where else 0 for r in map(tuple, ai.tolist())], grad.dtype)
    b = np.array([grad[where[r]] if r in where else 0 for r in map(tuple, bi.tolist())], grad.dtype)
    return k.xp.asarray(a.reshape(-1)), k.xp.asarray(b.reshape(-1))


def sparse_tensor_dense_add(k, a_indices, a_values, a_shape, b):
    """``b`` with each entry of ``a`` added at its index."""
    ai, ash = _host(a_indices, a_shape)
    if tuple(int(d) for d in ash) != tuple(b.shape):
        raise _err(f"Dimension mismatch: a_shape {_shape_text_of(ash)} vs. b.shape {_shape_text(b)}")
    for i, row in enumerate(ai.tolist()):
        for d, idx in enumerate(row):
            if not 0 <= idx < ash[d]:
                raise _err(f"Sparse tensor has an invalid index on dimension {d}: a_indices({i},{d}) = {idx}, dense "
                           f"tensor shape: {_shape_text_of(ash)}")
    out = np.array(to_host(b))
    if ai.shape[0]:
        np.add.at(out, tuple(ai.T), to_host(a_values))
    return k.xp.asarray(out)


def sparse_tensor_dense_mat_mul(k, a_indices, a_values, a_shape, b):
    """(adjoint) a @ (adjoint) b, a given by its entries: each adds ``value * b[col]`` to its row."""
    ai, ash = _host(a_indices, a_shape)
    adj_a, adj_b = bool(k.attrs.get("adjoint_a")), bool(k.attrs.get("adjoint_b"))
    if ai.ndim != 2 or ai.shape[1] != 2:
        raise _err("Tensor 'a_indices' is not a matrix" if ai.ndim != 2 else
                   f"Cannot do non-matrix SparseTensorDenseMatMul: a_shape {_shape_text_of(ash)}")
    if b.ndim != 2:
        raise _err("Tensor 'b' is not a matrix")
    rows, inner = (int(ash[1]), int(ash[0])) if adj_a else (int(ash[0]), int(ash[1]))
    bm = b.T if adj_b else b
    if bm.shape[0] != inner:
        raise _err(f"Cannot multiply A and B because inner dimension does not match: {inner} vs. {bm.shape[0]}.  "
                   f"Did you forget a transpose?  Dimensions of A: [{rows}, {inner}).  Dimensions of B: "
                   f"{_shape_text(bm)}")
    r, c = (ai[:, 1], ai[:, 0]) if adj_a else (ai[:, 0], ai[:, 1])
    bad = (r < 0) | (r >= rows) | (c < 0) | (c >= inner)
    if bad.any():
        i = int(bad.argmax())
        if not 0 <= c[i] < inner:
            raise _err(f"k ({c[i]}) from index[{i},{0 if adj_a else 1}] out of bounds (>={inner})")
        raise _err(f"m ({r[i]}) from index[{i},{1 if adj_a else 0}] out of bounds (>={rows})")
    bh = np.asarray(to_host(bm))
    vals = np.asarray(to_host(a_values)).reshape(-1, 1)
    if adj_b:
        bh = np.conj(bh)  # an adjoint is the conjugate transpose
    if adj_a:
        vals = np.conj(vals)
    # half precision sums in float32, as TF's kernel (its SumType), then rounds once
    acc = np.float32 if bh.dtype in (np.float16,) or bh.dtype.name == "bfloat16" else bh.dtype
    out = np.zeros((rows, bh.shape[1]), dtype=acc)
    np.add.at(out, r, vals.astype(acc) * bh[c].astype(acc))
    return k.xp.asarray(out.astype(bh.dtype))


def sparse_concat(k, *parts):
    """The inputs side by side along ``concat_dim``: each one's indices shifted by the sizes of
    those before it, the result in row-major order."""
    n = k.attrs["N"]
    inds, vals, shapes = [_host(*parts[:n]), list(parts[n:2 * n]), _host(*parts[2 * n:])]
    rank = shapes[0].size
    dim = k.attrs["concat_dim"]
    if not -rank <= dim < rank:
        raise _err(f"Concat dimension must be in range [{-rank}, {rank}), got {dim}")
    dim %= rank
    for i, (ind, sh) in enumerate(zip(inds, shapes)):
        if sh.size != rank:
            raise _err(f"Ranks of all input tensors must match: expected {rank} but got {sh.size} at position {i}")
        for d in range(rank):
            if d != dim and sh[d] != shapes[0][d]:
                raise _err(f"Input shapes must match: expected {shapes[0][d]} for dimension {d} but got {sh[d]} at "
                           f"position {i}")
    offset, out_i = 0, []
    for ind, sh in zip(inds, shapes):
        shifted = ind.copy()
        shifted[:, dim] += offset
        out_i.append(shifted)
        offset += int(sh[dim])
    indices = np.concatenate(out_i) if out_i else np.zeros((0, rank), np.int64)
    values = k.xp.concatenate([k.xp.asarray(v).reshape(-1) for v in vals])
    order = _order(indices)
    out_shape = shapes[0].copy()
    out_shape[dim] = offset
    return k.xp.asarray(indices[order]), values[k.xp.asarray(order)], k.xp.asarray(out_shape)


def sparse_fill_empty_rows(k, indices, values, dense_shape, default_value):
    """Each row with no entry gets one, ``[row, 0, ...] = default_value``; the entries grouped by
    row (each row's in their order), which rows were empty, and where each input entry went."""
    ind, sh = _host(indices, dense_shape)
    vals = to_host(values)
    if np.ndim(to_host(default_value)) != 0:
        raise _err(f"default_value must be a scalar, saw: {_shape_text(to_host(default_value))}")
    if ind.ndim != 2:
        raise _err(f"indices must be a matrix, saw: {_shape_text(ind)}")
    if vals.ndim != 1:
        raise _err(f"values must be a vector, saw: {_shape_text(vals)}")
    if sh.ndim != 1:
        raise _err(f"dense_shape must be a vector, saw: {_shape_text(sh)}")
    if sh.size == 0:
        raise _err("Dense shape cannot be empty.")
    rows = int(sh[0])
    counts = np.zeros(rows, np.int64)
    for i, row in enumerate(ind[:, 0] if ind.shape[0] else []):
        if not 0 <= row < rows:
            raise _err(f"indices({i}, 0) is invalid: {row} >= {rows}")
        counts[row] += 1
    empty = counts == 0
    per_row = np.where(empty, 1, counts)
    starts = np.concatenate([[0], np.cumsum(per_row)[:-1]]).astype(np.int64)
    total = int(per_row.sum())
    out_i = np.zeros((total, sh.size), np.int64)
    out_v = np.empty(total, vals.dtype)
    filled = starts.copy()
    reverse = np.zeros(ind.shape[0], np.int64)
    for i in range(ind.shape[0]):
        row = ind[i, 0]
        out_i[filled[row]] = ind[i]
        out_v[filled[row]] = vals[i]
        reverse[i] = filled[row]
        filled[row] += 1
    for row in np.flatnonzero(empty):
        out_i[starts[row], 0] = row
        out_v[starts[row]] = to_host(default_value)
    return k.xp.asarray(out_i), k.xp.asarray(out_v), k.xp.asarray(empty), k.xp.asarray(reverse)


def sparse_fill_empty_rows_grad(k, reverse_index_map, grad_values):
    """The gradient of each input entry (at the place it went) and of the default (the rest)."""
    rev, grad = _host(reverse_index_map, grad_values)
    bad = (rev < 0) | (rev >= grad.shape[0])
    if bad.any():
        i = int(bad.argmax())
        raise _err(f"Elements in reverse index must be in [0, {grad.shape[0]}) but got {rev[i]}")
    d_values = grad[rev]
    return k.xp.asarray(d_values), k.xp.asarray(np.asarray(grad.sum() - d_values.sum(), grad.dtype))


def _reduce(reduction, identity):
    def kernel(k, input_indices, input_values, input_shape, reduction_axes):
        ind, sh, axes = _host(input_indices, input_shape, reduction_axes)
        vals = to_host(input_values)
        _check_sparse(ind, vals, sh)
        rank = sh.size
        reduced = set()
        for a in axes.reshape(-1).tolist():
            if not -rank <= a < rank:
                raise _err(f"Invalid reduction dimension {a}, for input with {rank} dimensions.")
            reduced.add(a % rank)
        kept = [d for d in range(rank) if d not in reduced]
        out_shape = [int(sh[d]) for d in kept]
        out = np.full(out_shape, identity(vals.dtype), vals.dtype)
        if ind.shape[0]:
            reduction.at(out, tuple(ind[:, kept].T), vals) if kept else out.__setitem__(
                (), reduction.reduce(np.concatenate([[identity(vals.dtype)], vals]).astype(vals.dtype)))
        if k.attrs.get("keep_dims"):
            out = out.reshape([1 if d in reduced else int(sh[d]) for d in range(rank)])
        return k.xp.asarray(out)
    kernel.__name__ = f"sparse_reduce_{reduction.__name__}"
    return kernel


sparse_reduce_sum = _reduce(np.add, lambda dt: np.zeros((), dt)[()])
sparse_reduce_max = _reduce(np.maximum, lambda dt: (np.array(-np.inf, dt) if np.issubdtype(dt, np.floating)
                                                    else np.array(np.iinfo(dt).min, dt))[()])


def sparse_softmax(k, sp_indices, sp_values, sp_shape):
    """The softmax of each innermost row's present entries (absent ones take no part)."""
    ind, sh = _host(sp_indices, sp_shape)
    vals = np.asarray(to_host(sp_values))
    _check_sparse(ind, vals, sh)
    if sh.size < 2:
        raise _err(f"Input should have rank >= 2, but received shape: {_shape_text_of(sh)}")
    out = np.empty_like(vals)
    groups = {}
    for i, key in enumerate(map(tuple, ind[:, :-1].tolist())):
        groups.setdefault(key, []).append(i)
    for members in groups.values():
        v = vals[members]
        e = np.exp(v - v.max())
        out[members] = e / e.sum()
    return k.xp.asarray(out)


def _cwise(fn):
    def kernel(k, sp_indices, sp_values, sp_shape, dense):
        ind, sh = _host(sp_indices, sp_shape)
        d = to_host(dense)
        if d.ndim > sh.size or any(x not in (1, int(y)) for x, y in zip(d.shape[::-1], sh[::-1])):
            raise _err(f"SparseDenseBinaryOpShared broadcasts dense to sparse only; got incompatible shapes: "
                       f"[{','.join(str(int(x)) for x in sh)}] vs. {_shape_text(d)}")
        full = np.broadcast_to(d, tuple(int(x) for x in sh))
        picked = full[tuple(ind.T)] if ind.shape[0] else np.zeros(0, d.dtype)
        return k.xp.asarray(fn(np.asarray(to_host(sp_values)), picked).astype(d.dtype))
    kernel.__name__ = fn.__name__
    return kernel


sparse_dense_cwise_mul = _cwise(np.multiply)
sparse_dense_cwise_add = _cwise(np.add)


def _cwise_div(a, b):
    return a // b if np.issubdtype(a.dtype, np.integer) else a / b


sparse_dense_cwise_div = _cwise(_cwise_div)


def _check_segments(data, indices, segment_ids):
    if indices.ndim != 1:
        raise _err("indices should be a vector.")
    if segment_ids.ndim != 1:
        raise _err("segment_ids should be a vector.")
    if indices.shape[0] != segment_ids.shape[0]:
        raise _err("segment_ids and indices should have same size.")
    if segment_ids.size and (np.diff(segment_ids) < 0).any():
        raise _err("segment ids are not increasing")
    bad = (indices < 0) | (indices >= data.shape[0])
    if bad.any():
        i = int(bad.argmax())
        raise _err(f"Bad: indices[{i}] == {indices[i]} out of range [0, {data.shape[0]})")


def _segment(norm):
    def kernel(k, data, indices, segment_ids):
        idx, seg = _host(indices, segment_ids)
        d = np.asarray(to_host(data))
        _check_segments(d, idx, seg)
        n = int(seg[-1]) + 1 if seg.size else 0
        out = np.zeros((n,) + d.shape[1:], d.dtype)
        scatter_add(np, out, seg, d[idx])
        if norm:
            counts = np.bincount(seg, minlength=n).astype(d.dtype)
            scale = np.sqrt(counts) if norm == "sqrtn" else counts
            scale = np.where(scale == 0, 1, scale)
            out = out / scale.reshape((-1,) + (1,) * (d.ndim - 1))
        return k.xp.asarray(out.astype(d.dtype))
    kernel.__name__ = f"sparse_segment_{norm or 'sum'}"
    return kernel


sparse_segment_sum = _segment(None)
sparse_segment_mean = _segment("mean")
sparse_segment_sqrt_n = _segment("sqrtn")


def _segment_grad(norm):
    def kernel(k, grad, indices, segment_ids, output_dim0):
        g, idx, seg = _host(grad, indices, segment_ids)
        rows = int(to_host(output_dim0))
        scale = np.ones(len(seg), g.dtype)
        if norm:
            counts = np.bincount(seg, minlength=g.shape[0]).astype(g.dtype)
            per = np.sqrt(counts) if norm == "sqrtn" else counts
            scale = 1 / per[seg]
        out = np.zeros((rows,) + g.shape[1:], g.dtype)
        bad = (idx < 0) | (idx >= rows)
        if bad.any():
            i = int(bad.argmax())
            raise _err(f"Index {idx[i]} out of range [0, {rows}).")
        scatter_add(np, out, idx, g[seg] * scale.reshape((-1,) + (1,) * (g.ndim - 1)))
        return k.xp.asarray(out)
    kernel.__name__ = f"sparse_segment_{norm or 'sum'}_grad"
    return kernel


sparse_segment_sum_grad = _segment_grad(None)
sparse_segment_mean_grad = _segment_grad("mean")
sparse_segment_sqrt_n_grad = _segment_grad("sqrtn")


def _segment_grad_v2(norm):
    dense = _segment_grad(norm)

    def kernel(k, grad, indices, segment_ids, dense_output_dim0):
        """The rows of the dense gradient that the indices touch, and which rows they are (sorted)."""
        full = np.asarray(to_host(dense(k, grad, indices, segment_ids, dense_output_dim0)))
        unique = np.unique(np.asarray(to_host(indices)))
        return k.xp.asarray(full[unique]), k.xp.asarray(unique.astype(np.asarray(to_host(indices)).dtype))
    kernel.__name__ = f"sparse_segment_{norm or 'sum'}_grad_v2"
    return kernel


sparse_segment_sum_grad_v2 = _segment_grad_v2(None)
sparse_segment_mean_grad_v2 = _segment_grad_v2("mean")
sparse_segment_sqrt_n_grad_v2 = _segment_grad_v2("sqrtn")


def segment_sum(k, data, segment_ids):
    """out[i] = the sum of the rows whose (sorted) segment id is i."""
    seg = np.asarray(to_host(segment_ids))
    d = np.asarray(to_host(data))
    if seg.ndim != 1 or seg.shape[0] != d.shape[0]:
        raise _err("segment_ids should be the same size as dimension 0 of input.")
    if seg.size and (np.diff(seg) < 0).any():
        raise _err("segment ids are not increasing")
    if seg.size and seg[0] < 0:
        raise _err("segment ids must be >= 0")
    n = int(seg[-1]) + 1 if seg.size else 0
    out = np.zeros((n,) + d.shape[1:], d.dtype)
    scatter_add(np, out, seg, d)
    return k.xp.asarray(out)
