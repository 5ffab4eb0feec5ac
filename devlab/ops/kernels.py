"""Kernels, written once against an array module ``xp`` (numpy on CPU, cupy on a real GPU).

Each kernel is ``f(k, *inputs)``: ``k.xp`` is the array module, ``k.attrs`` the op's attrs,
``k.rng`` a per-op random generator, ``k.op_name`` the node, and ``k.out`` either None or a
buffer the run planned for the output (ops whose kernel accepts one say so: ``OpDef.writes_out``).
Stateful kernels receive variable references (``ref.read()``, ``ref.new_buffer()``,
``ref.assign(value)``) and never see session internals.

Stateful kernels check their inputs' shapes at run time in TF's words and order (a write never
broadcasts), raising ``errors.InvalidArgumentError``; the executor adds the node and its line.

What the runtime may assume of a kernel (it writes into ``k.out``, it may return a view of its
input, it reads DEAD values...) is a fact of its op, set on the OpDef in ``table.py``.
"""
import math

import numpy as np

from . import descent, relu_kernels, summary_proto
from .add_rows import add_rows
from .strided import Masks, numpy_index
from ..framework import errors


def elementwise(ufunc):
    """The kernel ``xp.<ufunc>(*inputs)`` (the table's ``_elementwise`` ops)."""
    def kernel(k, *xs):
        return getattr(k.xp, ufunc)(*xs, out=k.out)
    kernel.__name__ = ufunc
    return kernel


def _integer_division(ufunc):
    """FloorDiv/FloorMod: ``xp.<ufunc>``, but an integer divisor holding a zero fails the op as TF's
    does (numpy would give 0 and warn). Their OpDefs name no ``ufunc``: the compiled program calls
    this kernel too, so it checks the divisor as well."""
    def kernel(k, x, y):
        if y.dtype.kind in "iu" and not k.xp.all(y):
            raise errors.InvalidArgumentError(None, None, "Integer division by zero")
        return getattr(k.xp, ufunc)(x, y, out=k.out)
    kernel.__name__ = ufunc
    return kernel


floor_div = _integer_division("floor_divide")
floor_mod = _integer_division("remainder")  # the sign of the divisor, as Python's % and TF's FloorMod


def squared_difference(k, x, y):
    """(x - y)²"""
    diff = k.xp.subtract(x, y, out=k.out)
    return k.xp.multiply(diff, diff, out=k.out)


def div_no_nan(k, x, y):
    """x / y, and 0 wherever y is 0."""
    xp = k.xp
    zero = y == 0
    return xp.where(zero, xp.zeros((), x.dtype), x / xp.where(zero, xp.ones((), y.dtype), y)).astype(x.dtype)


def _zero_where_x_is_zero(xp, x, value):
    """``value``, and 0 wherever x is 0 (whatever value is there: nan, inf), in x's dtype."""
    return xp.where(x == 0, xp.zeros((), x.dtype), value).astype(x.dtype, copy=False)


def xlogy(k, x, y):
    """x * log(y), and 0 where x is 0."""
    return _zero_where_x_is_zero(k.xp, x, x * k.xp.log(y))


def xlog1py(k, x, y):
    """x * log1p(y), and 0 where x is 0."""
    return _zero_where_x_is_zero(k.xp, x, x * k.xp.log1p(y))


def xdivy(k, x, y):
    """x / y, and 0 where x is 0."""
    return _zero_where_x_is_zero(k.xp, x, x / y)


def reciprocal_grad(k, y, dy):
    """-dy * y² (y = 1/x)"""
    return (-dy * y * y).astype(dy.dtype, copy=False)


def sqrt_grad(k, y, dy):
    """dy * 0.5 / y (y = sqrt(x))"""
    return (dy * 0.5 / y).astype(dy.dtype, copy=False)


def rsqrt_grad(k, y, dy):
    """dy * -0.5 * y³ (y = 1/sqrt(x))"""
    return (dy * -0.5 * y * y * y).astype(dy.dtype, copy=False)


def const(k):
    return k.xp.asarray(k.attrs["value"])


def placeholder(k):
    raise AssertionError("a placeholder is fed, never run")  # the executor reports the feed error


def identity(k, x):
    return x


def identity_n(k, *xs):
    return outputs(list(xs))


def check_numerics(k, x):
    """CheckNumerics: ``x`` itself, or TF's InvalidArgumentError naming NaN and/or Inf values."""
    import numpy as np
    host = to_host(x)
    nan, inf = bool(np.isnan(host).any()), bool(np.isinf(host).any())
    if nan or inf:
        kind = "Inf and NaN" if nan and inf else "NaN" if nan else "Inf"
        raise errors.InvalidArgumentError(None, None, f"{k.attrs['message']} : Tensor had {kind} values")
    return x


def parallel_concat(k, *xs):
    """ParallelConcat: the inputs (each with a leading dim of 1) one after another on axis 0."""
    return k.xp.concatenate(xs, axis=0)





def real_div(k, a, b):
    if a.dtype.kind in "iu":  # integer RealDiv truncates, as C++ integer division does
        return k.xp.divide(a, b).astype(a.dtype)
    return k.xp.divide(a, b, out=k.out)





def rsqrt(k, x):
    return (1 / k.xp.sqrt(x)).astype(x.dtype, copy=False)


def reciprocal(k, x):
    return (1 / x).astype(x.dtype, copy=False)


def relu(k, x):
    """max(x, 0): one compiled pass over a large host array (``relu_kernels.py``)."""
    return relu_kernels.relu(x, k.out, k.split) if k.xp is np else k.xp.maximum(x, x.dtype.type(0), out=k.out)


def sigmoid(k, x):
    return (1 / (1 + k.xp.exp(-x))).astype(x.dtype, copy=False)


def softmax(k, x):
    e = k.xp.exp(x - x.max(axis=-1, keepdims=True))
    return (e / e.sum(axis=-1, keepdims=True)).astype(x.dtype, copy=False)


