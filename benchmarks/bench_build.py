"""Graph construction: creating 10,000 ops (issue: well under a second; TensorFlow ~5 s).

    python benchmarks/bench_build.py
"""
import sys

sys.path.insert(0, __file__.rsplit("/", 1)[0])
from common import median_seconds, row, tensorflow_v1  # noqa: E402

import devlab  # noqa: E402


def build(tf, n=10_000):
    with tf.Graph().as_default():
        x = tf.constant(1.0)
        for i in range(n // 2):
            with tf.device("/cpu:0" if i % 2 else "/gpu:0"):
                x = tf.cos(tf.sin(x))  # two ops per step


def main():
    print("Building a 10,000-op chain (sin, cos, alternating device scopes); median of 3")
    d = median_seconds(lambda: build(devlab), repeat=3)
    tf = tensorflow_v1()
    t = median_seconds(lambda: build(tf), repeat=1, warmup=0) if tf else None
    row("devlab", d)
    if t:
        row("TensorFlow (tf.compat.v1)", t)
        print(f"  devlab / TensorFlow = {d / t:.3f}")
    with devlab.Graph().as_default() as g:
        build_into = g
        x = devlab.constant(1.0)
        for i in range(5_000):
            with devlab.device("/cpu:0" if i % 2 else "/gpu:0"):
                x = devlab.cos(devlab.sin(x))
    print(f"  ({build_into.version} ops per graph)")


if __name__ == "__main__":
    main()
