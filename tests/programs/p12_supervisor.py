"""A minimal tf.train.Supervisor training program: managed_session, should_stop, global step, variables on two devices.

The Supervisor adds its own ops when it finalizes the graph (``init``,
``report_uninitialized_variables``, a ``Saver``'s ``save/*`` ops, ``merge_all``), and opens
the session with the program's ``config``. Checkpoints and summaries go to a temporary
``logdir``; the timed saver and summary threads are off (``save_model_secs=0``,
``save_summaries_secs=0``) so three steps are three steps.
"""
import shutil
import tempfile

import numpy as np

import harness


def run(tf, sess_config, devices=('/cpu:1', '/cpu:0')):
    logdir = tempfile.mkdtemp(prefix="supervisor_")
    try:
        with tf.device(devices[0]):
            w = tf.Variable(np.array([[0.5], [-0.5]], dtype=np.float32), name="weights")
        with tf.device(devices[1]):
            b = tf.Variable(0.0, name="bias")
        x = tf.constant(np.array([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]], dtype=np.float32))
        y = tf.constant(np.array([[1.0], [2.0], [3.0]], dtype=np.float32))
        loss = tf.reduce_mean(tf.square(tf.matmul(x, w) + b - y))
        tf.summary.scalar("loss", loss)
        global_step = tf.train.get_or_create_global_step()
        train_op = tf.train.GradientDescentOptimizer(0.01).minimize(loss, global_step=global_step)

        sv = tf.train.Supervisor(logdir=logdir, global_step=global_step,
                                 save_model_secs=0, save_summaries_secs=0)
        with sv.managed_session(config=sess_config) as sess:
            for step in range(3):
                if sv.should_stop():
                    break
                harness.traced_run(tf, sess, train_op)
            values = harness.traced_run(tf, sess, {"loss": loss, "weights": w, "bias": b, "step": global_step})
        return values
    finally:
        shutil.rmtree(logdir, ignore_errors=True)


VARIANTS = {
    "cpu": {"config": {"device_count": {"CPU": 2}}},
}