def relu_grad(k, dy, x):
    """dy * (x > 0), a product as TF's functor computes it (a NaN gradient stays NaN where x <= 0)."""
    if k.xp is np:
        return relu_kernels.relu_grad(dy, x, k.out, k.split)
    return k.xp.multiply(dy, x > 0, out=k.out, dtype=dy.dtype)


def sigmoid_grad(k, y, dy):
    return (dy * y * (1 - y)).astype(dy.dtype, copy=False)


def tanh_grad(k, y, dy):
    return (dy * (1 - y * y)).astype(dy.dtype, copy=False)


def matmul(k, a, b):
    if k.attrs.get("transpose_a"):
        a = a.T
    if k.attrs.get("transpose_b"):
        b = b.T
    return k.matmul(a, b)


def batch_matmul(k, a, b):
    """Matrix products over the last two dims, the leading (batch) dims broadcast."""
    if k.attrs.get("adj_x"):
        a = k.xp.swapaxes(a, -1, -2)
    if k.attrs.get("adj_y"):
        b = k.xp.swapaxes(b, -1, -2)
    return k.xp.matmul(a, b)


def add_n(k, *xs):
    out = k.xp.add(xs[0], xs[1], out=k.out)
    if len(xs) > 2 and k.out is None:
        out = k.xp.asarray(out)  # a ufunc gives a scalar for 0-d inputs: make it an array to add into
    for x in xs[2:]:
        k.xp.add(out, x, out=out)
    return out


def ints(a):
    """A small integer tensor (a shape, axes, paddings) as a host list of Python ints. TF keeps
    such tensors in host memory; on a real GPU this is where their values cross to the host."""
    values = (a if a.ndim == 1 else a.reshape(-1)).tolist()
    return values if a.dtype.kind in "iu" else [int(v) for v in values]  # tolist gives ints already


def reshape(k, x, shape):
    dims = ints(shape)
    if dims and min(dims) < -1:  # numpy takes any negative size as -1; TF refuses it
        _reshape_dims(x.size, dims)
    try:
        return x.reshape(dims)
    except ValueError:  # numpy refused: TF's checks say why (or, for an empty tensor, resolve the -1)
        return x.reshape(_reshape_dims(x.size, dims))


def _reshape_dims(size, dims):
    """``dims`` with its -1 resolved as TF's Reshape kernel does, or TF's InvalidArgumentError."""
    unknown, product = None, 1
    for i, d in enumerate(dims):
        if d == -1:
            if unknown is not None:
                raise errors.InvalidArgumentError(None, None, f"Only one input size may be -1, not both {unknown} "
                                                              f"and {i}")
            unknown = i
        elif d < 0:
            raise errors.InvalidArgumentError(None, None, f"Size {i} must be non-negative, not {d}")
        else:
            product *= d
    dims = list(dims)
    if unknown is not None:
        if product and size % product:
            raise errors.InvalidArgumentError(None, None, f"Input to reshape is a tensor with {size} values, but the "
                                                          f"requested shape requires a multiple of {product}")
        dims[unknown] = size // product if product else 0
    requested = math.prod(dims)
    if requested != size:
        raise errors.InvalidArgumentError(None, None, f"Input to reshape is a tensor with {size} values, but the "
                                                      f"requested shape has {requested}")
    return dims


def transpose(k, x, perm):
    p = ints(perm)
    for d in range(len(p)):
        if d not in p:  # TF's kernel names the first dimension the permutation leaves out
            raise errors.InvalidArgumentError(None, None, f"{d} is missing from {{{','.join(map(str, p))}}}.")
    return k.xp.transpose(x, p)


def reverse_sequence(k, x, seq_lengths):
    """Each batch entry's first ``seq_lengths[b]`` steps along ``seq_dim`` reversed, the rest
    kept (TF's ReverseSequence; bidirectional_dynamic_rnn runs its backward cell on this)."""
    seq_dim, batch_dim = int(k.attrs["seq_dim"]), int(k.attrs.get("batch_dim", 0))
    lengths = ints(to_host(seq_lengths))
    if seq_dim == batch_dim or not 0 <= seq_dim < x.ndim or not 0 <= batch_dim < x.ndim:
        raise errors.InvalidArgumentError(None, None, f"Invalid seq_dim {seq_dim} or batch_dim {batch_dim} for "
                                                      f"an input of rank {x.ndim}")
    if len(lengths) != x.shape[batch_dim]:
        raise errors.InvalidArgumentError(None, None, f"Length of seq_lengths != input.dims({batch_dim}), "
                                                      f"({len(lengths)} vs. {x.shape[batch_dim]})")
    out = x.copy()
    for b, n in enumerate(lengths):
        if n < 0:
            raise errors.InvalidArgumentError(None, None, f"seq_lens({b}) < 0")
        if n > x.shape[seq_dim]:
            raise errors.InvalidArgumentError(None, None, f"seq_lens({b}) > input.dims({seq_dim})")
        if n > 1:
            src, dst = [slice(None)] * x.ndim, [slice(None)] * x.ndim
            src[batch_dim] = dst[batch_dim] = b
            src[seq_dim], dst[seq_dim] = slice(n - 1, None, -1), slice(0, n)  # steps n-1 .. 0 into 0 .. n-1
            out[tuple(dst)] = x[tuple(src)]
    return out


def reverse_v2(k, x, axis):
    """``x`` reversed along each of ``axis`` (TF's ReverseV2)."""
    return k.xp.flip(x, axis=tuple(a % x.ndim for a in ints(axis))) if x.ndim else x.copy()


def concat(k, *xs_and_axis):
    *xs, axis = xs_and_axis
    return k.xp.concatenate(xs, axis=int(axis))


def stack(k, *xs):
    return k.xp.stack(xs, axis=k.attrs["axis"])


def outputs(parts):
    """A kernel's list of outputs as the runtime takes them: an op with one output (Unpack of one
    row, a Split into one piece) hands over the value itself, not a list of one."""
    return parts[0] if len(parts) == 1 else parts


