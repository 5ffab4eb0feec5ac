"""The OpenVINO convolutions of devlab/ops/fast_conv.py (the ``fastconv`` extra) give the numpy
kernels' values, within float32 rounding, over random shapes, strides, SAME/VALID padding and
dilations; and they hand back (None) what they are not given, so the numpy kernels run."""
import threading

import numpy as np
import pytest

from devlab.ops import fast_conv
from devlab.ops import nn_kernels as nk
from kernel_context import Context

pytest.importorskip("openvino")  # the fastconv extra, which the test extra installs


def fast(k, kernel, *args):
    """``fast_conv``'s ``kernel`` ("conv2d", "backprop_input", "backprop_filter") on the arguments
    of the nn_kernels function of the same op, given the window geometry nn_kernels computes."""
    if kernel == "conv2d":
        x, f = args
        return fast_conv.conv2d(k, nk.Windows(k, x.shape, f.shape[:2]), x, f)
    if kernel == "backprop_input":
        sizes, f, dy = args
        return fast_conv.backprop_input(k, nk.Windows(k, tuple(int(v) for v in sizes), f.shape[:2]), f, dy)
    x, sizes, dy = args
    shape = tuple(int(v) for v in sizes)
    return fast_conv.backprop_filter(k, nk.Windows(k, x.shape, shape[:2]), x, dy, shape)


def numpy_path(monkeypatch, fn, *args):
    with monkeypatch.context() as m:
        m.setattr(fast_conv, "ENABLED", False)
        return fn(*args)


def cases(seed, count):
    """Random geometries: (x, w, attrs); TF takes strides above 1 or dilations above 1, not both."""
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(count):
        n, h, w = rng.integers(1, 5), rng.integers(3, 11), rng.integers(3, 11)
        kh, kw = rng.integers(1, 6), rng.integers(1, 6)
        cin, cout = rng.choice([3, 16, 17, 24]), rng.integers(1, 9)
        stride, dilation = [1, 1], [1, 1]
        if rng.random() < 0.5:
            stride = [int(rng.integers(1, 4)), int(rng.integers(1, 4))]
        else:
            dilation = [int(rng.integers(1, 3)), int(rng.integers(1, 3))]
        padding = str(rng.choice(["SAME", "VALID"]))
        attrs = {"strides": [1, *stride, 1], "dilations": [1, *dilation, 1], "padding": padding,
                 "data_format": "NHWC"}
        if padding == "VALID" and ((kh - 1) * dilation[0] + 1 > h or (kw - 1) * dilation[1] + 1 > w):
            continue  # no output: TF's shape function refuses it
        x = rng.uniform(-1, 1, (n, h, w, cin)).astype(np.float32)
        f = rng.uniform(-1, 1, (kh, kw, cin, cout)).astype(np.float32)
        out.append((x, f, attrs))
    return out


CASES = cases(29, 20)


def ids(case):
    x, f, a = case
    return f"x{x.shape}-w{f.shape}-s{a['strides'][1:3]}-d{a['dilations'][1:3]}-{a['padding']}".replace(" ", "")


@pytest.mark.parametrize("case", CASES, ids=[ids(c) for c in CASES])
def test_all_three_kernels_give_the_numpy_values(case, monkeypatch):
    x, f, attrs = case
    k = Context(attrs)
    y = fast(k, "conv2d", x, f)  # with any number of channels
    np.testing.assert_allclose(y, numpy_path(monkeypatch, nk.conv2d, k, x, f), rtol=1e-5, atol=1e-5)
    dy = np.random.default_rng(1).uniform(-1, 1, y.shape).astype(np.float32)
    dx = fast(k, "backprop_input", np.array(x.shape, np.int32), f, dy)
    want = numpy_path(monkeypatch, nk.conv2d_backprop_input, k, np.array(x.shape, np.int32), f, dy)
    if x.shape[3] < fast_conv.FEW_CHANNELS:
        assert dx is None  # the numpy kernel is faster there
    else:
        np.testing.assert_allclose(dx, want, rtol=1e-5, atol=1e-5)
    dw = fast(k, "backprop_filter", x, np.array(f.shape, np.int32), dy)  # a product below FEW_CHANNELS
    want = numpy_path(monkeypatch, nk.conv2d_backprop_filter, k, x, np.array(f.shape, np.int32), dy)
    np.testing.assert_allclose(dw, want, rtol=1e-5, atol=1e-4)


