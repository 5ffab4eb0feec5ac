"""Helpers for the benchmark scripts: median timing, the machine, an optional TensorFlow import."""
import os
import platform
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


def describe_machine(tf=None):
    """One line: CPU, cores, Python, numpy (and TensorFlow when it is compared)."""
    import numpy as np
    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo") as f:
            cpu = next(line.split(":", 1)[1].strip() for line in f if line.startswith("model name"))
    except (OSError, StopIteration):
        pass
    extra = f", TensorFlow {tf.__version__}" if tf is not None else ", TensorFlow not installed"
    return (f"machine: {cpu}, {os.cpu_count()} cores, Python {platform.python_version()}, "
            f"numpy {np.__version__}{extra}")


def row(label, seconds, reference=None, ref_name="numpy"):
    ratio = f"  ({seconds / reference:.2f}x {ref_name})" if reference else ""
    print(f"  {label:<44s} {seconds * 1e3:10.3f} ms{ratio}")
