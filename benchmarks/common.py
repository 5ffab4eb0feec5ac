"""Helpers for the benchmark scripts: median timing and an optional TensorFlow import."""
import statistics
import time


def median_seconds(fn, repeat=5, warmup=1):
    for _ in range(warmup):
        fn()
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def tensorflow_v1():
    """``tensorflow.compat.v1`` in graph mode, or None when TensorFlow is not installed."""
    try:
        import tensorflow.compat.v1 as tf
    except ImportError:
        return None
    tf.disable_v2_behavior()
    return tf


def row(label, seconds, reference=None, ref_name="numpy"):
    ratio = f"  ({seconds / reference:.2f}x {ref_name})" if reference else ""
    print(f"  {label:<44s} {seconds * 1e3:10.3f} ms{ratio}")
