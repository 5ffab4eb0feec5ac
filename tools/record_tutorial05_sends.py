"""Records, with TensorFlow, how many tensors tutorial 5's model sends between its two devices
with and without ``colocate_gradients_with_ops`` (TF on CPUs: two CPU devices stand for the two
GPUs; the sends of a partitioned graph are the copies). Writes tests/data/tutorial05_sends.json.

    /work/tfvenv/bin/python tools/record_tutorial05_sends.py
"""
import json
import os

import numpy as np
import tensorflow.compat.v1 as tf

tf.disable_eager_execution()
OUT = os.path.join(os.path.dirname(__file__), "..", "tests", "data", "tutorial05_sends.json")


def sends(colocate):
    with tf.Graph().as_default():
        with tf.device("/cpu:0"):
            w = tf.Variable(np.ones((4, 4), np.float32), name="w")
            h = tf.nn.relu(tf.matmul(tf.ones([2, 4]), w))
        with tf.device("/cpu:1"):
            loss = tf.reduce_sum(tf.square(tf.tanh(tf.sigmoid(h))))
        grad = tf.gradients(loss, w, colocate_gradients_with_ops=colocate)
        sess = tf.Session(config=tf.ConfigProto(device_count={"CPU": 2}))
        sess.run(tf.global_variables_initializer())
        meta = tf.RunMetadata()
        sess.run(grad, options=tf.RunOptions(output_partition_graphs=True), run_metadata=meta)
        return sorted(n.input[0] for g in meta.partition_graphs for n in g.node if n.op == "_Send")


if __name__ == "__main__":
    with open(OUT, "w") as f:
        json.dump({"tensorflow": tf.__version__, "without_colocation": sends(False),
                   "with_colocation": sends(True)}, f, indent=1)