def test_images_in_parts_on_threads_give_the_whole_batchs_values(monkeypatch):
    """Seven images over the cores: parts of unequal sizes, the filter gradient's shares summed."""
    rng = np.random.default_rng(3)
    attrs = {"strides": [1, 2, 1, 1], "dilations": [1, 1, 1, 1], "padding": "SAME", "data_format": "NHWC"}
    x = rng.uniform(-1, 1, (7, 9, 8, 16)).astype(np.float32)
    f = rng.uniform(-1, 1, (3, 3, 16, 8)).astype(np.float32)
    dy = rng.uniform(-1, 1, (7, 5, 8, 8)).astype(np.float32)
    k = Context(attrs, threads=True)
    plain = Context(attrs)
    sizes = np.array(x.shape, np.int32)
    np.testing.assert_allclose(fast(k, "conv2d", x, f), numpy_path(monkeypatch, nk.conv2d, plain, x, f),
                               rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(fast(k, "backprop_input", sizes, f, dy),
                               numpy_path(monkeypatch, nk.conv2d_backprop_input, plain, sizes, f, dy),
                               rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(fast(k, "backprop_filter", x, np.array(f.shape), dy),
                               numpy_path(monkeypatch, nk.conv2d_backprop_filter, plain, x, np.array(f.shape), dy),
                               rtol=1e-5, atol=1e-4)


def test_few_channel_filter_gradients_in_parts_on_threads_give_the_numpy_values(monkeypatch):
    """An RGB image's filter gradient is a product of im2col by dy: over parts of the images (their
    shares summed), strided and dilated windows, VALID rows no window reaches."""
    rng = np.random.default_rng(4)
    for stride, dilation, padding in [(1, 1, "SAME"), (2, 1, "VALID"), (1, 2, "SAME"), (3, 1, "SAME")]:
        attrs = {"strides": [1, stride, stride, 1], "dilations": [1, dilation, dilation, 1], "padding": padding,
                 "data_format": "NHWC"}
        x = rng.uniform(-1, 1, (5, 11, 10, 3)).astype(np.float32)
        shape = np.array([3, 2, 3, 6], np.int32)
        win = nk.Windows(Context(attrs), x.shape, (3, 2))
        dy = rng.uniform(-1, 1, (5, win.oh, win.ow, 6)).astype(np.float32)
        got = fast(Context(attrs, threads=True), "backprop_filter", x, shape, dy)
        want = numpy_path(monkeypatch, nk.conv2d_backprop_filter, Context(attrs), x, shape, dy)
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-4)


class Whole(Context):
    """A context whose ``parts`` runs the whole range in one call where ``few`` asks for it, as
    ``parallel.ranges`` does while a program's lanes hold every worker."""

    def __init__(self, attrs):
        super().__init__(attrs)
        self.parts = lambda fn, count, blas=True, few=False: fn(0, count) if few else Context._parts(fn, count)


@pytest.mark.parametrize("channels", [3, 16])
def test_the_values_do_not_depend_on_whether_the_parts_run_as_one(channels):
    """A program's lanes and its one-thread run (a pool taken) give the same bits: the images'
    outputs are each their own, and the filter gradient sums the same parts in the same order."""
    attrs = {"strides": [1, 1, 1, 1], "dilations": [1, 1, 1, 1], "padding": "SAME", "data_format": "NHWC"}
    rng = np.random.default_rng(7)
    x = rng.uniform(-1, 1, (6, 8, 8, channels)).astype(np.float32)
    f = rng.uniform(-1, 1, (3, 3, channels, 16)).astype(np.float32)
    dy = rng.uniform(-1, 1, (6, 8, 8, 16)).astype(np.float32)
    sizes, shape = np.array(x.shape, np.int32), np.array(f.shape, np.int32)
    for k in (Whole(attrs), Context(attrs, threads=True)):
        got = [fast(k, "conv2d", x, f), fast(k, "backprop_filter", x, shape, dy)]
        if channels >= fast_conv.FEW_CHANNELS:
            got.append(fast(k, "backprop_input", sizes, f, dy))
        if isinstance(k, Whole):
            want = got
    for a, b in zip(got, want):
        np.testing.assert_array_equal(a, b)


def test_threads_running_one_kernel_at_once_each_get_a_model(monkeypatch):
    """OpenVINO runs one inference of a compiled model at a time: two threads running the same
    kernel at once (two parts of the images, two towers of a model) must each hold a model of
    their own, or the second waits for the first. Each run here waits inside the model until the
    other run has started too; with one model between them they would never both start."""
    attrs = {"strides": [1, 1, 1, 1], "dilations": [1, 1, 1, 1], "padding": "SAME", "data_format": "NHWC"}
    x = np.random.default_rng(5).uniform(-1, 1, (4, 6, 6, 16)).astype(np.float32)
    f = np.random.default_rng(6).uniform(-1, 1, (3, 3, 16, 4)).astype(np.float32)
    monkeypatch.setattr(fast_conv, "_models", fast_conv.collections.OrderedDict())
    both = threading.Barrier(2, timeout=20)
    real = fast_conv._Runner.__call__

    def meeting(self, *args):
        both.wait()
        return real(self, *args)

    monkeypatch.setattr(fast_conv._Runner, "__call__", meeting)
    results = [None, None]

    def run(i):
        results[i] = fast(Context(attrs), "conv2d", x, f)

    workers = [threading.Thread(target=run, args=(i,)) for i in range(2)]
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    want = numpy_path(monkeypatch, nk.conv2d, Context(attrs), x, f)
    for got in results:
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)
    assert [len(idle) for idle in fast_conv._models.values()] == [2]  # kept for the next two at once