def unstack(k, x):
    axis = k.attrs["axis"]
    return outputs([k.xp.squeeze(part, axis) for part in k.xp.split(x, x.shape[axis], axis=axis)])


def expand_dims(k, x, dim):
    d = int(dim.reshape(-1)[0])  # any tensor of one value, as TF
    if -x.ndim - 1 <= d <= x.ndim:  # a reshape: a fifth of np.expand_dims's Python around the same view
        d = d % (x.ndim + 1)
        return x.reshape(x.shape[:d] + (1,) + x.shape[d:])
    return k.xp.expand_dims(x, d)  # numpy's error


def squeeze(k, x):
    dims = k.attrs["squeeze_dims"]
    return k.xp.squeeze(x, axis=tuple(dims) if dims else None)


def fill(k, dims, value):
    return k.xp.full(ints(dims), value, dtype=value.dtype)


def zeros_like(k, x):
    return k.xp.zeros_like(x)


def ones_like(k, x):
    return k.xp.ones_like(x)


def shape(k, x):
    return k.xp.asarray(x.shape, dtype=k.attrs["out_type"].as_numpy_dtype)


def shape_n(k, *xs):
    return outputs([k.xp.asarray(x.shape, dtype=k.attrs["out_type"].as_numpy_dtype) for x in xs])


def size(k, x):
    return k.xp.asarray(x.size, dtype=k.attrs["out_type"].as_numpy_dtype)


def rank(k, x):
    return k.xp.asarray(x.ndim, dtype="int32")


def cast(k, x):
    dst = k.attrs["DstT"]
    if x.dtype == object and dst.base_dtype.name != "string":
        raise errors.UnimplementedError(None, None, f"Cast string to {_C_NAMES.get(dst.name, dst.name)} is not supported")
    return x.astype(dst.as_numpy_dtype)


_C_NAMES = {"float32": "float", "float64": "double", "float16": "half"}  # the names TF's errors use


def argmax(k, x, dimension):
    return arg_index(k, x, dimension, k.xp.argmax)


def arg_index(k, x, dimension, find):
    """ArgMax/ArgMin: where ``find`` (``xp.argmax``/``xp.argmin``) points along ``dimension``, as
    ``output_type``."""
    axis = int(dimension.reshape(-1)[0])
    if not -max(x.ndim, 1) <= axis < x.ndim:
        raise errors.InvalidArgumentError(None, None, f"Expected dimension in the range [{-x.ndim}, {x.ndim}), but got "
                                          f"{axis}")
    return find(x, axis=axis).astype(k.attrs["output_type"].as_numpy_dtype)


def cumsum(k, x, axis):
    """Running sums along ``axis``."""
    return scan(k, x, axis, k.xp.cumsum, 0)


def scan(k, x, axis, running, identity):
    """TF's ScanOp: ``running`` (``xp.cumsum``/``xp.cumprod``) along ``axis``; ``exclusive`` starts
    each from ``identity`` (its own element left out), ``reverse`` runs from the far end."""
    xp = k.xp
    if axis.ndim != 0:
        raise errors.InvalidArgumentError(None, None, f"ScanOp: axis must be a scalar, not {list(axis.shape)}")
    a = int(axis)
    if not -x.ndim <= a < x.ndim:
        raise errors.InvalidArgumentError(None, None, f"ScanOp: Expected scan axis in the range [{-x.ndim}, {x.ndim}), "
                                          f"but got {a}")
    a %= x.ndim
    if k.attrs["reverse"]:
        x = xp.flip(x, axis=a)
    if k.attrs["exclusive"] and x.shape[a]:  # the identity in front, the last element left out
        first = xp.full_like(xp.take(x, [0], axis=a), identity)
        x = xp.concatenate([first, xp.take(x, xp.arange(x.shape[a] - 1), axis=a)], axis=a)
    out = running(x, axis=a, dtype=x.dtype)
    return xp.flip(out, axis=a) if k.attrs["reverse"] else out


def one_hot(k, indices, depth, on_value, off_value):
    """on_value where the last axis equals the index, off_value elsewhere (-1 matches nothing)."""
    xp = k.xp
    hot = xp.expand_dims(indices, -1) == xp.arange(int(depth))
    out = xp.where(hot, on_value, off_value).astype(on_value.dtype)
    axis = k.attrs.get("axis", -1)
    return out if axis in (-1, out.ndim - 1) else xp.moveaxis(out, -1, axis)


def _identity_of(xp, name, dtype):
    """What Max/Min of no elements is in TF: the lowest (highest) value of the dtype, -inf (+inf)
    for floats; None for the other reductions, whose numpy identity is TF's."""
    if name not in ("max", "min"):
        return None
    if dtype.kind == "f":
        return -float("inf") if name == "max" else float("inf")
    info = xp.iinfo(dtype)
    return info.min if name == "max" else info.max


def reducer(name):
    """A kernel applying ``xp.<name>`` over the axes its second input names. Max and Min over an
    empty axis give the dtype's lowest (highest) value, as TF's, where numpy raises."""
    import numpy as np
    # numpy's np.sum(x) is np.add.reduce(x) behind a layer of Python: on the host, call the reduce
    ufunc = {"sum": np.add, "prod": np.multiply, "max": np.maximum, "min": np.minimum}.get(name)

    def kernel(k, x, axes):
        axis = tuple(a % x.ndim if x.ndim else a for a in ints(axes))
        identity = _identity_of(k.xp, name, x.dtype)
        if identity is not None and any(x.shape[a] == 0 for a in axis):
            shape = tuple(1 if a in axis else d for a, d in enumerate(x.shape)) if k.attrs["keep_dims"] else \
                tuple(d for a, d in enumerate(x.shape) if a not in axis)
            return k.xp.full(shape, identity, dtype=x.dtype)
        if name == "sum" and k.xp is np and axis == tuple(range(len(axis))):
            leading = relu_kernels.sum_leading(x, len(axis))  # a bias's gradient: wide blocks of rows
            if leading is not None:
                return _keep(leading, x.ndim, len(axis), k)
        reduce = ufunc.reduce if ufunc is not None and k.xp is np else getattr(k.xp, name)
        if k.out is not None:
            return reduce(x, axis=axis, keepdims=k.attrs["keep_dims"], out=k.out)
        out = reduce(x, axis=axis, keepdims=k.attrs["keep_dims"])
        return k.xp.asarray(out, dtype=x.dtype)
    kernel.__name__ = name
    return kernel


