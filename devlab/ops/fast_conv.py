"""Convolutions through OpenVINO's CPU plugin, when the ``fastconv`` extra is installed.

OpenVINO runs convolutions with oneDNN, the library TensorFlow's own CPU kernels call. On the CNN
of ``benchmarks/bench_models.py`` (one thread, CPU time, 32 images) it takes 7.4 ms for 5x5x64
filters on 12x12x64 images forward, 7.3 ms for their input gradient and 8.4 ms for their filter
gradient, and 2.3 ms for 5x5x3x64 filters on 24x24 RGB images; im2col and OpenBLAS take 12.8,
11.5, 14.3 and 3.0 ms, TensorFlow 7.5, 7.5, 8.1 and 2.4 ms (``benchmarks/bench_conv.py``).

Each function is given the kernel's window geometry (``nn_kernels.Windows``) and returns its
result, or None when this path cannot compute it (OpenVINO not installed, ``DEVLAB_FASTCONV=0``,
not float32 host arrays, a data format, padding or shape it is not given) and the numpy kernels
of ``nn_kernels.py`` run instead: they stay the reference.

Each (shape, strides, padding, dilations) gets a small model made once: transposes from TF's
NHWC images and HWIO filters to OpenVINO's NCHW and OIHW, the convolution, a transpose back
(OpenVINO folds the transposes into the reorders its kernels need anyway). The model writes
straight into the result's memory (a copy of 4.7 MB out of OpenVINO's own took 0.6 ms).
OpenVINO is held to one thread; the images go to the cores in parts through ``k.parts``, the
same threads the numpy kernels use, so devlab keeps the one pool of threads.
"""
import collections
import functools
import os
import threading
import weakref

import numpy as np

ENABLED = os.environ.get("DEVLAB_FASTCONV", "1") != "0"  # tests and benchmarks set it to compare both paths
# Below this many input channels numpy's kernels are faster for the gradients (see backprop_input,
# backprop_filter); the forward convolution runs here with any number.
FEW_CHANNELS = 16


@functools.lru_cache(maxsize=None)
def _openvino():
    """(openvino, its opset module, a Core), or None where OpenVINO is not installed."""
    try:
        import openvino
        import openvino.opset13 as opset
    except ImportError:
        return None
    return openvino, opset, openvino.Core()


def _usable(k, win, *arrays):
    """Whether this path runs the kernel: its window geometry ``win`` (``nn_kernels.Windows``) and
    ``arrays`` are of the kinds it is given."""
    if not ENABLED or any(type(a) is not np.ndarray or a.dtype != np.float32 or a.size == 0 for a in arrays):
        return False
    attrs = k.attrs
    if attrs.get("data_format", "NHWC") not in ("NHWC", b"NHWC") \
            or attrs.get("padding") not in ("SAME", "VALID", b"SAME", b"VALID"):
        return False
    strides, dilations = list(attrs["strides"]), list(attrs.get("dilations") or [1, 1, 1, 1])
    if len(strides) != 4 or len(dilations) != 4 or strides[0] != 1 or strides[3] != 1 \
            or dilations[0] != 1 or dilations[3] != 1 or min(strides + dilations) < 1:
        return False  # the numpy kernels say what is wrong
    return win.oh >= 1 and win.ow >= 1 and not _forked and _openvino() is not None


def _conv_args(win):
    """OpenVINO's convolution arguments: strides, padding before and after, dilations."""
    return tuple(tuple(v) for v in ([win.sh, win.sw], [win.top, win.left], [win.bottom, win.right],
                                    [win.dh, win.dw]))


_SETTINGS = {
    "INFERENCE_NUM_THREADS": 1,  # devlab's threads run the parts; OpenVINO's own would compete with them
    "NUM_STREAMS": 1,
    "INFERENCE_PRECISION_HINT": "f32",  # not bfloat16 where the CPU has it: values as the numpy path's
    "EXECUTION_MODE_HINT": "ACCURACY",
    "ENABLE_CPU_PINNING": False,  # other processes share these cores
}


def _compile(kind, first, second, args):
    """The compiled model of one kernel (``kind``) for inputs shaped ``first`` and ``second``."""
    ov, op, core = _openvino()
    strides, before, after, dilations = args[:4] if kind != "product" else (None,) * 4

    def turn(node, order):
        return op.transpose(node, op.constant(np.array(order, np.int64)))

    a, b = op.parameter(first, np.float32), op.parameter(second, np.float32)
    if kind == "product":  # a matrix product
        y = op.matmul(a, b, False, False)
    elif kind == "forward":  # images NHWC, filters HWIO
        y = op.convolution(turn(a, [0, 3, 1, 2]), turn(b, [3, 2, 0, 1]), strides, before, after, dilations)
        y = turn(y, [0, 2, 3, 1])
    elif kind == "input":  # dy NHWC, filters HWIO (as data channels = dy's, then the input's)
        y = op.convolution_backprop_data(turn(a, [0, 3, 1, 2]), turn(b, [3, 2, 0, 1]), strides,
                                         pads_begin=before, pads_end=after, dilations=dilations,
                                         output_padding=list(args[4]))
        y = turn(y, [0, 2, 3, 1])
    else:  # "filter": x NHWC as (C, N, H, W), dy NHWC as filters (O, N, oh, ow): dw as (C, O, kh', kw')
        kh, kw = args[4]
        y = op.convolution(turn(a, [3, 0, 1, 2]), turn(b, [3, 0, 1, 2]), dilations, before, after, strides)
        if tuple(y.get_output_shape(0))[2:] != (kh, kw):  # a stride's last rows reach past the filter
            y = op.slice(y, op.constant(np.array([0, 0], np.int64)), op.constant(np.array([kh, kw], np.int64)),
                         op.constant(np.array([1, 1], np.int64)), op.constant(np.array([2, 3], np.int64)))
        y = turn(y, [2, 3, 0, 1])  # HWIO
    return core.compile_model(ov.Model([y], [a, b]), "CPU", _SETTINGS)