@pytest.mark.parametrize("change", [
    {"data_format": "NCHW"}, {"padding": "EXPLICIT"}, {"strides": [2, 1, 1, 1]}, "float64", "disabled"])
def test_what_it_is_not_given_is_left_to_the_numpy_kernels(change, monkeypatch):
    attrs = {"strides": [1, 1, 1, 1], "dilations": [1, 1, 1, 1], "padding": "SAME", "data_format": "NHWC"}
    x = np.ones((2, 5, 5, 16), np.float32)
    f = np.ones((3, 3, 16, 4), np.float32)
    if change == "float64":
        x, f = x.astype(np.float64), f.astype(np.float64)
    elif change == "disabled":
        monkeypatch.setattr(fast_conv, "ENABLED", False)
    else:
        attrs.update(change)
    k = Context(attrs)
    dy = np.ones((2, 5, 5, 4), x.dtype)
    assert fast(k, "conv2d", x, f) is None
    assert fast(k, "backprop_input", np.array(x.shape), f, dy) is None
    assert fast(k, "backprop_filter", x, np.array(f.shape), dy) is None


def test_the_kernels_use_it_when_it_can_run(monkeypatch):
    """nn_kernels' Conv2D returns OpenVINO's array: the one dispatch point is in use."""
    attrs = {"strides": [1, 1, 1, 1], "dilations": [1, 1, 1, 1], "padding": "SAME", "data_format": "NHWC"}
    x = np.random.default_rng(0).uniform(-1, 1, (2, 6, 6, 16)).astype(np.float32)
    f = np.random.default_rng(1).uniform(-1, 1, (3, 3, 16, 4)).astype(np.float32)
    calls = []
    real = fast_conv._infer

    def counting(*args):
        calls.append(args[0])
        return real(*args)

    monkeypatch.setattr(fast_conv, "_infer", counting)
    y = nk.conv2d(Context(attrs), x, f)
    dy = np.ones_like(y)
    nk.conv2d_backprop_input(Context(attrs), np.array(x.shape), f, dy)
    nk.conv2d_backprop_filter(Context(attrs), x, np.array(f.shape), dy)
    assert calls == ["forward", "input", "filter"]


CHILD = """
import os, sys
import numpy as np
from devlab.ops import fast_conv, nn_kernels as nk

class K:
    xp, out = np, None
    attrs = {"strides": [1, 1, 1, 1], "dilations": [1, 1, 1, 1], "padding": "SAME", "data_format": "NHWC"}

x = np.random.default_rng(0).uniform(-1, 1, (2, 6, 6, 16)).astype(np.float32)
f = np.random.default_rng(1).uniform(-1, 1, (3, 3, 16, 4)).astype(np.float32)
y = nk.conv2d(K, x, f)
assert fast_conv._models, "OpenVINO was not used"
pid = os.fork()
if pid == 0:
    assert fast_conv.conv2d(K, nk.Windows(K, x.shape, (3, 3)), x, f) is None  # numpy's kernels here
    np.testing.assert_allclose(nk.conv2d(K, x, f), y, rtol=1e-5, atol=1e-5)
    sys.exit(7)  # a normal exit: Python's finalisation, which hung while it freed OpenVINO's objects
_, status = os.waitpid(pid, 0)
print(os.waitstatus_to_exitcode(status))
"""


def test_a_forked_child_runs_the_numpy_kernels_and_exits():
    import subprocess
    import sys
    done = subprocess.run([sys.executable, "-c", CHILD], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split()[-1] == "7"