def _keep(total, ndim, count, k):
    """A sum over the first ``count`` of ``ndim`` axes, shaped as the reduction's output (with the
    reduced axes as 1s under ``keep_dims``), written into ``k.out`` when planned."""
    if k.attrs["keep_dims"]:
        total = total.reshape((1,) * count + total.shape)
    if k.out is None:
        return total
    k.out[...] = total
    return k.out


def euclidean_norm(k, x, axes):
    """sqrt(sum(|x|²)) over the axes its second input names (TF's EuclideanNorm). Integers square and
    add in their own type (wrapping as TF's do) and the root is truncated; complex numbers use x·conj(x)."""
    xp = k.xp
    axis = tuple(a % x.ndim if x.ndim else a for a in ints(axes))
    squares = x * xp.conj(x) if x.dtype.kind == "c" else xp.multiply(x, x, dtype=x.dtype)
    total = xp.sum(squares, axis=axis, keepdims=k.attrs["keep_dims"], dtype=x.dtype)
    if x.dtype.kind in "iu":
        return xp.asarray(xp.floor(xp.sqrt(total.astype(xp.float64))), dtype=x.dtype)
    return xp.asarray(xp.sqrt(total), dtype=x.dtype)


# -- indexing: slices, splits, gathers ---------------------------------------------------------
def strided_slice(k, x, begin, end, strides):
    index = numpy_index(ints(begin), ints(end), ints(strides), Masks.of(k.attrs))
    return x[index]


def strided_slice_grad(k, shape, begin, end, strides, dy):
    """Zeros shaped like the sliced input, with ``dy`` written where the slice read."""
    out = k.xp.zeros(ints(shape), dtype=dy.dtype)
    out[numpy_index(ints(begin), ints(end), ints(strides), Masks.of(k.attrs))] = dy
    return out


def slice_(k, x, begin, size):
    index = tuple(slice(b, None if s == -1 else b + s) for b, s in zip(ints(begin), ints(size)))
    return x[index]


def split(k, axis, value):
    """``num_split`` equal pieces. They are copies: the value is the op's second input, and a
    view's base must be its first (the runtime keeps a view's base alive through it)."""
    return outputs([part.copy() for part in k.xp.split(value, k.attrs["num_split"], axis=int(axis))])


def split_v(k, value, size_splits, axis):
    sizes, axis = ints(size_splits), int(axis)
    if -1 in sizes:
        sizes[sizes.index(-1)] = value.shape[axis] - (sum(sizes) + 1)
    bounds = [sum(sizes[:i + 1]) for i in range(len(sizes) - 1)]
    return outputs(k.xp.split(value, bounds, axis=axis))


def concat_offset(k, axis, *shapes):
    """Where each input of a ConcatV2 starts in its output (ConcatV2's gradient slices there)."""
    axis, offsets, at = int(axis), [], 0
    for s in shapes:
        offset = [0] * s.shape[0]
        offset[axis % len(offset)] = at
        at += int(s[axis % len(offset)])
        offsets.append(k.xp.asarray(offset, dtype=s.dtype))
    return offsets


def gather_v2(k, params, indices, axis):
    try:
        return params.take(indices, axis=int(axis))  # the method: np.take is a layer of Python over it
    except IndexError:  # TF's words, naming the first index out of range
        import numpy as np
        ind = np.asarray(to_host(indices))
        limit = params.shape[int(axis)]
        bad = tuple(int(i) for i in np.argwhere((ind < -limit) | (ind >= limit))[0]) if ind.ndim else ()
        where = f"[{','.join(str(i) for i in bad)}]" if ind.ndim else ""
        raise errors.InvalidArgumentError(None, None, f"indices{where} = {int(ind[bad])} is not in [0, {limit})") \
            from None


def unsorted_segment_sum(k, data, segment_ids, num_segments):
    """out[i] = sum of data[j] over the j with segment_ids[j] == i (a scatter-add)."""
    xp = k.xp
    out = xp.zeros((int(num_segments),) + data.shape[segment_ids.ndim:], dtype=data.dtype)
    scatter_add(xp, out, segment_ids, data)
    return out


def scatter_add(xp, out, index, values, subtract=False):
    """``out[index] += values`` (``-= values`` when ``subtract``), adding repeated indices up
    (numpy's and cupy's ``add.at``; whole rows on the host by ``add_rows``, the same sums ten
    times faster). ``a - b`` is exactly ``a + (-b)``: subtracting spares negating the updates."""
    import numpy as np
    if xp is np and isinstance(index, np.ndarray) and index.dtype.kind in "iu" and out.ndim > 1 and index.size > 1 \
            and values.shape == index.shape + out.shape[1:]:
        add_rows(out, index.reshape(-1), values.reshape((index.size,) + out.shape[1:]),
                 np.subtract if subtract else np.add)
    elif hasattr(xp.add, "at"):  # numpy's ufunc.at is fast for a vector (1.7 µs for 192 of 50,000)
        (xp.subtract if subtract else xp.add).at(out, index, values)
    elif subtract:
        scatter_add(xp, out, index, -values)
    else:  # older cupy
        import cupyx
        cupyx.scatter_add(out, index, values)


def where(k, condition):
    """The coordinates of the true elements, one row each."""
    return k.xp.argwhere(condition).astype("int64")


def select(k, condition, x, y):
    """TF1's Select: a rank-1 condition picks whole rows of higher-rank x and y."""
    if condition.ndim == 1 and x.ndim > 1:
        condition = condition.reshape((-1,) + (1,) * (x.ndim - 1))
    return k.xp.where(condition, x, y)


