"""``tf.test.compute_gradient`` and ``compute_gradient_error``: TF1's gradient checker.

For ``y = f(x)`` in the default session it returns two Jacobians of shape (size of x, size of
y): the *theoretical* one, column by column, from ``tf.gradients(y, x, dy)`` with ``dy`` fed one
element at a time, and the *numerical* one, row by row, from central differences
``(y(x + delta) - y(x - delta)) / (2 delta)``. The error is their largest absolute difference.
"""
import numpy as np

from ..framework.default_session import get_default_session
from ..framework.graph import get_default_graph
from ..framework.indexed_slices import IndexedSlices
from .array_ops import constant, identity
from .gradients import gradients

_ALLOWED = ("float16", "bfloat16", "float32", "float64", "complex64", "complex128")


def _check_dtype(t, what):
    if t.dtype.base_dtype.name not in _ALLOWED:
        raise AssertionError(f"Don't support type {t.dtype.base_dtype.name} for {what}")


def _real(dtype):
    """The numpy dtype of a tensor dtype's real part (the dtype itself for a real one)."""
    return dtype.base_dtype.real_dtype.as_numpy_dtype


def _run_dense(sess, dx, feed, x_shape):
    """The gradient ``dx`` as an array; an IndexedSlices one has its rows added up where they belong."""
    if not isinstance(dx, IndexedSlices):
        return np.asarray(sess.run(dx, feed))
    values, indices = sess.run([dx.values, dx.indices], feed)
    out = np.zeros(x_shape, dtype=values.dtype)
    np.add.at(out, indices, values)
    return out


def _theoretical(sess, x, x_data, dx, dy, y_shape, feed):
    """Column by column, from the gradient of each element of y. A complex tensor counts as twice
    as many reals (real and imaginary parts interleaved), as in TF's checker."""
    x_size = int(np.prod(x_data.shape)) * (2 if x.dtype.is_complex else 1)
    y_size = int(np.prod(y_shape)) * (2 if dy.dtype.is_complex else 1)
    jacobian = np.zeros((x_size, y_size), dtype=_real(x.dtype))
    dy_data = np.zeros(y_shape, dtype=dy.dtype.base_dtype.as_numpy_dtype)
    flat = dy_data.reshape(-1).view(_real(dy.dtype))
    for col in range(y_size):
        flat[:] = 0
        flat[col] = 1
        backprop = _run_dense(sess, dx, {**feed, x: x_data, dy: dy_data}, x_data.shape)
        jacobian[:, col] = np.ascontiguousarray(backprop, dtype=x.dtype.base_dtype.as_numpy_dtype).reshape(
            -1).view(_real(x.dtype))
    return jacobian


def _numerical(sess, x, x_data, y, y_shape, delta, feed):
    """Row by row, from central differences; the real and imaginary parts of a complex x (and y)
    are moved (and read) one at a time."""
    x_size = int(np.prod(x_data.shape)) * (2 if x.dtype.is_complex else 1)
    y_size = int(np.prod(y_shape)) * (2 if y.dtype.is_complex else 1)
    jacobian = np.zeros((x_size, y_size), dtype=_real(x.dtype))
    wide = np.complex128 if y.dtype.is_complex else np.float64
    for row in range(x_size):
        pos, neg = x_data.copy(), x_data.copy()
        pos.reshape(-1).view(_real(x.dtype))[row] += delta
        neg.reshape(-1).view(_real(x.dtype))[row] -= delta
        y_pos = np.asarray(sess.run(y, {**feed, x: pos}), dtype=wide)
        y_neg = np.asarray(sess.run(y, {**feed, x: neg}), dtype=wide)
        jacobian[row, :] = np.ascontiguousarray((y_pos - y_neg) / (2 * delta)).reshape(-1).view(np.float64)
    return jacobian


def _checked_init(x, x_shape, y, x_data):
    """TF's checks (dtypes, the initial value's shape), and the initial value as an array."""
    _check_dtype(x, "x")
    _check_dtype(y, "y")
    if x_data is None:
        x_data = np.random.random_sample(x_shape).astype(x.dtype.base_dtype.as_numpy_dtype)
        if x.dtype.is_complex:
            x_data.imag = np.random.random_sample(x_shape)
    x_data = np.asarray(x_data, dtype=x.dtype.base_dtype.as_numpy_dtype)
    if list(x_shape) != list(x_data.shape):
        raise AssertionError(f"x_shape = {list(x_shape)}, init_data shape = {list(x_data.shape)}")
    return x_data


def compute_gradient(x, x_shape, y, y_shape, x_init_value=None, delta=1e-3, init_targets=None,
                     extra_feed_dict=None):
    """(theoretical, numerical) Jacobians of ``y`` with respect to ``x`` (a list of pairs when
    ``x`` is a list), evaluated in the default session at ``x_init_value`` (random when None);
    ``init_targets`` run first, ``extra_feed_dict`` feeds other placeholders."""
    xs = x if isinstance(x, (list, tuple)) else [x]
    shapes = x_shape if isinstance(x, (list, tuple)) else [x_shape]
    inits = x_init_value if isinstance(x, (list, tuple)) and x_init_value is not None else \
        [x_init_value] * len(xs) if not isinstance(x, (list, tuple)) else [None] * len(xs)
    inits = [_checked_init(xi, shape, y, init) for xi, shape, init in zip(xs, shapes, inits)]
    sess = get_default_session()
    if sess is None:
        raise ValueError("compute_gradient needs a default session (use it inside `with tf.Session():`)")
    for target in init_targets or ():
        sess.run(target)
    feed = dict(extra_feed_dict or {})
    with get_default_graph().as_default():
        dy = identity(constant(1.0, shape=list(y_shape), dtype=y.dtype.base_dtype))
        dxs = gradients(y, xs, grad_ys=dy)
    results = []
    for xi, init, dx in zip(xs, inits, dxs):
        if dx is None:  # y does not depend on x: TF's assertion
            raise AssertionError("dx = None")
        # TF feeds no other x: the caller feeds them (extra_feed_dict)
        results.append((_theoretical(sess, xi, init, dx, dy, y_shape, feed),
                        _numerical(sess, xi, init, y, y_shape, delta, feed)))
    return results if isinstance(x, (list, tuple)) else results[0]


def compute_gradient_error(x, x_shape, y, y_shape, x_init_value=None, delta=1e-3, init_targets=None,
                           extra_feed_dict=None):
    """The largest absolute difference between the theoretical and numerical Jacobians."""
    grads = compute_gradient(x, x_shape, y, y_shape, x_init_value, delta, init_targets, extra_feed_dict)
    pairs = grads if isinstance(grads, list) else [grads]
    error = 0.0
    for theoretical, numerical in pairs:
        if theoretical.size or numerical.size:
            error = max(error, float(np.fabs(theoretical.astype(np.float64) - numerical).max()))
    return error