class _Runner:
    """One compiled model and its infer request, with the request's own tensors: a compiled model
    runs one inference at a time (OpenVINO locks its graph), so threads that run the same kernel
    at once (a part of the images each, or the towers of a model side by side) take one each."""

    def __init__(self, compiled):
        self.compiled = compiled
        self.request = compiled.create_infer_request()
        self.own = [self.request.get_input_tensor(0), self.request.get_input_tensor(1),
                    self.request.get_output_tensor()]

    def __call__(self, first, second, out):
        ov = _openvino()[0]
        request = self.request
        request.set_output_tensor(ov.Tensor(out, shared_memory=True))
        try:
            request.infer([first, second], share_inputs=True, share_outputs=True)
        finally:  # hold no reference to the caller's arrays while idle
            request.set_input_tensor(0, self.own[0])
            request.set_input_tensor(1, self.own[1])
            request.set_output_tensor(self.own[2])


MODELS = 128  # kernels (shape and geometry) whose models are kept, the least recently used dropped
_models = collections.OrderedDict()  # key -> [idle _Runner], the most recently used key last
_alive = weakref.WeakSet()  # every _Runner not yet freed, idle or running (see _in_child)
_lock = threading.Lock()
_forked = False


def _infer(kind, first, second, args, out):
    """The kernel's model run on ``first`` and ``second`` into ``out`` (C-contiguous float32 of
    the model's output shape); a model is made on first use, and for each thread running the
    kernel while the others are busy with it (about 40 ms each; 150 ms the very first)."""
    key = (kind, first.shape, second.shape, args)
    with _lock:
        idle = _models.get(key)
        runner = idle.pop() if idle else None
    if runner is None:
        runner = _Runner(_compile(kind, first.shape, second.shape, args))
        with _lock:
            _alive.add(runner)
    try:
        runner(first, second, out)
    finally:
        with _lock:
            _models.setdefault(key, []).append(runner)
            _models.move_to_end(key)
            while len(_models) > MODELS:
                _models.popitem(last=False)


def _in_child():
    """A forked child runs the numpy kernels, and keeps OpenVINO's objects to the end: their
    destructors wait for OpenVINO's threads, which stayed in the parent (a child that freed them
    never exited). Made to live forever by one more reference each, they are never destroyed."""
    global _forked
    _forked = True
    if _openvino.cache_info().currsize:
        import ctypes
        kept = [_openvino()] + [obj for r in list(_alive) for obj in [r, r.compiled, r.request] + r.own]
        for obj in kept:
            ctypes.pythonapi.Py_IncRef(ctypes.py_object(obj))


os.register_at_fork(after_in_child=_in_child)


