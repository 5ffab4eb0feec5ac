"""devlab's convolution and pooling kernels beside TensorFlow's CPU kernels, at the shapes of the
CNN of ``bench_models.py`` (one tower: batch 32, 24x24x3 images, 5x5x64 filters, 3x3/2 pools).

    python benchmarks/bench_conv.py
    PYTHONPATH=$PWD /path/to/tfvenv/bin/python benchmarks/bench_conv.py   # beside TensorFlow

Each kernel is called directly (no graph, no session) on the same arrays; the median of
``--repeat`` calls is shown, and the ratio TF/devlab (above 1: devlab is faster), then the least
CPU time one call took (all the process's threads): on a machine other processes load, wall times
depend on how many threads each side runs, CPU time on the work each does. Where the
``fastconv`` extra (OpenVINO) is installed, the convolutions run through it, and the numpy path's
CPU time is shown beside it (``DEVLAB_FASTCONV=0`` runs the numpy path only).
"""
import argparse
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import describe_machine, median_seconds  # noqa: E402
import time  # noqa: E402

from devlab.devices import parallel  # noqa: E402
from devlab.ops import fast_conv, fast_pool  # noqa: E402
from devlab.ops import nn_kernels as nk  # noqa: E402


class Context:
    """What a kernel sees of its step on a CPU: the array module, the attrs, no output buffer,
    products and image ranges split over the cores (``runtime/steps.py``'s KernelContext)."""

    def __init__(self, attrs):
        self.xp, self.attrs, self.out = np, attrs, None

    def matmul(self, a, b):
        return parallel.matmul(a, b)

    def parts(self, fn, count, blas=True, few=False):
        parallel.ranges(fn, count, blas, few)


def cases(rng):
    """(label, devlab call, TensorFlow raw op name, its keyword arguments) at the model's shapes."""
    f32 = np.float32
    one = [1, 1, 1, 1]
    conv = {"strides": one, "padding": "SAME", "dilations": one, "data_format": "NHWC"}
    pool = {"ksize": [1, 3, 3, 1], "strides": [1, 2, 2, 1], "padding": "SAME", "data_format": "NHWC"}
    x1 = rng.standard_normal((32, 24, 24, 3)).astype(f32)
    w1 = rng.standard_normal((5, 5, 3, 64)).astype(f32)
    x2 = rng.standard_normal((32, 12, 12, 64)).astype(f32)
    w2 = rng.standard_normal((5, 5, 64, 64)).astype(f32)
    dy1 = rng.standard_normal((32, 24, 24, 64)).astype(f32)
    dy2 = rng.standard_normal((32, 12, 12, 64)).astype(f32)
    p1 = rng.standard_normal((32, 24, 24, 64)).astype(f32)
    p1y = nk.max_pool(Context(pool), p1)
    dp1 = rng.standard_normal(p1y.shape).astype(f32)
    p2 = rng.standard_normal((32, 12, 12, 64)).astype(f32)
    p2y = nk.max_pool(Context(pool), p2)
    dp2 = rng.standard_normal(p2y.shape).astype(f32)
    c, p = Context(conv), Context(pool)
    tf_conv = {"strides": one, "padding": "SAME"}
    tf_pool = {"ksize": [1, 3, 3, 1], "strides": [1, 2, 2, 1], "padding": "SAME"}
    shape2 = np.array(x2.shape, np.int32)
    return [
        ("Conv2D 32x24x24x3 * 5x5x3x64", lambda: nk.conv2d(c, x1, w1), "Conv2D",
         dict(input=x1, filter=w1, **tf_conv)),
        ("Conv2D 32x12x12x64 * 5x5x64x64", lambda: nk.conv2d(c, x2, w2), "Conv2D",
         dict(input=x2, filter=w2, **tf_conv)),
        ("Conv2DBackpropFilter 32x24x24x3", lambda: nk.conv2d_backprop_filter(c, x1, np.array(w1.shape), dy1),
         "Conv2DBackpropFilter", dict(input=x1, filter_sizes=np.array(w1.shape, np.int32), out_backprop=dy1, **tf_conv)),
        ("Conv2DBackpropFilter 32x12x12x64", lambda: nk.conv2d_backprop_filter(c, x2, np.array(w2.shape), dy2),
         "Conv2DBackpropFilter", dict(input=x2, filter_sizes=np.array(w2.shape, np.int32), out_backprop=dy2, **tf_conv)),
        ("Conv2DBackpropInput 32x12x12x64", lambda: nk.conv2d_backprop_input(c, shape2, w2, dy2),
         "Conv2DBackpropInput", dict(input_sizes=shape2, filter=w2, out_backprop=dy2, **tf_conv)),
        ("MaxPool 32x24x24x64", lambda: nk.max_pool(p, p1), "MaxPool", dict(input=p1, **tf_pool)),
        ("MaxPool 32x12x12x64", lambda: nk.max_pool(p, p2), "MaxPool", dict(input=p2, **tf_pool)),
        ("MaxPoolGrad 32x24x24x64", lambda: nk.max_pool_grad(p, p1, p1y, dp1), "MaxPoolGrad",
         dict(orig_input=p1, orig_output=p1y, grad=dp1, **tf_pool)),
        ("MaxPoolGrad 32x12x12x64", lambda: nk.max_pool_grad(p, p2, p2y, dp2), "MaxPoolGrad",
         dict(orig_input=p2, orig_output=p2y, grad=dp2, **tf_pool)),
        ("AvgPool 32x24x24x64", lambda: nk.avg_pool(p, p1), "AvgPool", dict(value=p1, **tf_pool)),
        ("AvgPoolGrad 32x24x24x64", lambda: nk.avg_pool_grad(p, np.array(p1.shape, np.int32), dp1), "AvgPoolGrad",
         dict(orig_input_shape=np.array(p1.shape, np.int32), grad=dp1, **tf_pool)),
    ]


