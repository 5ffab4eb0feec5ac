"""A minimal tf.train.MonitoredTrainingSession program: StopAtStepHook, should_stop loop, variables on two devices.

``MonitoredTrainingSession`` finalizes the graph through a ``Scaffold`` (init op, ready
ops, a ``Saver``) and opens its session with the program's ``config``; the loop runs until
``StopAtStepHook(last_step=3)`` says stop. ``SingularMonitoredSession`` is the same without
the chief machinery. No checkpoint or summary directory is given, so nothing is written.
"""
import numpy as np

import harness


def run(tf, sess_config, kind="mts", devices=('/cpu:1', '/cpu:0')):
    with tf.device(devices[0]):
        w = tf.Variable(np.array([[0.5], [-0.5]], dtype=np.float32), name="weights")
    with tf.device(devices[1]):
        b = tf.Variable(0.0, name="bias")
    x = tf.constant(np.array([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]], dtype=np.float32))
    y = tf.constant(np.array([[1.0], [2.0], [3.0]], dtype=np.float32))
    loss = tf.reduce_mean(tf.square(tf.matmul(x, w) + b - y))
    global_step = tf.train.get_or_create_global_step()
    train_op = tf.train.AdamOptimizer(0.1).minimize(loss, global_step=global_step)

    hooks = [tf.train.StopAtStepHook(last_step=3)]
    if kind == "mts":
        sess = tf.train.MonitoredTrainingSession(hooks=hooks, config=sess_config,
                                                 save_summaries_steps=None, save_summaries_secs=None,
                                                 log_step_count_steps=None)
    else:
        sess = tf.train.SingularMonitoredSession(hooks=hooks, config=sess_config)
    values = None
    with sess as mon_sess:
        while not mon_sess.should_stop():
            _, values = harness.traced_run(tf, mon_sess, [train_op, {"loss": loss, "weights": w, "bias": b,
                                                                    "step": global_step}])
    return values


VARIANTS = {
    "monitored_training_session": {"kwargs": {"kind": "mts"}, "config": {"device_count": {"CPU": 2}}},
    "singular_monitored_session": {"kwargs": {"kind": "singular"}, "config": {"device_count": {"CPU": 2}}},
}