def select_v2(k, condition, x, y):
    return k.xp.where(condition, x, y)


def range_(k, start, limit, delta):
    if delta.item() == 0:  # TF's kernel checks what the shape rule could not (a delta known only now)
        raise errors.InvalidArgumentError(None, None, f"Requires delta != 0: {delta.item()}")
    return k.xp.arange(start.item(), limit.item(), delta.item(), dtype=k.attrs["Tidx"].as_numpy_dtype)


def tile(k, x, multiples):
    return k.xp.tile(x, ints(multiples))


def pad(k, x, paddings):
    return pad_v2(k, x, paddings, None)


def pad_v2(k, x, paddings, constant_values):
    """``x`` with ``paddings`` around it, filled with ``constant_values`` (None: Pad's zeros)."""
    pairs = ints(paddings)
    value = constant_values.item() if hasattr(constant_values, "item") else constant_values
    if min(pairs, default=0) < 0:
        widths = [(pairs[2 * i], pairs[2 * i + 1]) for i in range(x.ndim)]
        return k.xp.pad(x, widths, mode="constant", constant_values=value or 0)  # numpy's error
    # One fill and one copy into the middle: np.pad's general machinery cost 40 µs a call.
    shape, middle = [], []
    for i, d in enumerate(x.shape):
        before = pairs[2 * i]
        shape.append(d + before + pairs[2 * i + 1])
        middle.append(slice(before, before + d))
    out = k.xp.zeros(shape, x.dtype) if value is None else k.xp.full(shape, value, x.dtype)
    out[tuple(middle)] = x
    return out


def mirror_pad(k, x, paddings):
    pairs = ints(paddings)
    widths = [(pairs[2 * i], pairs[2 * i + 1]) for i in range(x.ndim)]
    return k.xp.pad(x, widths, mode=k.attrs["mode"].lower())


def mirror_pad_grad(k, dy, paddings):
    """Folds the mirrored borders back onto the elements they copied, axis by axis."""
    import numpy as np  # the fold matrices are built on the host
    xp, pairs = k.xp, ints(paddings)
    out = dy
    for axis in range(dy.ndim):
        before, after = pairs[2 * axis], pairs[2 * axis + 1]
        if not before and not after:
            continue
        n = out.shape[axis] - before - after
        source = np.pad(np.arange(n), (before, after), mode=k.attrs["mode"].lower())
        fold = xp.asarray(np.eye(n, dtype=dy.dtype)[source])  # padded position -> source one-hot
        out = xp.moveaxis(xp.tensordot(out, fold, axes=([axis], [0])), -1, axis)
    return out


def broadcast_gradient_args(k, s0, s1):
    """The axes to sum a broadcast result's gradient over, for each of the two input shapes: the
    leading axes an input lacks, and those where it has 1 and the other input more."""
    a, b = ints(s0), ints(s1)
    rank = max(len(a), len(b))
    pa, pb = [1] * (rank - len(a)) + a, [1] * (rank - len(b)) + b
    r0 = [i for i in range(rank) if i < rank - len(a) or (pa[i] == 1 and pb[i] != 1)]
    r1 = [i for i in range(rank) if i < rank - len(b) or (pb[i] == 1 and pa[i] != 1)]
    return k.xp.asarray(r0, dtype=s0.dtype), k.xp.asarray(r1, dtype=s1.dtype)


def dynamic_stitch(k, *indices_and_data):
    """merged[indices[i]] = data[i], the later lists winning where indices repeat."""
    n = len(indices_and_data) // 2
    indices, data = indices_and_data[:n], indices_and_data[n:]
    size = max((int(i.max()) + 1 for i in indices if i.size), default=0)
    inner = data[0].shape[indices[0].ndim:]
    out = k.xp.zeros((size,) + inner, dtype=data[0].dtype)
    for idx, d in zip(indices, data):
        out[idx.reshape(-1)] = d.reshape((-1,) + inner)
    return out


def dynamic_partition(k, data, partitions):
    """The rows of ``data`` split by ``partitions`` (one output per partition, rows in order)."""
    n = k.attrs["num_partitions"]
    if data.shape[:partitions.ndim] != partitions.shape:
        raise errors.InvalidArgumentError(
            None, None, f"data.shape must start with partitions.shape, got data.shape = {_shape_text(data)}, "
                        f"partitions.shape = {_shape_text(partitions)}")
    flat = partitions.reshape(-1)
    bad = (flat < 0) | (flat >= n)
    if bad.any():
        at = int(bad.argmax())
        raise errors.InvalidArgumentError(None, None, f"partitions[{at}] = {int(flat[at])} is not in [0, {n})")
    rows = data.reshape((-1,) + data.shape[partitions.ndim:])
    return outputs([rows[flat == i] for i in range(n)])


def broadcast_to(k, x, shape):
    return k.xp.broadcast_to(x, ints(shape))


def invert_permutation(k, x):
    return k.xp.argsort(x).astype(x.dtype)


def random_uniform(k, shape):
    return k.xp.asarray(k.rng.random(ints(shape)), dtype=k.attrs["dtype"].as_numpy_dtype)


def random_uniform_int(k, shape, minval, maxval):
    return k.xp.asarray(k.rng.integers(int(minval), int(maxval), ints(shape)), dtype=k.attrs["dtype"].as_numpy_dtype)


def random_normal(k, shape):
    return k.xp.asarray(k.rng.standard_normal(ints(shape)), dtype=k.attrs["dtype"].as_numpy_dtype)


def truncated_normal(k, shape):
    """Standard normal samples, redrawn until each lies within two standard deviations."""
    out = k.rng.standard_normal(ints(shape))
    bad = abs(out) > 2
    while bad.any():
        out[bad] = k.rng.standard_normal(int(bad.sum()))
        bad = abs(out) > 2
    return k.xp.asarray(out, dtype=k.attrs["dtype"].as_numpy_dtype)


