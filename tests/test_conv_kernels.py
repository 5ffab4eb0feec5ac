"""The convolution and pooling kernels (devlab/ops/nn_kernels.py) on every code path they have:
strides 1 and 2 (a stride-1 input gradient is itself a convolution when the input has at least
as many channels as the output, otherwise a scatter of taps), SAME and VALID padding, dilation, non-square windows, batches split over the cores, each
against the plain loops of tests/numpy_reference.py, and the input gradient also against finite
differences of the forward kernel. The convolutions run both through numpy and through OpenVINO
(``conv_path``), where the ``fastconv`` extra is installed."""
import numpy as np
import pytest

import devlab as tf
from devlab.ops.build import apply_op

import numpy_reference as ref
from devlab.ops import fast_conv

R = np.random.default_rng(7)
X = R.uniform(-1, 1, (3, 7, 6, 2)).astype(np.float32)  # odd sizes: SAME pads unevenly
W = R.uniform(-1, 1, (3, 2, 2, 4)).astype(np.float32)  # kh != kw
X4 = R.uniform(-1, 1, (3, 7, 6, 4)).astype(np.float32)
W4 = R.uniform(-1, 1, (2, 3, 4, 2)).astype(np.float32)  # more channels in than out: the turned-filter path
GEOMETRIES = [(stride, padding, dilation) for stride in (1, 2) for padding in ("SAME", "VALID")
              for dilation in (1, 2) if not (stride > 1 and dilation > 1)]  # TF: one or the other


@pytest.fixture(params=["numpy", "openvino"])
def conv_path(request, monkeypatch):
    """The convolutions' two paths: numpy's kernels (the reference), and OpenVINO's where the
    ``fastconv`` extra is installed (``fast_conv.py``)."""
    if request.param == "numpy":
        monkeypatch.setattr(fast_conv, "ENABLED", False)
    elif fast_conv._openvino() is None:
        pytest.skip("the fastconv extra (OpenVINO) is not installed")
    return request.param


def run(op_type, inputs, attrs):
    with tf.Graph().as_default(), tf.Session() as sess:
        return sess.run(apply_op(op_type, [tf.convert_to_tensor(x) for x in inputs], attrs).outputs[0])


def conv_attrs(stride, padding, dilation):
    return {"strides": [1, stride, stride, 1], "padding": padding, "dilations": [1, dilation, dilation, 1],
            "data_format": "NHWC"}


def dy_for(stride, padding, dilation, x=X, w=W):
    shape = ref.conv2d(x, w, stride, padding, dilation).shape
    return np.random.default_rng(stride * 10 + dilation).uniform(-1, 1, shape).astype(np.float32)


