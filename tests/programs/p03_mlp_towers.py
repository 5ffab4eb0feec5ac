"""Multi-GPU MLP towers in the cifar10_multi_gpu_train style: xw_plus_b, l2_loss weight decay, clip_by_value, exponential_decay, summaries.

``_variable_on_cpu`` / ``_variable_with_weight_decay`` put every variable on the CPU with a
``tf.device('/cpu:0')`` around ``tf.get_variable``; each tower is
``tf.device(dev)`` + ``tf.name_scope('tower_%d')`` under one
``tf.variable_scope(tf.get_variable_scope())`` with ``reuse_variables()`` after the first;
the tower loss collects the ``losses`` of its own scope; gradients are clipped
(``tf.clip_by_value``), averaged on the CPU and applied with a decayed learning rate
(``tf.train.exponential_decay``, staircase); variables get moving averages; activation,
loss, gradient and variable summaries (``scalar``, ``histogram``, ``nn.zero_fraction``) are
merged with ``tf.summary.merge_all`` and run each step (their bytes are not recorded).
"""
import re

import numpy as np

TOWER_NAME = 'tower'
INPUTS, HIDDEN, CLASSES = 6, 8, 3
BATCH_SIZE = 8
INITIAL_LEARNING_RATE = 0.1
NUM_EPOCHS_PER_DECAY = 2
LEARNING_RATE_DECAY_FACTOR = 0.5
MOVING_AVERAGE_DECAY = 0.9


