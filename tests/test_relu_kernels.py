"""Relu, ReluGrad, a bias add then relu, and a bias's gradient (devlab/ops/relu_kernels.py; the
fused groups of devlab/runtime/layer_fusion.py): TensorFlow 2.21's values bit for bit on NaN,
infinities and signed zeros (tests/data/tf_relu.json, tools/record_relu.py), on the numba path
(the ``fast`` extra) and on numpy's; and a compiled program's fused passes give the values of the
ops run one by one."""
import json
import pathlib
import subprocess
import sys

import numpy as np
import pytest

import devlab as tf
from devlab.ops import relu_kernels

RECORDED = json.loads((pathlib.Path(__file__).parent / "data" / "tf_relu.json").read_text())
ROWS = relu_kernels.NUMBA_FROM // 11 + 7  # rows of the 11 recorded values: past the numba threshold, not a round number


def recorded(name):
    return np.array(RECORDED[name], np.uint32).view(np.float32)


SPECIALS = recorded("values")


@pytest.fixture(params=["numba", "numpy"])
def path(request, monkeypatch):
    """Each test runs on both paths: numba's compiled loops, and numpy's formulas (the reference)."""
    if request.param == "numba":
        pytest.importorskip("numba")  # the fast extra, which the test extra installs
        monkeypatch.setattr(relu_kernels, "ENABLED", True)
    else:
        monkeypatch.setattr(relu_kernels, "ENABLED", False)
    with np.errstate(all="ignore"):  # inf - inf and inf * 0 make NaN quietly, as in a run
        yield request.param


def same_bits(got, want):
    """Equal float for float, NaN for NaN and -0.0 for -0.0 (the bit patterns, NaN payloads aside)."""
    got, want = np.asarray(got), np.asarray(want)
    assert got.shape == want.shape and got.dtype == want.dtype
    nan = np.isnan(want)
    np.testing.assert_array_equal(np.isnan(got), nan)
    np.testing.assert_array_equal(got[~nan].view(np.uint32), want[~nan].view(np.uint32))


def test_relu_is_tensorflows(path):
    x = np.tile(SPECIALS, ROWS)
    want = np.tile(recorded("relu"), ROWS)
    same_bits(relu_kernels.relu(x), want)
    out = np.empty_like(x)
    assert relu_kernels.relu(x, out) is out
    same_bits(out, want)


def test_relu_grad_multiplies_as_tensorflow_does(path):
    """A NaN or infinite gradient where the input is not positive gives NaN, a negative one -0.0."""
    dy, x = (np.tile(a.reshape(-1), ROWS) for a in np.meshgrid(SPECIALS, SPECIALS, indexing="ij"))
    want = np.tile(recorded("relu_grad"), ROWS)
    same_bits(relu_kernels.relu_grad(dy, x), want)
    same_bits(relu_kernels.relu_grad(dy.reshape(ROWS, 121), x.reshape(ROWS, 121)), want.reshape(ROWS, 121))


def test_bias_relu_is_tensorflows_add_then_relu(path):
    x = np.tile(np.repeat(SPECIALS, 11).reshape(11, 11), (ROWS, 1))  # row i: s[i] in every channel
    want = np.tile(recorded("add_relu").reshape(11, 11), (ROWS, 1))
    same_bits(relu_kernels.bias_relu(x, SPECIALS), want)
    same_bits(relu_kernels.bias_relu(x, SPECIALS, np.empty_like(x)), want)
    same_bits(np.tile(recorded("bias_add_relu").reshape(11, 11), (ROWS, 1)), want)  # BiasAdd's are the same


@pytest.mark.parametrize("shape", [(32, 24, 24, 64), (7, 13, 11, 6), (4099, 16), (3, 5), (8, 1)])
def test_sum_over_leading_axes_is_a_float32_sum(shape):
    x = np.random.default_rng(0).standard_normal(shape).astype(np.float32)
    count = len(shape) - 1
    got = relu_kernels.sum_leading(x, count)
    exact = x.astype(np.float64).sum(axis=tuple(range(count)))
    if got is None:  # too small, rows too wide, or no block divides the rows: numpy's reduction runs
        assert x.size < relu_kernels.NUMBA_FROM or shape[0] == 4099
        return
    assert got.dtype == np.float32 and got.shape == exact.shape
    np.testing.assert_allclose(got, exact, rtol=1e-5, atol=1e-5 * np.sqrt(x.size / got.size))
    # as accurate as numpy's own reduction of the float32 array, or more
    numpy_error = np.abs(np.add.reduce(x, axis=tuple(range(count))) - exact).max()
    assert np.abs(got - exact).max() <= numpy_error * 1.5


