"""Real-GPU figures (issue 9): run on a machine where CuPy finds a CUDA GPU.

    python benchmarks/bench_gpu.py

- matmul through devlab vs CuPy alone, float32, n = 1024..8192 (TFLOP/s and the ratio);
- a 1,000-op chain of small ops on one GPU (per-op overhead);
- host<->device and device<->device copies through devlab's ``transfer`` vs CuPy's own;
- seed 004's mixed sum on 4 logical GPUs sharing the one card.
Medians of several runs; every GPU timing synchronises the device first.
"""
import statistics
import sys
import time

import numpy as np

import devlab as tf
from devlab.devices import gpu
from devlab.devices.device_set import build_devices
from devlab.devices.transfer import transfer


def timed(fn, sync, repeat=7):
    fn()
    sync()
    out = []
    for _ in range(repeat):
        sync()
        t0 = time.perf_counter()
        fn()
        sync()
        out.append(time.perf_counter() - t0)
    return statistics.median(out)


def main():
    cp = gpu.cupy_module()
    if cp is None:
        print("no CUDA GPU found by CuPy: nothing to measure here")
        return 1
    sync = cp.cuda.Device(0).synchronize
    print(gpu.describe(0))
    print("matmul, float32: devlab session.run (GPU-resident inputs) vs cupy.matmul")
    for n in (1024, 2048, 4096, 8192):
        a = cp.random.standard_normal((n, n), dtype=cp.float32)
        with tf.Graph().as_default():
            x = tf.placeholder(tf.float32, [n, n])
            with tf.device("/gpu:0"):
                v = tf.Variable(tf.zeros([n, n]), name="a")
                y = tf.reduce_sum(tf.matmul(v, v))  # a scalar fetch: the product stays on the GPU
            s = tf.Session(config=tf.ConfigProto(device_count={"GPU": 1}))
            s.run(v.initializer)
            s.load_variable(v, cp.asnumpy(a))
            t_dev = timed(lambda: s.run(y), sync)
        t_cp = timed(lambda: cp.matmul(a, a).sum(), sync)
        flops = 2 * n ** 3
        print(f"  n={n}: devlab {flops / t_dev / 1e12:7.2f} TFLOP/s, cupy {flops / t_cp / 1e12:7.2f} TFLOP/s, "
              f"ratio {t_cp / t_dev:.3f}")
    print("1,000-op chain of small ops on GPU:0 (per-op overhead)")
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [16])
        with tf.device("/gpu:0"):
            h = x
            for _ in range(1000):
                h = h * 1.0001
        s = tf.Session(config=tf.ConfigProto(device_count={"GPU": 1}))
        feed = {x: np.ones(16, np.float32)}
        t = timed(lambda: s.run(h, feed), sync)
        print(f"  {t * 1e3:.2f} ms per run, {t * 1e6 / 1000:.1f} us per op")
    devices = build_devices({"GPU": 2})
    host, g0, g1 = devices[0], devices[1], devices[2]
    print("copies of 256 MiB through devlab's transfer() vs cupy")
    arr = np.ones(64 * 2 ** 20, np.float32)
    on_gpu = cp.asarray(arr)
    nbytes = arr.nbytes
    for label, fn, ref in (("host->device", lambda: transfer(arr, host, g0), lambda: cp.asarray(arr)),
                           ("device->host", lambda: transfer(on_gpu, g0, host), lambda: cp.asnumpy(on_gpu))):
        t, r = timed(fn, sync), timed(ref, sync)
        print(f"  {label}: devlab {nbytes / t / 1e9:.1f} GB/s, cupy {nbytes / r / 1e9:.1f} GB/s")
    if gpu.physical_gpu_count() > 1:
        t = timed(lambda: transfer(on_gpu, g0, g1), sync)
        print(f"  device->device: devlab {nbytes / t / 1e9:.1f} GB/s")
    print("seed 004 mixed sum on 4 logical GPUs sharing card 0")
    tf.config.set_logical_gpus_per_card(4)
    with tf.Graph().as_default():
        parts = []
        for d in ["/device:GPU:2", "/device:GPU:3"]:
            with tf.device(d):
                parts.append(tf.matmul(tf.ones([2048, 2048]), tf.ones([2048, 2048])))
        with tf.device("/cpu:0"):
            total = tf.reduce_sum(tf.add_n(parts))
        s = tf.Session(config=tf.ConfigProto(device_count={"GPU": 4}))
        print(f"  {timed(lambda: s.run(total), sync) * 1e3:.2f} ms per run; value {s.run(total):.0f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
