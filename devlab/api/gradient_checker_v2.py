"""TF2's gradient checker (``gradient_checker_v2.compute_gradient(f, x)``), in graph mode.

``f`` is called once on placeholders standing for ``x`` (a list of values); each Jacobian has
shape (size of y, size of x), unlike TF1's checker (gradient_checker.py), which has x's size
first. The theoretical Jacobian comes row by row from ``tf.gradients`` with ``grad_ys`` fed one
element at a time, the numerical one column by column from central differences with step
``delta`` (1/1024 by default), both run in the default session.
"""
import numpy as np

from ..framework.default_session import get_default_session
from ..framework.indexed_slices import IndexedSlicesValue
from ..framework.tensor import Tensor
from .array_ops import placeholder
from . import gradient_checker
from .gradients import gradients
from ..ops.build import convert_to_tensor


def _value(sess, x):
    """``x`` (a value or a tensor) as an array of the dtype TF converts it to."""
    t = convert_to_tensor(x)
    if isinstance(x, Tensor) or t.op.type != "Const":  # a tensor or a variable: its current value
        return np.asarray(sess.run(t)), t.dtype.base_dtype
    return np.asarray(x, dtype=t.dtype.base_dtype.as_numpy_dtype), t.dtype.base_dtype


def _dense(sess, dx, feed, shape):
    """The gradient ``dx`` as an array (zeros where there is none), as TF1's checker makes it."""
    return np.zeros(shape) if dx is None else gradient_checker._run_dense(sess, dx, feed, shape)


def compute_gradient(f, x, delta=None):
    """(theoretical, numerical): tuples with one Jacobian per argument of ``f``."""
    if not isinstance(x, (list, tuple)):
        raise ValueError(f"`x` must be a list or tuple of values convertible to a Tensor (arguments to `f`), "
                         f"not a {type(x)}")
    delta = 1.0 / 1024 if delta is None else delta
    sess = get_default_session()
    if sess is None:
        raise ValueError("compute_gradient in graph mode needs a default session (`with tf.Session():`)")
    values = [_value(sess, v) for v in x]
    holders = [placeholder(dtype, value.shape) for value, dtype in values]
    y = convert_to_tensor(f(*holders))
    feed = {h: value for h, (value, _) in zip(holders, values)}
    y_value = np.asarray(sess.run(y, feed))
    y_size = y_value.size
    theoretical, numerical = [], []
    for i, (holder, (value, dtype)) in enumerate(zip(holders, values)):
        x_size = value.size
        jt = np.zeros((y_size, x_size), dtype=dtype.as_numpy_dtype)
        jn = np.zeros((y_size, x_size), dtype=dtype.as_numpy_dtype)
        dy = placeholder(y.dtype.base_dtype, y_value.shape)
        dx = gradients(y, holder, grad_ys=dy)[0]
        dy_value = np.zeros(y_value.shape, dtype=y.dtype.base_dtype.as_numpy_dtype)
        for row in range(y_size):
            dy_value.reshape(-1)[:] = 0
            dy_value.reshape(-1)[row] = 1
            jt[row, :] = _dense(sess, dx, {**feed, dy: dy_value}, value.shape).reshape(x_size)
        for col in range(x_size):
            pos, neg = value.copy(), value.copy()
            pos.reshape(-1)[col] += delta
            neg.reshape(-1)[col] -= delta
            y_pos = np.asarray(sess.run(y, {**feed, holder: pos}))
            y_neg = np.asarray(sess.run(y, {**feed, holder: neg}))
            jn[:, col] = ((y_pos - y_neg) / (2 * delta)).reshape(y_size)
        theoretical.append(jt)
        numerical.append(jn)
    return tuple(theoretical), tuple(numerical)


def max_error(grad1, grad2):
    """The largest absolute difference between corresponding Jacobians of two tuples."""
    error = 0.0
    for j1, j2 in zip(grad1, grad2):
        if j1.size or j2.size:
            error = max(error, float(np.max(np.fabs(np.asarray(j1, np.float64) - np.asarray(j2, np.float64)))))
    return error


def _to_numpy(a):
    """TF's helper: a tensor's value in the default session, an IndexedSlicesValue as the dense array
    its rows add up to (a row listed twice counts twice), anything else as it is."""
    if isinstance(a, Tensor):
        return get_default_session().run(a)
    if isinstance(a, IndexedSlicesValue):
        arr = np.zeros(a.dense_shape)
        assert len(a.values) == len(a.indices), f"IndexedSlicesValue has {len(a.values)} value slices but " \
            f"{len(a.indices)} indices\n{a}"
        for values_slice, index in zip(a.values, a.indices):
            assert 0 <= index < len(arr), f"IndexedSlicesValue has invalid index {index}\n{a}"
            arr[index] += values_slice
        return arr
    return a