def _in_parts(k, n, fn, whole=True):
    """``fn(lo, hi)`` over parts of the ``n`` images, one per core, through ``k.parts`` when the
    context offers it: a few equal parts, so that a shape makes at most three models (part sizes,
    and the whole batch). ``whole``: the images' results do not depend on the parts (each image's
    output is its own), and while the lanes of a program hold every other thread one model run
    on the whole batch costs less than the parts in turn. A filter gradient, a sum over the
    images, passes False: its parts stay the same whichever thread runs them, and so its values."""
    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:
        cores = os.cpu_count() or 1
    parts = max(1, min(cores, 8, n))
    parts_of = getattr(k, "parts", None)
    if parts < 2 or parts_of is None:
        fn(0, n)
        return

    def some(first, last):
        if whole:  # consecutive parts, in one run of the model
            fn(n * first // parts, n * last // parts)
        else:
            for i in range(first, last):
                fn(n * i // parts, n * (i + 1) // parts)

    parts_of(some, parts, False, few=whole)


def conv2d(k, win, x, filters):
    """Conv2D of NHWC ``x`` by HWIO ``filters``, or None (see the module's docstring)."""
    kh, kw, cin, cout = filters.shape
    if x.ndim != 4 or x.shape[3] != cin or not _usable(k, win, x, filters):
        return None
    x, filters = np.ascontiguousarray(x), np.ascontiguousarray(filters)
    out = np.empty((win.n, win.oh, win.ow, cout), np.float32)
    args = _conv_args(win)

    def part(lo, hi):
        _infer("forward", x[lo:hi], filters, args, out[lo:hi])

    _in_parts(k, win.n, part)
    return out


def backprop_input(k, win, filters, dy):
    """Conv2DBackpropInput: the gradient of ``conv2d`` by its input, or None. The gradient of an
    RGB image is left to numpy: 32x24x24x3 from 5x5x3x64 filters takes 7.9 ms here, 6.3 ms in
    numpy's channels-first shares (CPU time, one thread)."""
    kh, kw, cin, cout = filters.shape
    if cin < FEW_CHANNELS or win.c != cin or min(win.n, win.h, win.w) < 1 or dy.shape != (win.n, win.oh, win.ow, cout) \
            or not _usable(k, win, filters, dy):
        return None
    # The transposed convolution gives (out - 1) * stride + window reach - padding rows; the input
    # may have up to stride - 1 more that no window reached (VALID), which get zeros: output_padding.
    extra = [win.h - ((win.oh - 1) * win.sh + (kh - 1) * win.dh + 1 - win.top - win.bottom),
             win.w - ((win.ow - 1) * win.sw + (kw - 1) * win.dw + 1 - win.left - win.right)]
    if min(extra) < 0 or extra[0] >= max(win.sh, win.dh) or extra[1] >= max(win.sw, win.dw):
        return None
    filters, dy = np.ascontiguousarray(filters), np.ascontiguousarray(dy)
    args = _conv_args(win) + (tuple(extra),)
    out = np.empty((win.n, win.h, win.w, cin), np.float32)

    def part(lo, hi):
        _infer("input", dy[lo:hi], filters, args, out[lo:hi])

    _in_parts(k, win.n, part)
    return out


def backprop_filter(k, win, x, dy, filter_shape):
    """Conv2DBackpropFilter: the gradient of ``conv2d`` by its filter, or None. It is a convolution
    too: of the images, channels taken as the batch and images as the channels, by ``dy`` as the
    filter (the strides becoming dilations), each part of the images giving its share of the sum.
    With few input channels (an RGB image) that convolution is long and narrow (32x24x24x3 by
    5x5x3x64: 4.4 ms), and a product of im2col by ``dy`` runs instead (``_by_product``)."""
    kh, kw, cin, cout = filter_shape
    if x.ndim != 4 or x.shape[3] != cin or dy.shape != (win.n, win.oh, win.ow, cout) or not _usable(k, win, x, dy):
        return None
    x, dy = np.ascontiguousarray(x), np.ascontiguousarray(dy)
    out = np.empty((kh, kw, cin, cout), np.float32)
    if cin < FEW_CHANNELS:
        return _by_product(k, win, x, dy, out)
    args = _conv_args(win) + ((kh, kw),)
    shares = {}

    def part(lo, hi):
        share = out if lo == 0 else np.empty_like(out)
        _infer("filter", x[lo:hi], dy[lo:hi], args, share)
        shares[lo] = share

    _in_parts(k, win.n, part, whole=False)
    return _summed(out, shares)


IM2COL_BYTES = 64 << 20  # the most im2col that _by_product makes (its parts together)


def _by_product(k, win, x, dy, out):
    """The filter gradient ``out`` (kh, kw, cin, cout) as im2colᵀ (kh * kw * cin, positions) times
    ``dy`` (positions, cout), im2col made channels first (rows of whole image lines, where a
    channels-last copy moves 3 floats at a time) and the product through OpenVINO: oneDNN takes
    1.9 ms on 32x24x24x3 images by 5x5 windows, OpenBLAS 2.6 ms (one thread); 2.2 ms in all with
    the copy, 3.3 ms in numpy's blocks. None where the im2col would pass IM2COL_BYTES."""
    kh, kw, cin, cout = out.shape
    rows, positions = kh * kw * cin, win.oh * win.ow
    if rows * positions * win.n * 4 > IM2COL_BYTES:
        return None
    hp, wp = win.h + win.top + win.bottom, win.w + win.left + win.right
    flat_dy = dy.reshape(-1, cout)
    shares = {}

    def part(lo, hi):
        padded = np.zeros((cin, hi - lo, hp, wp), np.float32)
        padded[:, :, win.top:win.top + win.h, win.left:win.left + win.w] = x[lo:hi].transpose(3, 0, 1, 2)
        sc, sn, sh, sw = padded.strides
        taps = np.lib.stride_tricks.as_strided(  # [i, j, c, n, y, x] = padded[c, n, y*s + i*d, x*s + j*d]
            padded, (kh, kw, cin, hi - lo, win.oh, win.ow),
            (sh * win.dh, sw * win.dw, sc, sn, sh * win.sh, sw * win.sw))
        share = out if lo == 0 else np.empty_like(out)
        _infer("product", taps.reshape(rows, -1), flat_dy[lo * positions:hi * positions], (), share.reshape(rows, cout))
        shares[lo] = share

    _in_parts(k, win.n, part, whole=False)
    return _summed(out, shares)


def _summed(out, shares):
    """``out`` (the first part's share) plus the other parts' ``shares`` (first image -> share),
    added in one order whichever thread ended first."""
    for lo in sorted(shares)[1:]:
        out += shares[lo]
    return out
