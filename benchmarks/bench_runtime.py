"""Runtime overhead: build, first run and steady run of 1k- and 10k-op chains alternating two
devices, and large-array adds, beside raw numpy (and TensorFlow when it is installed).

    python benchmarks/bench_runtime.py
"""
import sys
import time

import numpy as np

sys.path.insert(0, __file__.rsplit("/", 1)[0])
from common import median_seconds, row, tensorflow_v1  # noqa: E402

import devlab  # noqa: E402


def chain(tf, n, devices):
    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.float32, [16])
        y = x
        for i in range(n):
            with tf.device(devices[i % 2]):
                y = y * 1.0001
    return g, x, y


def measure_chain(tf, n, devices, config):
    t0 = time.perf_counter()
    g, x, y = chain(tf, n, devices)
    build = time.perf_counter() - t0
    sess = tf.Session(graph=g, config=config)
    feed = {x: np.ones(16, np.float32)}
    t0 = time.perf_counter()
    sess.run(y, feed)
    first = time.perf_counter() - t0
    steady = median_seconds(lambda: sess.run(y, feed), repeat=5)
    return build, first, steady


def numpy_chain(n):
    v = np.ones(16, np.float32)
    for _ in range(n):
        v = v * np.float32(1.0001)
    return v


def main():
    tf = tensorflow_v1()
    for n in (1_000, 10_000):
        print(f"{n}-op chain, alternating two devices (16 floats; one transfer per op)")
        ref = median_seconds(lambda: numpy_chain(n), repeat=5)
        row("numpy, the same multiplies", ref)
        for label, devices, count in (("devlab CPU:0/CPU:1", ["/cpu:0", "/cpu:1"], {"CPU": 2, "GPU": 0}),
                                      ("devlab GPU:0/GPU:1 (simulated)", ["/gpu:0", "/gpu:1"], {"GPU": 2})):
            b, f, s = measure_chain(devlab, n, devices, devlab.ConfigProto(device_count=count))
            row(f"{label}: build", b)
            row(f"{label}: first run (place + plan + run)", f)
            row(f"{label}: steady run", s, ref)
        if tf is not None:
            b, f, s = measure_chain(tf, n, ["/cpu:0", "/cpu:1"], tf.ConfigProto(device_count={"CPU": 2}))
            row("TensorFlow CPU:0/CPU:1: build", b)
            row("TensorFlow CPU:0/CPU:1: first run", f)
            row("TensorFlow CPU:0/CPU:1: steady run", s, ref)
    print("Large-array add (4096 x 4096 float32), CPU")
    a = np.ones((4096, 4096), np.float32)
    ref = median_seconds(lambda: a + a, repeat=5)
    row("numpy a + a", ref)
    with devlab.Graph().as_default():
        x = devlab.placeholder(devlab.float32, a.shape)
        y = x + x
        sess = devlab.Session()
        row("devlab x + x (feed, run, fetch)", median_seconds(lambda: sess.run(y, {x: a}), repeat=5), ref)
    if tf is not None:
        with tf.Graph().as_default():
            x = tf.placeholder(tf.float32, a.shape)
            y = x + x
            sess = tf.Session()
            row("TensorFlow x + x", median_seconds(lambda: sess.run(y, {x: a}), repeat=5), ref)


if __name__ == "__main__":
    main()