@pytest.mark.parametrize("stride,padding,dilation", GEOMETRIES)
def test_conv2d_matches_the_loops(stride, padding, dilation, conv_path):
    got = run("Conv2D", [X, W], conv_attrs(stride, padding, dilation))
    np.testing.assert_allclose(got, ref.conv2d(X, W, stride, padding, dilation), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("x,w", [(X, W), (X4, W4)], ids=["fewer_in", "more_in"])
@pytest.mark.parametrize("stride,padding,dilation", GEOMETRIES)
def test_conv2d_backprop_input_matches_the_loops(stride, padding, dilation, x, w, conv_path):
    dy = dy_for(stride, padding, dilation, x, w)
    got = run("Conv2DBackpropInput", [np.array(x.shape, np.int32), w, dy], conv_attrs(stride, padding, dilation))
    want = ref.conv2d_backprop_input(x.shape, w, dy, stride, padding, dilation)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("stride,padding,dilation", GEOMETRIES)
def test_conv2d_backprop_filter_matches_the_loops(stride, padding, dilation, conv_path):
    dy = dy_for(stride, padding, dilation)
    got = run("Conv2DBackpropFilter", [X, np.array(W.shape, np.int32), dy], conv_attrs(stride, padding, dilation))
    want = ref.conv2d_backprop_filter(X, W.shape, dy, stride, padding, dilation)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("x,w", [(X, W), (X4, W4)], ids=["fewer_in", "more_in"])
@pytest.mark.parametrize("stride,padding,dilation", [(1, "SAME", 2), (1, "VALID", 1), (2, "SAME", 1)])
def test_the_input_gradient_is_the_derivative_of_the_convolution(stride, padding, dilation, x, w):
    """d sum(conv2d(x) * dy) / dx by central differences of the forward kernel, in float64."""
    dy = dy_for(stride, padding, dilation, x, w).astype(np.float64)
    x, w = x.astype(np.float64), w.astype(np.float64)
    attrs = conv_attrs(stride, padding, dilation)
    got = run("Conv2DBackpropInput", [np.array(x.shape, np.int32), w, dy], attrs)
    numeric = np.zeros_like(x)
    eps = 1e-4
    for i in np.ndindex(x.shape):
        up, down = x.copy(), x.copy()
        up[i] += eps
        down[i] -= eps
        numeric[i] = ((run("Conv2D", [up, w], attrs) - run("Conv2D", [down, w], attrs)) * dy).sum() / (2 * eps)
    np.testing.assert_allclose(got, numeric, rtol=1e-6, atol=1e-6)


def test_a_large_batch_split_over_the_cores_gives_the_whole_batchs_values(conv_path):
    """Enough images for the kernels to hand ranges of them to several threads (and several
    cache-sized blocks to each): the same values as the loops."""
    x = R.uniform(-1, 1, (40, 9, 9, 8)).astype(np.float32)
    w = R.uniform(-1, 1, (3, 3, 8, 5)).astype(np.float32)
    attrs = conv_attrs(1, "SAME", 1)
    dy = dy_for(1, "SAME", 1, x, w)
    np.testing.assert_allclose(run("Conv2D", [x, w], attrs), ref.conv2d(x, w, 1, "SAME"), rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(run("Conv2DBackpropFilter", [x, np.array(w.shape, np.int32), dy], attrs),
                               ref.conv2d_backprop_filter(x, w.shape, dy, 1, "SAME"), rtol=1e-4, atol=1e-3)
    np.testing.assert_allclose(run("Conv2DBackpropInput", [np.array(x.shape, np.int32), w, dy], attrs),
                               ref.conv2d_backprop_input(x.shape, w, dy, 1, "SAME"), rtol=1e-4, atol=1e-4)


POOLS = [(k, stride, padding) for k in (2, 3) for stride in (1, 2) for padding in ("SAME", "VALID")]


def pool_attrs(k, stride, padding):
    return {"ksize": [1, k, k, 1], "strides": [1, stride, stride, 1], "padding": padding, "data_format": "NHWC"}


@pytest.mark.parametrize("k,stride,padding", POOLS)
@pytest.mark.parametrize("kind", ["max", "avg"])
def test_pooling_matches_the_loops(kind, k, stride, padding):
    got = run("MaxPool" if kind == "max" else "AvgPool", [X], pool_attrs(k, stride, padding))
    np.testing.assert_allclose(got, ref.pool(X, k, stride, padding, kind), rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("k,stride,padding", POOLS)
def test_pooling_gradients_match_the_loops(k, stride, padding):
    attrs = pool_attrs(k, stride, padding)
    y = ref.pool(X, k, stride, padding, "max").astype(np.float32)
    dy = np.random.default_rng(k + stride).uniform(-1, 1, y.shape).astype(np.float32)
    np.testing.assert_allclose(run("MaxPoolGrad", [X, y, dy], attrs), ref.max_pool_grad(X, dy, k, stride, padding),
                               rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(run("AvgPoolGrad", [np.array(X.shape, np.int32), dy], attrs),
                               ref.avg_pool_grad(X.shape, dy, k, stride, padding), rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("k,stride,padding", [(3, 2, "SAME"), (3, 2, "VALID"), (2, 3, "SAME"), (4, 3, "VALID")])
def test_strided_pools_read_their_taps_through_phases_with_the_loops_values_and_ties(k, stride, padding):
    """With strides above 1 the taps are read through the input's phases (``nn_kernels._Phases``):
    windows that overlap, ties (every other pixel equal) and odd sizes (phases of unequal sizes)."""
    x = np.random.default_rng(stride).uniform(-1, 1, (2, 11, 10, 3)).astype(np.float32)
    x[:, ::2, 1::2, :] = 0.75
    attrs = pool_attrs(k, stride, padding)
    y = run("MaxPool", [x], attrs)
    np.testing.assert_array_equal(y, ref.pool(x, k, stride, padding, "max").astype(np.float32))
    np.testing.assert_allclose(run("AvgPool", [x], attrs), ref.pool(x, k, stride, padding, "avg"), rtol=1e-6, atol=1e-6)
    dy = np.random.default_rng(k).uniform(-1, 1, y.shape).astype(np.float32)
    np.testing.assert_allclose(run("MaxPoolGrad", [x, y, dy], attrs), ref.max_pool_grad(x, dy, k, stride, padding),
                               rtol=1e-6, atol=1e-6)


def test_a_tie_sends_the_max_pool_gradient_to_the_first_maximum_only():
    x = np.ones((1, 4, 4, 1), np.float32)  # every window is one big tie
    attrs = pool_attrs(3, 1, "VALID")
    dy = np.array([[1.0, 2.0], [3.0, 4.0]], np.float32).reshape(1, 2, 2, 1)
    got = run("MaxPoolGrad", [x, np.ones((1, 2, 2, 1), np.float32), dy], attrs)
    np.testing.assert_array_equal(got, ref.max_pool_grad(x, dy, 3, 1, "VALID"))
    assert got[0, 0, 0, 0] == 1.0 and got[0, 1, 1, 0] == 4.0 and got.sum() == 10.0


def test_a_max_pool_gradient_split_over_the_cores_gives_the_loops_values(monkeypatch):
    """Images handed to the cores in parts (as an input of POOL_PARTS elements is), with ties in
    every window: the gradient of the loops."""
    from devlab.ops import nn_kernels
    monkeypatch.setattr(nn_kernels, "POOL_PARTS", 1)
    x = np.round(R.uniform(-2, 2, (17, 9, 8, 3)), 0).astype(np.float32)  # five values: ties
    attrs = pool_attrs(3, 2, "SAME")
    y = ref.pool(x, 3, 2, "SAME", "max").astype(np.float32)
    dy = R.uniform(-1, 1, y.shape).astype(np.float32)
    np.testing.assert_allclose(run("MaxPoolGrad", [x, y, dy], attrs), ref.max_pool_grad(x, dy, 3, 2, "SAME"),
                               rtol=1e-6, atol=1e-6)


def test_an_infinite_max_pool_gradient_reaches_only_its_maximum():
    """A window's infinite or NaN gradient goes to its maximum alone; the other inputs get 0, not
    the NaN that inf * 0 would be."""
    x = np.arange(16, dtype=np.float32).reshape(1, 4, 4, 1)
    dy = np.array([np.inf, 1, np.nan, -np.inf], np.float32).reshape(1, 2, 2, 1)
    got = run("MaxPoolGrad", [x, np.zeros((1, 2, 2, 1), np.float32), dy], pool_attrs(2, 2, "VALID"))
    expected = np.zeros((1, 4, 4, 1), np.float32)
    expected[0, 1, 1, 0], expected[0, 1, 3, 0], expected[0, 3, 1, 0], expected[0, 3, 3, 0] = dy.reshape(-1)
    np.testing.assert_array_equal(got, expected)
