"""A make_parallel(fn, num_gpus, **kwargs) helper over tf.DeviceSpec: split the inputs, run fn per device, concat.

In the style of the "Effective TensorFlow" multi-GPU recipe: every keyword input is
``tf.split`` into ``num_gpus`` parts, ``fn`` runs once per device under
``tf.device(tf.DeviceSpec(device_type="GPU", device_index=i))`` and
``tf.variable_scope(tf.get_variable_scope(), reuse=i > 0)``, and the outputs are
concatenated; the mean loss is minimized with ``colocate_gradients_with_ops=True``. The CPU
variant uses ``DeviceSpec(device_type="CPU", device_index=i + 1)``.
"""
import numpy as np


def build(tf, device_type="CPU", first_index=1, num_gpus=2):

    def make_parallel(fn, num_gpus, **kwargs):
        in_splits = {}
        for k, v in kwargs.items():
            in_splits[k] = tf.split(v, num_gpus)

        out_split = []
        for i in range(num_gpus):
            with tf.device(tf.DeviceSpec(device_type=device_type, device_index=first_index + i)):
                with tf.variable_scope(tf.get_variable_scope(), reuse=i > 0):
                    out_split.append(fn(**{k: v[i] for k, v in in_splits.items()}))

        return tf.concat(out_split, axis=0)

    def model(x, y):
        w = tf.get_variable("w", shape=[3, 1], initializer=tf.constant_initializer([[0.1], [0.2], [0.3]]))

        f = tf.stack([tf.square(x), x, tf.ones_like(x)], 1)
        yhat = tf.squeeze(tf.matmul(f, w), 1)

        loss = tf.square(yhat - y)
        return loss

    x = tf.placeholder(tf.float32)
    y = tf.placeholder(tf.float32)

    loss = make_parallel(model, num_gpus, x=x, y=y)

    train_op = tf.train.AdamOptimizer(0.1).minimize(tf.reduce_mean(loss), colocate_gradients_with_ops=True)

    xs = np.linspace(-1.0, 1.0, 8).astype(np.float32)
    ys = (5 * xs ** 2 + 3).astype(np.float32)
    with tf.variable_scope("", reuse=True):
        w = tf.get_variable("w")
    return {"train": train_op, "steps": 5, "feed": {x: xs, y: ys}, "fetch": {"loss": loss, "w": w}}


VARIANTS = {
    "cpu": {"kwargs": {"device_type": "CPU", "first_index": 1}, "config": {"device_count": {"CPU": 3}},
            "note": "DeviceSpec(device_type='CPU', device_index=1..2) standing in for the GPUs"},
    "gpu": {"kwargs": {"device_type": "GPU", "first_index": 0}, "config": {"allow_soft_placement": True},
            "record": ["ops", "placed"],
            "note": "the GPU program as written; placed with soft placement on a machine without GPUs"},
}