def cpu_seconds(fn, repeat):
    """The least CPU time (every thread of the process) one call of ``fn`` took."""
    fn()
    best = float("inf")
    for _ in range(repeat):
        t0 = time.process_time()
        fn()
        best = min(best, time.process_time() - t0)
    return best


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=10)
    ap.add_argument("--no-tf", action="store_true", help="devlab only")
    args = ap.parse_args()
    table = cases(np.random.default_rng(0))
    mine = [median_seconds(fn, repeat=args.repeat, warmup=2) for _, fn, _, _ in table]
    mine_cpu = [cpu_seconds(fn, args.repeat) for _, fn, _, _ in table]
    numpy_cpu = None
    fast = [m for m in (fast_conv, fast_pool) if m.ENABLED]  # numba's pooling: fast_pool.py
    if fast and (fast_conv._openvino() is not None or fast_pool._kernels() is not None):
        for m in fast:
            m.ENABLED = False
        numpy_cpu = [cpu_seconds(fn, args.repeat) for _, fn, _, _ in table]
        for m in fast:
            m.ENABLED = True
    tf = None
    if not args.no_tf:
        try:
            import tensorflow as tf
        except ImportError:
            pass
    theirs = []
    if tf is not None:
        for _, _, name, kwargs in table:
            op = getattr(tf.raw_ops, name)
            tensors = {k: tf.constant(v) if isinstance(v, np.ndarray) else v for k, v in kwargs.items()}
            call = (lambda op, tensors: lambda: op(**tensors).numpy())(op, tensors)
            theirs.append((median_seconds(call, repeat=args.repeat, warmup=2), cpu_seconds(call, args.repeat)))
    print(describe_machine(tf))
    print(f"load average (1, 5, 15 min): {' '.join(f'{v:.2f}' for v in os.getloadavg())}")
    if numpy_cpu:
        print("fastconv extra (OpenVINO) or numba installed: devlab's convolutions or max pooling run through "
              "them; 'numpy' is the numpy path's CPU time")
    for i, (label, _, _, _) in enumerate(table):
        line = f"  {label:<36s} devlab {mine[i] * 1e3:7.2f} ms"
        if theirs:
            wall, cpu = theirs[i]
            line += f"  TF {wall * 1e3:7.2f} ms  TF/devlab {wall / mine[i]:5.2f}x"
            line += f"   CPU: devlab {mine_cpu[i] * 1e3:7.2f} ms  TF {cpu * 1e3:7.2f} ms  TF/devlab {cpu / mine_cpu[i]:5.2f}x"
        else:
            line += f"   CPU {mine_cpu[i] * 1e3:7.2f} ms"
        if numpy_cpu:
            line += f"  numpy {numpy_cpu[i] * 1e3:7.2f} ms  numpy/devlab {numpy_cpu[i] / mine_cpu[i]:5.2f}x"
        print(line)


if __name__ == "__main__":
    main()