@pytest.mark.parametrize("shape", [(32, 12, 12, 64), (16, 16, 16, 8), (33, 1024), (5, 7, 3)])
def test_relu_grad_and_its_sum_in_one_pass_are_the_two_kernels(path, shape):
    rng = np.random.default_rng(1)
    dy, x = (rng.standard_normal(shape).astype(np.float32) for _ in range(2))
    dy[0, 0] = np.nan  # reaches the sum wherever the input is positive
    x[0, 0] = 1.0
    count = len(shape) - 1
    grad, total = relu_kernels.relu_grad_sum(dy, x, count)
    want = relu_kernels.relu_grad(dy, x)
    want_total = relu_kernels.sum_leading(want, count)
    if want_total is None:
        want_total = np.add.reduce(want, axis=tuple(range(count)))
    same_bits(grad, want)
    same_bits(total, want_total)
    assert np.isnan(total.reshape(-1)[0])


def _layer(data, images, channels):
    """relu(x + b) and relu(bias_add(x, b)), a loss of both, and the gradients of the biases."""
    x = tf.placeholder(tf.float32, images.shape, name="x")
    b = tf.Variable(np.linspace(-1, 1, channels).astype(np.float32), name="b")
    c = tf.Variable(np.linspace(1, -1, channels).astype(np.float32), name="c")
    h1 = tf.nn.relu(x + b)
    h2 = tf.nn.relu(tf.nn.bias_add(x, c))
    loss = tf.reduce_sum(h1 * data) + tf.reduce_sum(h2 * data)
    grads = tf.gradients(loss, [b, c])
    return x, [h1, h2] + grads


def test_compiled_program_fuses_the_layer_and_gives_the_ops_values(path):
    """A steady run fuses bias add + relu and ReluGrad + its Sum (or BiasAddGrad); its values are
    those of the interpreted run (every op on its own), bit for bit, NaN and infinities included."""
    rng = np.random.default_rng(2)
    shape = (8, 16, 16, 16)  # 32768 floats: the numba loops run
    images = rng.standard_normal(shape).astype(np.float32)
    images.reshape(-1)[:11] = SPECIALS
    data = rng.standard_normal(shape).astype(np.float32)
    g = tf.Graph()
    with g.as_default():
        x, fetches = _layer(data, images, shape[-1])
        init = tf.global_variables_initializer()
    with tf.Session(graph=g) as sess:
        sess.run(init)
        traced = sess.run(fetches, {x: images}, options=tf.RunOptions(trace_level=tf.RunOptions.FULL_TRACE))
        sess.run(fetches, {x: images})
        compiled = sess.run(fetches, {x: images})
        source = sess.compiled_program(sess.last_plan).source
    assert source.count("bias_relu(") == 2 and source.count("relu_grad_sum(") == 2
    for got, want in zip(compiled, traced):
        same_bits(got, want)
    assert np.isnan(compiled[0]).any() and np.isinf(compiled[0]).any()


def test_bias_relu_reads_the_bias_where_the_relu_runs_only_if_nothing_writes_it_between():
    """A bias assigned between the add and the relu is read by the add before the write: the
    pair is then not fused (the program would read the new value)."""
    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.float32, (64, 1024), name="x")
        b = tf.Variable(np.zeros(1024, np.float32), name="b")
        add = x + b
        with tf.control_dependencies([add]):
            write = tf.assign(b, tf.ones(1024))
        with tf.control_dependencies([write]):
            out = tf.nn.relu(add)
        init = tf.global_variables_initializer()
    feed = {x: -np.ones((64, 1024), np.float32) * 0.5}
    with tf.Session(graph=g) as sess:
        sess.run(init)
        for _ in range(2):
            sess.run(init)
            got = sess.run(out, feed)
            np.testing.assert_array_equal(got, 0.0)  # relu(-0.5 + 0), never relu(-0.5 + 1)
        assert "bias_relu(" not in sess.compiled_program(sess.last_plan).source


def test_without_numba_the_numpy_formulas_run():
    """numba is an optional extra: where it cannot be imported, the same runs give numpy's values."""
    code = """
import sys
sys.modules["numba"] = None  # import numba now fails, as where the fast extra is not installed
import numpy as np
import devlab as tf
from devlab.ops import relu_kernels
x = tf.placeholder(tf.float32, (64, 1024))
b = tf.Variable(np.linspace(-1, 1, 1024).astype(np.float32))
h = tf.nn.relu(x + b)
g = tf.gradients(tf.reduce_sum(h * h), b)[0]
feed = {x: np.linspace(-3, 3, 64 * 1024).reshape(64, 1024).astype(np.float32)}
with tf.Session() as sess:
    sess.run(tf.global_variables_initializer())
    got = [sess.run([h, g], feed) for _ in range(3)][-1]
want_h = np.maximum(feed[x] + np.linspace(-1, 1, 1024).astype(np.float32), 0)
np.testing.assert_array_equal(got[0], want_h)
np.testing.assert_allclose(got[1], (2 * want_h).sum(axis=0), rtol=1e-5)
assert relu_kernels._numba_loops() is None and "numba" not in [m for m in sys.modules if sys.modules[m] is not None]
print("numpy path ok")
"""
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                          cwd=pathlib.Path(__file__).parent.parent)
    assert done.returncode == 0, done.stderr[-3000:]
    assert "numpy path ok" in done.stdout
