"""Exponential moving averages of variables that live on two devices (tf.train.ExponentialMovingAverage.apply).

Written as training scripts use it: variables on ``/cpu:1`` and ``/cpu:2``, a train step,
then ``ema.apply(tf.trainable_variables())`` under ``control_dependencies([train_op])`` and
``ema.average(var)`` / ``variables_to_restore()`` for evaluation. The shadow variables are
colocated with their variables (``loc:@var``); with ``num_updates`` the decay is
``min(decay, (1 + n) / (10 + n))``. A second variant averages a tensor (a loss), whose
zeros slot is not colocated.
"""
import numpy as np


def build(tf, devices=('/cpu:1', '/cpu:2'), what="variables"):
    with tf.device(devices[0]):
        w = tf.Variable(np.array([[1.0, 2.0], [3.0, 4.0]], dtype=np.float32), name="w")
    with tf.device(devices[1]):
        b = tf.Variable(np.array([0.5, -0.5], dtype=np.float32), name="b")
    x = tf.constant(np.array([[1.0, 0.0], [0.5, 1.0], [0.0, 2.0]], dtype=np.float32), name="x")
    loss = tf.reduce_mean(tf.square(tf.matmul(x, w) + b))
    global_step = tf.train.get_or_create_global_step()
    train_op = tf.train.GradientDescentOptimizer(0.05).minimize(loss, global_step=global_step)

    if what == "variables":
        ema = tf.train.ExponentialMovingAverage(decay=0.99, num_updates=global_step)
        with tf.control_dependencies([train_op]):
            train_op = ema.apply(tf.trainable_variables())
        restore = ema.variables_to_restore()
        return {"train": train_op, "steps": 3,
                "fetch": {"w": w, "b": b, "w_avg": ema.average(w), "b_avg": ema.average(b),
                          "step": global_step},
                "extra": {"variables_to_restore": sorted(restore)}}
    if what == "loss":
        ema = tf.train.ExponentialMovingAverage(0.9, name="avg")
        with tf.device(devices[1]):
            maintain = ema.apply([loss])
        with tf.control_dependencies([train_op]):
            train_op = tf.group(maintain)
        return {"train": train_op, "steps": 3, "fetch": {"loss": loss, "loss_avg": ema.average(loss)}}
    raise ValueError(what)


VARIANTS = {
    "variables": {"kwargs": {"what": "variables"}, "config": {"device_count": {"CPU": 3}}},
    "loss": {"kwargs": {"what": "loss"}, "config": {"device_count": {"CPU": 3}}},
    "variables_gpu": {"kwargs": {"what": "variables", "devices": ('/gpu:0', '/gpu:1')}, "execute": False,
                      "note": "GPU-flavoured, built only"},
}