def build(tf, devices=('/cpu:1', '/cpu:2'), variables_on='/cpu:0'):
    rng = np.random.RandomState(7)

    def _activation_summary(x):
        # Remove 'tower_[0-9]/' from the name in case this is a multi-GPU training
        # session. This helps the clarity of presentation on tensorboard.
        tensor_name = re.sub('%s_[0-9]*/' % TOWER_NAME, '', x.op.name)
        tf.summary.histogram(tensor_name + '/activations', x)
        tf.summary.scalar(tensor_name + '/sparsity', tf.nn.zero_fraction(x))

    def _variable_on_cpu(name, shape, initializer):
        with tf.device(variables_on):  # '/cpu:0' as written; the doctor's tests move them to a GPU
            var = tf.get_variable(name, shape, initializer=initializer, dtype=tf.float32)
        return var

    def _variable_with_weight_decay(name, shape, wd):
        init = tf.constant_initializer(rng.uniform(-0.5, 0.5, size=shape).astype(np.float32))
        var = _variable_on_cpu(name, shape, init)
        if wd is not None:
            weight_decay = tf.multiply(tf.nn.l2_loss(var), wd, name='weight_loss')
            tf.add_to_collection('losses', weight_decay)
        return var

    def inference(x):
        with tf.variable_scope('hidden1') as scope:
            weights = _variable_with_weight_decay('weights', [INPUTS, HIDDEN], wd=0.004)
            biases = _variable_on_cpu('biases', [HIDDEN], tf.constant_initializer(0.1))
            hidden1 = tf.nn.relu(tf.nn.xw_plus_b(x, weights, biases), name=scope.name)
            _activation_summary(hidden1)
        with tf.variable_scope('softmax_linear') as scope:
            weights = _variable_with_weight_decay('weights', [HIDDEN, CLASSES], wd=None)
            biases = _variable_on_cpu('biases', [CLASSES], tf.constant_initializer(0.0))
            softmax_linear = tf.nn.xw_plus_b(hidden1, weights, biases, name=scope.name)
            _activation_summary(softmax_linear)
        return softmax_linear

    def loss(logits, labels):
        labels = tf.cast(labels, tf.int64)
        cross_entropy = tf.nn.sparse_softmax_cross_entropy_with_logits(
            labels=labels, logits=logits, name='cross_entropy_per_example')
        cross_entropy_mean = tf.reduce_mean(cross_entropy, name='cross_entropy')
        tf.add_to_collection('losses', cross_entropy_mean)
        return tf.add_n(tf.get_collection('losses'), name='total_loss')

    def tower_loss(scope, images, labels):
        logits = inference(images)
        _ = loss(logits, labels)
        losses = tf.get_collection('losses', scope)
        total_loss = tf.add_n(losses, name='total_loss')
        for l in losses + [total_loss]:
            loss_name = re.sub('%s_[0-9]*/' % TOWER_NAME, '', l.op.name)
            tf.summary.scalar(loss_name, l)
        return total_loss

    def average_gradients(tower_grads):
        average_grads = []
        for grad_and_vars in zip(*tower_grads):
            grads = [tf.expand_dims(g, 0) for g, _ in grad_and_vars]
            grad = tf.reduce_mean(tf.concat(axis=0, values=grads), 0)
            average_grads.append((grad, grad_and_vars[0][1]))
        return average_grads

    with tf.device('/cpu:0'):
        global_step = tf.train.get_or_create_global_step()
        decay_steps = int(NUM_EPOCHS_PER_DECAY)
        lr = tf.train.exponential_decay(INITIAL_LEARNING_RATE, global_step, decay_steps,
                                        LEARNING_RATE_DECAY_FACTOR, staircase=True)
        opt = tf.train.GradientDescentOptimizer(lr)

        images = tf.placeholder(tf.float32, [BATCH_SIZE, INPUTS], name='images')
        labels = tf.placeholder(tf.int32, [BATCH_SIZE], name='labels')
        image_batches = tf.split(images, len(devices))
        label_batches = tf.split(labels, len(devices))

        tower_grads = []
        with tf.variable_scope(tf.get_variable_scope()):
            for i, dev in enumerate(devices):
                with tf.device(dev):
                    with tf.name_scope('%s_%d' % (TOWER_NAME, i)) as scope:
                        loss_i = tower_loss(scope, image_batches[i], label_batches[i])
                        if i == 0:
                            first_loss = loss_i
                        # Reuse variables for the next tower.
                        tf.get_variable_scope().reuse_variables()
                        grads = opt.compute_gradients(loss_i)
                        grads = [(tf.clip_by_value(g, -1.0, 1.0), v) for g, v in grads]
                        tower_grads.append(grads)

        grads = average_gradients(tower_grads)
        tf.summary.scalar('learning_rate', lr)
        for grad, var in grads:
            if grad is not None:
                tf.summary.histogram(var.op.name + '/gradients', grad)
        apply_gradient_op = opt.apply_gradients(grads, global_step=global_step)
        for var in tf.trainable_variables():
            tf.summary.histogram(var.op.name, var)

        variable_averages = tf.train.ExponentialMovingAverage(MOVING_AVERAGE_DECAY, global_step)
        variables_averages_op = variable_averages.apply(tf.trainable_variables())
        train_op = tf.group(apply_gradient_op, variables_averages_op)
        summary_op = tf.summary.merge_all()

    r = np.random.RandomState(3)
    feed = {images: r.rand(BATCH_SIZE, INPUTS).astype(np.float32),
            labels: r.randint(0, CLASSES, BATCH_SIZE).astype(np.int32)}
    fetch = {"loss_tower_0": first_loss, "global_step": global_step, "learning_rate": lr,
             "softmax_linear/biases": tf.trainable_variables()[-1],
             "hidden1/biases/ExponentialMovingAverage": variable_averages.average(tf.trainable_variables()[1])}
    return {"train": train_op, "steps": 3, "feed": feed, "run_only": [summary_op], "fetch": fetch}


VARIANTS = {
    "cpu": {"config": {"device_count": {"CPU": 3}},
            "note": "towers on /cpu:1 and /cpu:2 standing in for GPUs"},
    "gpu": {"kwargs": {"devices": ('/gpu:0', '/gpu:1')}, "config": {"allow_soft_placement": True},
            "record": ["ops", "placed"],
            "note": "the GPU program as written; placed with soft placement on a machine without GPUs"},
}
