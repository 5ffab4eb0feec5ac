"""Graph construction: creating 10,000 ops (issue: well under a second; TensorFlow ~5 s).

    python benchmarks/bench_build.py
    PYTHONPATH=$PWD /path/to/tfvenv/bin/python benchmarks/bench_build.py   # beside TensorFlow

Wall time and CPU time are both shown: on a machine other processes load, the wall time of each
side grows with how often it is preempted, the CPU time only with the work it does.
"""
import os
import statistics
import sys
import time

sys.path.insert(0, __file__.rsplit("/", 1)[0])
from common import tensorflow_v1  # noqa: E402

import devlab  # noqa: E402


def build(tf, n=10_000):
    with tf.Graph().as_default():
        x = tf.constant(1.0)
        for i in range(n // 2):
            with tf.device("/cpu:0" if i % 2 else "/gpu:0"):
                x = tf.cos(tf.sin(x))  # two ops per step


def timed(fn, repeat, warmup):
    """(median wall seconds, median CPU seconds) of ``repeat`` calls after ``warmup`` calls."""
    for _ in range(warmup):
        fn()
    wall, cpu = [], []
    for _ in range(repeat):
        t0, c0 = time.perf_counter(), time.process_time()
        fn()
        wall.append(time.perf_counter() - t0)
        cpu.append(time.process_time() - c0)
    return statistics.median(wall), statistics.median(cpu)


def main():
    print("Building a 10,000-op chain (sin, cos, alternating device scopes); median of 3")
    d = timed(lambda: build(devlab), repeat=3, warmup=1)
    tf = tensorflow_v1()
    t = timed(lambda: build(tf), repeat=1, warmup=0) if tf else None
    print(f"load average (1, 5, 15 min): {' '.join(f'{v:.2f}' for v in os.getloadavg())}")
    print(f"  {'':<28s} {'wall':>10s} {'CPU':>10s}")
    print(f"  {'devlab':<28s} {d[0] * 1e3:7.1f} ms {d[1] * 1e3:7.1f} ms")
    if t:
        print(f"  {'TensorFlow (tf.compat.v1)':<28s} {t[0] * 1e3:7.1f} ms {t[1] * 1e3:7.1f} ms")
        print(f"  TensorFlow / devlab: {t[0] / d[0]:.1f}x wall, {t[1] / d[1]:.1f}x CPU")
    with devlab.Graph().as_default() as g:
        build_into = g
        x = devlab.constant(1.0)
        for i in range(5_000):
            with devlab.device("/cpu:0" if i % 2 else "/gpu:0"):
                x = devlab.cos(devlab.sin(x))
    print(f"  ({build_into.version} ops per graph)")


if __name__ == "__main__":
    main()
