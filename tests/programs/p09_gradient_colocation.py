"""Gradient colocation: tf.gradients(colocate_gradients_with_ops=True) over two devices, AddN aggregation, minimize(colocate...).

A two-layer model whose first layer is on ``/cpu:1`` and second on ``/cpu:2``; the hidden
tensor feeds several consumers (the next matmul, an L2 penalty and a skip connection), so
its gradients arrive from several ops on several devices and are aggregated with ``AddN``
(``_MultiDeviceAddN``: per device, each colocated with the *first* gradient). The
variables sit on ``/cpu:0``. Variants: ``tf.gradients`` with and without colocation, and
``Optimizer.minimize(colocate_gradients_with_ops=True)`` with momentum.
"""
import numpy as np


def build(tf, how="gradients", colocate=True, devices=('/cpu:1', '/cpu:2')):
    rng = np.random.RandomState(9)
    with tf.device('/cpu:0'):
        w1 = tf.Variable(rng.uniform(-1, 1, (5, 6)).astype(np.float32), name="w1")
        w2 = tf.Variable(rng.uniform(-1, 1, (6, 6)).astype(np.float32), name="w2")
        x = tf.constant(rng.uniform(0, 1, (4, 5)).astype(np.float32), name="x")

    with tf.device(devices[0]):
        h = tf.nn.relu(tf.matmul(x, w1), name="h")
        penalty = 0.01 * tf.reduce_sum(tf.square(h))
    with tf.device(devices[1]):
        out = tf.sigmoid(tf.matmul(h, w2)) + h  # h feeds the matmul and the skip connection
        loss = tf.reduce_mean(tf.square(out - 1.0)) + penalty

    if how == "gradients":
        grads = tf.gradients(loss, [w1, w2, h], colocate_gradients_with_ops=colocate)
        return {"fetch": {"loss": loss, "dw1": grads[0], "dw2": grads[1], "dh": grads[2]}}
    if how == "minimize":
        opt = tf.train.MomentumOptimizer(0.05, momentum=0.9)
        train_op = opt.minimize(loss, colocate_gradients_with_ops=colocate)
        return {"train": train_op, "steps": 3, "fetch": {"loss": loss, "w2": w2}}
    raise ValueError(how)


VARIANTS = {
    "gradients_colocated": {"kwargs": {"how": "gradients", "colocate": True}, "config": {"device_count": {"CPU": 3}}},
    "gradients_default": {"kwargs": {"how": "gradients", "colocate": False}, "config": {"device_count": {"CPU": 3}}},
    "minimize_colocated": {"kwargs": {"how": "minimize", "colocate": True}, "config": {"device_count": {"CPU": 3}}},
    "minimize_colocated_gpu": {"kwargs": {"how": "minimize", "colocate": True, "devices": ('/gpu:0', '/gpu:1')},
                               "execute": False, "note": "GPU-flavoured, built only"},
}
