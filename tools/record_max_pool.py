"""Records what TensorFlow 2.21's MaxPool and MaxPoolGrad give for NaN, infinities, signed zeros,
ties and an input that is the maximum of several windows, as tests/data/tf_max_pool.json (its own
venv; TensorFlow is never a dependency of devlab):

    /path/to/tf-venv/bin/python tools/record_max_pool.py

Each case runs twice, in a child process each: with TF's default oneDNN kernels ("onednn") and
with TF_ENABLE_ONEDNN_OPTS=0, TF's Eigen kernels ("eigen"); the two differ where a window's first
input is NaN, and where a padded window holds nothing above the lowest float.
"""
import json
import os
import subprocess
import sys

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _window(values, shape=(1, 2, 2, 1)):
    return np.array(values, np.float32).reshape(shape)


def cases():
    """name -> (x, ksize, strides, padding, dy)."""
    nan, inf = np.nan, np.inf
    two = ([1, 2, 2, 1], [1, 2, 2, 1], "VALID")
    seven = np.full((1, 1, 1, 1), 7, np.float32)
    out = {
        "nan_first": (_window([nan, 1, 2, 0]), *two, seven),
        "nan_last": (_window([1, 2, 0, nan]), *two, seven),
        "all_nan": (_window([nan] * 4), *two, seven),
        "all_minus_inf": (_window([-inf] * 4), *two, seven),
        "minus_zero_first": (_window([-0.0, 0.0, -1, -2]), *two, seven),
        "zero_first": (_window([0.0, -0.0, -1, -2]), *two, seven),
        "inf_then_nan": (_window([inf, nan, 1, 1]), *two, seven),
    }
    mixed = np.zeros((1, 4, 4, 2), np.float32)
    mixed[0, 0, 1, 0], mixed[0, 1, 1, 0] = nan, 5
    mixed[0, :, :, 1] += np.arange(16).reshape(4, 4)
    mixed[0, 2, 2, 1] = nan
    out["mixed"] = (mixed, *two, np.arange(1, 9, dtype=np.float32).reshape(1, 2, 2, 2))
    shared = np.zeros((1, 5, 5, 1), np.float32)
    shared[0, 2, 2, 0] = 1  # the maximum of all four windows: its gradient is their sum, in some order
    out["four_windows"] = (shared, [1, 3, 3, 1], [1, 2, 2, 1], "VALID",
                           np.array([1e8, 1, -1e8, 1], np.float32).reshape(1, 2, 2, 1))
    rng = np.random.default_rng(29)
    ties = rng.integers(0, 3, (2, 5, 5, 3)).astype(np.float32)
    out["ties_same"] = (ties, [1, 3, 3, 1], [1, 2, 2, 1], "SAME",
                        rng.integers(1, 9, (2, 3, 3, 3)).astype(np.float32))
    for name, value in (("padded_all_nan", nan), ("padded_all_minus_inf", -inf)):
        out[name] = (np.full((1, 3, 3, 1), value, np.float32), [1, 3, 3, 1], [1, 2, 2, 1], "SAME",
                     np.arange(1, 5, dtype=np.float32).reshape(1, 2, 2, 1))
    return out


def run_here():
    """Every case under this process's TensorFlow settings: name -> {y, dx} as nested lists."""
    import tensorflow.compat.v1 as tf
    tf.disable_eager_execution()
    got = {}
    for name, (x, ksize, strides, padding, dy) in cases().items():
        with tf.Graph().as_default(), tf.Session() as sess:
            xi = tf.placeholder(tf.float32, x.shape)
            y = tf.nn.max_pool(xi, ksize, strides, padding)
            dx = tf.raw_ops.MaxPoolGrad(orig_input=xi, orig_output=y, grad=dy, ksize=ksize, strides=strides,
                                        padding=padding)
            yv, dxv = sess.run([y, dx], {xi: x})
        got[name] = {"y": yv.tolist(), "dx": dxv.tolist()}
    return tf.__version__, got


def main():
    if len(sys.argv) > 1 and sys.argv[1] == "--child":
        print(json.dumps(run_here()))
        return
    out = {"cases": {name: {"x": c[0].tolist(), "ksize": c[1], "strides": c[2], "padding": c[3], "dy": c[4].tolist()}
                     for name, c in cases().items()}}
    for label, onednn in (("onednn", "1"), ("eigen", "0")):
        env = dict(os.environ, TF_ENABLE_ONEDNN_OPTS=onednn, TF_CPP_MIN_LOG_LEVEL="3")
        text = subprocess.run([sys.executable, __file__, "--child"], env=env, capture_output=True, text=True,
                              check=True).stdout
        version, out[label] = json.loads(text.strip().splitlines()[-1])
        out["tensorflow"] = version
    with open(os.path.join(ROOT, "tests", "data", "tf_max_pool.json"), "w") as f:
        json.dump(out, f, indent=1, sort_keys=True)
    print(f"recorded {len(out['cases'])} cases")


if __name__ == "__main__":
    main()
