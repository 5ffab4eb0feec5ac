"""A chief running SyncReplicasOptimizer in one process, as TF's docs show it: the hook fills the
token queue and starts the chief's queue runner; each train op waits for a token.
``run(tf)`` works with TensorFlow's ``tf.compat.v1`` and with devlab."""
import numpy as np


def run(tf, steps=6, replicas=1):
    """What the train op returns each step (the token: the global step the worker computes for),
    and the loss of each step."""
    with tf.Graph().as_default():
        return _train(tf, steps, replicas)


def _train(tf, steps, replicas):
    with tf.device("/cpu:0"):
        w = tf.Variable([2.0, 3.0], name="w")
        x = tf.placeholder(tf.float32, [2], name="x")
        loss = tf.reduce_sum(tf.square(w * x - 1.0))
        global_step = tf.train.get_or_create_global_step()
        opt = tf.train.SyncReplicasOptimizer(tf.train.GradientDescentOptimizer(0.1),
                                             replicas_to_aggregate=replicas, total_num_replicas=replicas)
        train = opt.minimize(loss, global_step=global_step)
    hooks = [opt.make_session_run_hook(is_chief=True), tf.train.StopAtStepHook(last_step=steps)]
    tokens, losses = [], []
    # the chief's queue runner waits in take_grad when training ends: TF (and devlab) give it the
    # grace period, then leave it
    with tf.train.MonitoredTrainingSession(is_chief=True, hooks=hooks, stop_grace_period_secs=1) as sess:
        while not sess.should_stop():
            token, value = sess.run([train, loss], {x: np.array([1.0, 0.5], np.float32)})
            tokens.append(int(token))
            losses.append(float(value))
    return {"tokens": tokens, "first_loss": losses[0], "loss_fell": losses[-1] < losses[0]}