def no_op(k):
    return None


def read_file(k, filename):
    """ReadFile: the file's bytes; TF's NotFoundError when it does not exist."""
    import numpy as np
    path = text(filename)
    try:
        with open(path, "rb") as f:
            data = f.read()
    except FileNotFoundError:
        raise errors.NotFoundError(None, None, f"{path}; No such file or directory") from None
    except IsADirectoryError:
        raise errors.FailedPreconditionError(None, None, f"{path}; Is a directory") from None
    out = np.empty((), dtype=object)
    out[()] = data
    return out


def write_file(k, filename, contents):
    """WriteFile: writes the bytes, making the file's directory first (as TF does)."""
    import os
    path = text(filename)
    if os.path.dirname(path):
        os.makedirs(os.path.dirname(path), exist_ok=True)
    data = contents.item() if hasattr(contents, "item") else contents
    with open(path, "wb") as f:
        f.write(data if isinstance(data, bytes) else str(data).encode())


def text(value):
    """A string tensor's element as Python text (string tensors hold bytes, as TF's do)."""
    value = value.item() if hasattr(value, "item") else value
    return value.decode("utf-8", "replace") if isinstance(value, bytes) else str(value)


def host_bytes(values):
    """An object array of bytes shaped like ``values`` (strings live on the host only)."""
    import numpy as np
    flat = [v if isinstance(v, bytes) else str(v).encode() for v in np.asarray(values, dtype=object).reshape(-1)]
    out = np.empty(len(flat), dtype=object)
    out[:] = flat
    return out.reshape(np.shape(values))


def to_host(x):
    """A numpy copy of a device array (CuPy's ``.get()``); numpy arrays as they are. For kernels
    whose result is a host-side string."""
    import numpy as np
    return np.asarray(x.get() if hasattr(x, "get") else x)


def as_string(k, x):
    """Each element as text, floats with six decimals (TF's default ``%f``)."""
    import numpy as np
    x = to_host(x)
    fmt = (lambda v: f"{v:f}") if x.dtype.kind == "f" else str
    return host_bytes(np.vectorize(fmt, otypes=[object])(x) if x.size else x.astype(object))


def string_join(k, *xs):
    """Joins the inputs element by element (scalars broadcast), with ``separator`` between."""
    import numpy as np
    parts = np.broadcast_arrays(*[np.asarray(x, dtype=object) for x in xs])
    sep = k.attrs["separator"]
    joined = [sep.join(text(p[i]) for p in parts) for i in np.ndindex(parts[0].shape)]
    return host_bytes(np.asarray(joined, dtype=object).reshape(parts[0].shape) if parts[0].shape else joined[0])


def summarized(value):
    """One element as TF's SummarizeValue writes it: floats in their shortest form without a
    trailing ``.0`` (``-1``, ``0.5``, ``1e+10``), strings C-escaped (``\\"``, ``\\n``)."""
    import numpy as np
    if isinstance(value, np.floating):
        shown = str(value)
        return shown[:-2] if shown.endswith(".0") else shown
    if isinstance(value, bytes):
        return _c_escape(value)
    return text(value)


_C_ESCAPES = {ord("\n"): "\\n", ord("\r"): "\\r", ord("\t"): "\\t", ord('"'): '\\"', ord("'"): "\\'",
              ord("\\"): "\\\\"}


def _c_escape(raw):
    """TF's ``Utf8SafeCEscape``: quotes, backslashes and control bytes escaped, UTF-8 kept."""
    out = []
    for b in raw:
        if b in _C_ESCAPES:
            out.append(_C_ESCAPES[b])
        elif b < 0x20 or b == 0x7f:
            out.append(f"\\{b:03o}")
        else:
            out.append(chr(b) if b < 0x80 else None)
    if None not in out:
        return "".join(out)
    # non-ASCII bytes: decoded together, as UTF-8 text
    pieces, run = [], bytearray()
    for b, piece in zip(raw, out):
        if piece is None:
            run.append(b)
            continue
        if run:
            pieces.append(run.decode("utf-8", "replace"))
            run = bytearray()
        pieces.append(piece)
    if run:
        pieces.append(run.decode("utf-8", "replace"))
    return "".join(pieces)


def assert_(k, condition, *data):
    """Nothing when ``condition`` holds; else TF's InvalidArgumentError listing the data (at
    most ``summarize`` elements of each)."""
    if bool(to_host(condition)):
        return None
    summarize = k.attrs.get("summarize", 3)
    parts = []
    for x in data:
        x = to_host(x).reshape(-1)
        shown = " ".join(summarized(v) for v in x[:summarize])
        parts.append(f"[{shown}{'...' if x.size > summarize else ''}]")
    raise errors.InvalidArgumentError(None, None, "assertion failed: " + " ".join(parts))


def stop_gradient(k, x):
    return x


# -- stateful kernels: variables ---------------------------------------------------------------
def variable(k):
    raise AssertionError("a variable's reference is put in place by the run, never computed")


def assign(k, ref, value):
    ref.assign(value, validate_shape=k.attrs.get("validate_shape", True))
    return ref


def assign_add(k, ref, value):
    old = ref.read()
    _same_size(old, value)
    ref.assign(k.xp.add(old, value))
    return ref


def assign_sub(k, ref, value):
    old = ref.read()
    _same_size(old, value)
    ref.assign(k.xp.subtract(old, value))
    return ref


# Run-time checks of TF's training and update kernels (dense_update_ops.cc, training_ops.cc), in
# their order and words: a write never broadcasts, and a learning rate is a true scalar.
def _same_size(params, update):
    if params.shape != update.shape:
        raise errors.InvalidArgumentError(None, None, "Parameters and update must be the same size")


def _shape_text(x):
    return "[" + ",".join(map(str, x.shape)) + "]"


def _scalar(name, x, sep=":"):
    if x.ndim != 0:
        raise errors.InvalidArgumentError(None, None, f"{name} is not a scalar{sep} {_shape_text(x)}")


