"""Gradient descent's one-pass update (devlab/ops/descent.py): the numba loop gives numpy's two
ufuncs' values bit for bit (the product rounded, then the difference: TF's order), specials
included, and a GradientDescentOptimizer step on a large variable gives them too."""
import numpy as np
import pytest

import devlab as tf
from devlab.ops import descent

SPECIALS = np.array([np.nan, np.inf, -np.inf, 0.0, -0.0, 1.0, -1.0, 3.4e38, -3.4e38, 1e-30], np.float32)


@pytest.fixture(params=["numba", "numpy"])
def path(request, monkeypatch):
    if request.param == "numba":
        pytest.importorskip("numba")  # the fast extra, which the test extra installs
    monkeypatch.setattr(descent, "ENABLED", request.param == "numba")
    with np.errstate(all="ignore"):
        yield request.param


def two_passes(old, delta, lr):
    return np.subtract(old, np.multiply(delta, lr))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_update_is_the_product_then_the_difference(path, dtype):
    rng = np.random.default_rng(0)
    n = descent.NUMBA_FROM + 13
    old, delta = rng.standard_normal(n).astype(dtype), rng.standard_normal(n).astype(dtype)
    old[:100] = np.repeat(SPECIALS, 10).astype(dtype)
    delta[:100] = np.tile(SPECIALS, 10).astype(dtype)  # every special against every special
    lr = np.array(0.1, dtype)
    new = np.empty_like(old)
    descent.gradient_descent(old, delta, lr, new)
    want = two_passes(old, delta, lr)
    np.testing.assert_array_equal(new, want)  # NaN where NaN
    np.testing.assert_array_equal(np.signbit(new), np.signbit(want))
    if dtype is np.float32:  # the data tell TF's rounding from one rounding (a fused multiply-add)
        fused = (old.astype(np.float64) - delta.astype(np.float64) * np.float64(lr)).astype(dtype)
        assert np.count_nonzero(fused[100:] != want[100:]) > 100


def test_optimizer_step_on_a_large_variable(path):
    rng = np.random.default_rng(1)
    start = rng.standard_normal((256, 512)).astype(np.float32)
    target = rng.standard_normal((256, 512)).astype(np.float32)
    w = tf.Variable(start)
    loss = tf.reduce_sum(tf.square(w - target)) * 0.5
    step = tf.train.GradientDescentOptimizer(0.05).minimize(loss)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        want = start
        for _ in range(3):  # the first run interpreted, then the compiled program
            sess.run(step)
            want = two_passes(want, want - target, np.float32(0.05))
            np.testing.assert_array_equal(sess.run(w), want)
