"""Records what TensorFlow 2.21 computes for Relu, ReluGrad and a bias add then Relu on the values
where formulas differ (NaN, infinities, signed zeros, the largest floats), as float32 bit patterns:

    /path/to/tf-venv/bin/python tools/record_relu.py tests/data/tf_relu.json

tests/test_relu_kernels.py tiles these values into arrays large enough for every path of
``devlab/ops/relu_kernels.py`` and compares bit for bit. TensorFlow runs with its defaults (oneDNN
on, as a learner's install has it). Subnormal inputs are left out: TF's kernels flush them to zero,
numpy's (devlab's reference) keep them.
"""
import json
import sys

import numpy as np
import tensorflow as tf

SPECIALS = [np.nan, np.inf, -np.inf, 0.0, -0.0, 1.0, -1.0, 0.5, -2.5, 3.4e38, -3.4e38]


def bits(a):
    return [int(b) for b in np.asarray(a, np.float32).reshape(-1).view(np.uint32)]


def main(out_path):
    v1 = tf.compat.v1
    v1.disable_eager_execution()
    s = np.array(SPECIALS, np.float32)
    dy, x = np.meshgrid(s, s, indexing="ij")  # every gradient (row) against every input (column)
    with tf.Graph().as_default():
        xs, dys, bias = v1.placeholder(tf.float32), v1.placeholder(tf.float32), v1.placeholder(tf.float32)
        relu = tf.nn.relu(xs)
        grad = tf.raw_ops.ReluGrad(gradients=dys, features=xs)
        add_relu = tf.nn.relu(xs + bias)  # AddV2 then Relu
        bias_add_relu = tf.nn.relu(tf.nn.bias_add(xs, bias))
        with v1.Session() as sess:
            r = sess.run(relu, {xs: s})
            g = sess.run(grad, {dys: dy, xs: x})
            a, b = sess.run([add_relu, bias_add_relu], {xs: dy, bias: s})  # row i: s[i] + the bias s
    out = {"_meta": {"tensorflow": tf.__version__}, "values": bits(s), "relu": bits(r),
           "relu_grad": bits(g), "add_relu": bits(a), "bias_add_relu": bits(b)}
    with open(out_path, "w") as f:
        json.dump(out, f, indent=1)
    print("recorded", out_path)


if __name__ == "__main__":
    main(sys.argv[1])