def _same_shape(var, name, x):
    if var.shape != x.shape:
        raise errors.InvalidArgumentError(
            None, None, f"var and {name} do not have the same shape{_shape_text(var)} {_shape_text(x)}")


def count_up_to(k, ref):
    """CountUpTo: the variable's value, then the variable plus one; at ``limit``, TF's
    OutOfRangeError and no change."""
    old = ref.read()
    if old >= k.attrs["limit"]:
        raise errors.OutOfRangeError(None, None, f"Reached limit of {k.attrs['limit']}")
    ref.assign(k.xp.add(old, old.dtype.type(1)))
    return k.xp.array(old, copy=True)


def is_variable_initialized(k, ref):
    return k.xp.asarray(ref.is_initialized())


# The optimizers update in place, as TF's training ops do, into a buffer the run hands them
# (``ref.new_buffer()``): no temporaries beyond it, and a large update is split over the host's
# cores (``k.split``). Each formula keeps the order of operations of TF's kernels
# (training_ops.cc), so the values match TF's float for float.
def apply_gradient_descent(k, var, lr, delta):
    """var -= delta * lr"""
    old = var.read()
    _scalar("alpha", lr)
    _same_shape(old, "delta", delta)
    xp = k.xp

    def update(old, delta, new):
        if xp is np:
            descent.gradient_descent(old, delta, lr, new)  # one compiled pass where numba runs
            return
        xp.multiply(delta, lr, out=new)
        xp.subtract(old, new, out=new)
    new = var.new_buffer()
    k.split(update, old.shape, old, delta, new)
    var.assign(new)
    return var


def apply_momentum(k, var, accum, lr, grad, momentum):
    """accum = accum * momentum + grad; var -= accum * lr (Nesterov: grad * lr + accum * momentum * lr)."""
    xp, old_var, old_acc = k.xp, var.read(), accum.read()
    _scalar("lr", lr)
    _same_shape(old_var, "accum", old_acc)
    _same_shape(old_var, "grad", grad)
    _scalar("momentum", momentum)
    nesterov = k.attrs.get("use_nesterov")

    def update(old_var, old_acc, grad, new, acc):
        xp.multiply(old_acc, momentum, out=acc)
        xp.add(acc, grad, out=acc)
        if nesterov:
            xp.multiply(acc, momentum, out=new)
            xp.multiply(new, lr, out=new)
            new += xp.multiply(grad, lr)
        else:
            xp.multiply(acc, lr, out=new)
        xp.subtract(old_var, new, out=new)
    acc, new = accum.new_buffer(), var.new_buffer()
    k.split(update, old_var.shape, old_var, old_acc, grad, new, acc)
    accum.assign(acc)
    var.assign(new)
    return var


def apply_adam(k, var, m, v, beta1_power, beta2_power, lr, beta1, beta2, epsilon, grad):
    """m += (grad - m) * (1 - beta1); v += (grad² - v) * (1 - beta2);
    var -= (m * alpha) / (sqrt(v) + epsilon), alpha = lr * sqrt(1 - beta2^t) / (1 - beta1^t)."""
    xp = k.xp
    old_m, old_v, old_var = m.read(), v.read(), var.read()
    for name, x, sep in (("beta1_power", beta1_power, ":"), ("beta2_power", beta2_power, ":"), ("lr", lr, " :"),
                         ("beta1", beta1, ":"), ("beta2", beta2, ":"), ("epsilon", epsilon, ":")):
        _scalar(name, x, sep)  # TF's text for lr has a space before the colon
    _same_shape(old_var, "m", old_m)
    _same_shape(old_var, "v", old_v)
    _same_shape(old_var, "grad", grad)
    one = grad.dtype.type(1)
    alpha = lr * xp.sqrt(one - beta2_power) / (one - beta1_power)

    def update(old_var, old_m, old_v, grad, new, new_m, new_v):
        xp.subtract(grad, old_m, out=new_m)
        xp.multiply(new_m, one - beta1, out=new_m)
        xp.add(old_m, new_m, out=new_m)
        xp.multiply(grad, grad, out=new_v)
        xp.subtract(new_v, old_v, out=new_v)
        xp.multiply(new_v, one - beta2, out=new_v)
        xp.add(old_v, new_v, out=new_v)
        xp.sqrt(new_v, out=new)
        xp.add(new, epsilon, out=new)
        xp.divide(xp.multiply(new_m, alpha), new, out=new)  # numpy needs the numerator's temporary
        xp.subtract(old_var, new, out=new)
    new_m, new_v, new = m.new_buffer(), v.new_buffer(), var.new_buffer()
    k.split(update, old_var.shape, old_var, old_m, old_v, grad, new, new_m, new_v)
    m.assign(new_m)
    v.assign(new_v)
    var.assign(new)
    return var


def scalar_summary(k, tags, values):
    """A serialized Summary with one simple_value per (tag, value) pair, as TF's kernel."""
    import numpy as np  # a summary is a host-side string
    tags, values = np.asarray(tags, dtype=object), to_host(values)
    if tags.shape != values.shape:
        raise errors.InvalidArgumentError(None, None, f"tags and values are not the same shape: "
                                          f"{_shape_text(tags)} != {_shape_text(values)}")
    return host_bytes(summary_proto.scalar_values([text(t) for t in tags.reshape(-1)],
                                                  [float(v) for v in values.reshape(-1)]))


def histogram_summary(k, tag, values):
    """A serialized Summary holding a histogram of ``values`` (TF's default buckets)."""
    import numpy as np
    v = np.asarray(to_host(values), dtype=np.float64).reshape(-1)
    if not np.isfinite(v).all():
        raise errors.InvalidArgumentError(None, None, f"{'Nan' if np.isnan(v).any() else 'Inf'} in summary "
                                          f"histogram for: {text(tag)}")
    return host_bytes(summary_proto.histogram_value(text(tag), v))


def merge_summary(k, *summaries):
    """The summaries' values in one Summary; a tag may appear once, as in TF."""
    try:
        return host_bytes(summary_proto.merged([s.item() if hasattr(s, "item") else s for s in summaries]))
    except (TypeError, ValueError) as e:
        raise errors.InvalidArgumentError(None, None, str(e)) from None


def dataset_slice(k, position):
    """The next batch's share for one tower, cycling through an in-memory array (host only).
    ``position`` is the iterator's state: a variable counting the batches read (unset: none)."""
    import numpy as np
    data, batch, tower, towers = k.attrs["data"], k.attrs["batch"], k.attrs["tower"], k.attrs["towers"]
    step = int(position.read()) if position.is_initialized() else 0
    position.assign(np.asarray(step + 1, dtype=np.int64), validate_shape=False)
    n_batches = len(data) // batch
    start = (step % n_batches) * batch + tower * (batch // towers)
    return np.asarray(data[start:start + batch // towers])


# -- control flow: the value on a Switch's untaken side is DEAD ----------------------------------
class _Dead:
    """The value on the untaken side of a Switch. An op that reads it does not run and passes it
    on (so a whole branch of a tf.cond is skipped); only Merge reads past it."""

    __slots__ = ()

    def __repr__(self):
        return "<dead>"

    def __reduce__(self):
        return "DEAD"  # pickled by name: on a cluster worker it is the same sentinel, so ``is DEAD`` holds


DEAD = _Dead()


def switch(k, data, pred):
    """(output_false, output_true): ``data`` on the side ``pred`` selects, DEAD on the other."""
    return (DEAD, data) if bool(pred) else (data, DEAD)


def merge(k, *inputs):
    """(the first live input, its index); DEAD if every input is dead."""
    import numpy as np  # the index is a host-memory int32, as TF keeps it
    for i, x in enumerate(inputs):
        if x is not DEAD:
            return x, np.int32(i)
    return DEAD, DEAD



def ref_select(k, index, *refs):
    """The reference ``refs[index]`` itself (RefSelect), for a later op to read or write."""
    i = int(index)
    if not 0 <= i < len(refs):
        raise errors.InvalidArgumentError(None, None, f"index must be in the range [0, {len(refs)}) but got {i}")
    return refs[i]


def forward(k, x):
    """Enter, Exit, NextIteration and LoopCond hand their input on; the executor moves it
    between the frames of a while loop."""
    return x


# -- tf.py_func ------------------------------------------------------------------------------------
PY_FUNCS = {}  # token -> the Python function of a tf.py_func (TF's FuncRegistry); see script_ops.py


def py_func(k, *args):
    """Calls the op's Python function on numpy arrays, in the process of the device's task, and
    checks each returned value against ``Tout`` (no conversion, as in TF)."""
    import traceback

    import numpy as np

    from ..framework import dtypes, errors
    func = k.attrs.get("_func") or PY_FUNCS[k.attrs["token"]]  # a worker gets the function itself
    try:
        ret = func(*[np.asarray(a) for a in args])
    except Exception as e:  # noqa: BLE001 - TF reports any Python exception as UnknownError
        frames = "".join(traceback.format_tb(e.__traceback__)[1:])
        raise errors.UnknownError(None, None, f"{type(e).__name__}: {e}\nTraceback (most recent call last):\n"
                                              f"{frames}") from None
    touts = k.attrs["Tout"]
    values = list(ret) if isinstance(ret, (list, tuple)) else [ret]
    if len(values) != len(touts):
        raise errors.InvalidArgumentError(None, None, f"{k.attrs['token']} returns {len(values)} values, but "
                                                      f"expects to see {len(touts)} values.")
    out = []
    for i, (value, want) in enumerate(zip(values, touts)):
        arr = np.asarray(value)
        got = dtypes.as_dtype(arr.dtype)
        if got.base_dtype != want.base_dtype:
            raise errors.InvalidArgumentError(None, None, f"{i}-th value returned by {k.attrs['token']} is "
                                                          f"{got.tf_type_name}, but expects {want.tf_type_name}")
        out.append(arr)
    return out[0] if len(out) == 1 else tuple(out)


def check_bad_indices_policy(k, op_type):
    """TF registers kernels for the policies "", DEFAULT, ERROR and IGNORE only."""
    from ..framework import errors
    policy = k.attrs.get("bad_indices_policy", "")
    if policy not in ("", "DEFAULT", "ERROR", "IGNORE"):
        raise errors.InvalidArgumentError(None, None, f"No OpKernel was registered to support Op '{op_type}' used by "
                                                      f"{{{{node {k.op_name}}}}} with these attrs: "
                                                      f'[bad_indices_policy="{policy}"]')


def scatter_nd(k, indices, updates, shape):
    """Zeros of ``shape`` with ``updates`` added at ``indices`` (each row of the last axis an index
    into the first dims; repeated indices add up). An index out of range is TF's error, or is
    skipped with ``bad_indices_policy="IGNORE"``."""
    import numpy as np
    from ..framework import errors
    xp = k.xp
    check_bad_indices_policy(k, "ScatterNd")
    dims = tuple(int(d) for d in shape)
    out = xp.zeros(dims, dtype=updates.dtype)
    depth = indices.shape[-1]
    rows = to_host(indices).reshape(-1, depth)
    bad = np.any((rows < 0) | (rows >= np.asarray(dims[:depth], dtype=np.int64)), axis=1) if rows.size else []
    if np.any(bad):
        if k.attrs.get("bad_indices_policy") != "IGNORE":
            at = int(np.argmax(bad))
            raise errors.InvalidArgumentError(None, None, f"indices[{at}] = [{', '.join(map(str, rows[at]))}] does not "
                                                          f"index into shape [{','.join(map(str, dims))}]")
        keep = xp.asarray(~bad)
        updates = updates.reshape((rows.shape[0],) + updates.shape[indices.ndim - 1:])[keep]
        indices = xp.asarray(rows)[keep]
    index = tuple(indices[..., i] for i in range(depth))
    scatter_add(xp, out, index, updates)
    return out
