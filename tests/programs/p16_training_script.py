"""A two-tower MLP training script as newcomers paste it: leaky_relu/elu layers, towers' gradients averaged and clipped by global norm on the CPU, a piecewise_constant schedule, RMSProp, argmax accuracy.

Variables live on the CPU (``tf.device('/cpu:0')`` around ``tf.get_variable``); each tower is
``tf.device(dev)`` + ``tf.name_scope('tower_%d')`` under one ``tf.variable_scope`` reused after
the first tower. The towers' gradients are averaged and clipped together with
``tf.clip_by_global_norm`` on the CPU, then applied by ``tf.train.RMSPropOptimizer`` with a
``tf.train.piecewise_constant`` learning rate on the global step (its ``rms`` and ``momentum``
slots sit beside each variable). Accuracy is the usual ``argmax``/``equal``/``cast``/``reduce_mean``
per tower, plus ``tf.nn.in_top_k`` for top-2 accuracy; the ``streaming`` variant also keeps
``tf.metrics.accuracy`` over every step's batch.
"""
import numpy as np

INPUTS, HIDDEN, CLASSES = 5, 6, 3
BATCH_SIZE = 8
MAX_GRAD_NORM = 1.0


def build(tf, devices=('/cpu:1', '/cpu:2'), streaming=False):
    rng = np.random.RandomState(5)

    def weight(name, shape):
        init = tf.constant_initializer(rng.uniform(-0.6, 0.6, size=shape).astype(np.float32))
        with tf.device('/cpu:0'):
            return tf.get_variable(name, shape, initializer=init)

    def bias(name, shape):
        with tf.device('/cpu:0'):
            return tf.get_variable(name, shape, initializer=tf.constant_initializer(0.05))

    def model(x):
        with tf.variable_scope('layer1'):
            h = tf.nn.leaky_relu(tf.matmul(x, weight('w', [INPUTS, HIDDEN])) + bias('b', [HIDDEN]), alpha=0.1)
        with tf.variable_scope('layer2'):
            h = tf.nn.elu(tf.matmul(h, weight('w', [HIDDEN, HIDDEN])) + bias('b', [HIDDEN]))
        with tf.variable_scope('logits'):
            return tf.matmul(h, weight('w', [HIDDEN, CLASSES])) + bias('b', [CLASSES])

    def average_gradients(tower_grads):
        average_grads = []
        for grad_and_vars in zip(*tower_grads):
            grads = [tf.expand_dims(g, 0) for g, _ in grad_and_vars]
            grad = tf.reduce_mean(tf.concat(axis=0, values=grads), 0)
            average_grads.append((grad, grad_and_vars[0][1]))
        return average_grads

    with tf.device('/cpu:0'):
        global_step = tf.train.get_or_create_global_step()
        learning_rate = tf.train.piecewise_constant(global_step, [2, 4], [0.05, 0.02, 0.01])
        opt = tf.train.RMSPropOptimizer(learning_rate, decay=0.9, momentum=0.5)

        images = tf.placeholder(tf.float32, [BATCH_SIZE, INPUTS], name='images')
        labels = tf.placeholder(tf.int64, [BATCH_SIZE], name='labels')
        image_batches = tf.split(images, len(devices))
        label_batches = tf.split(labels, len(devices))

        tower_grads, accuracies, losses, predictions = [], [], [], []
        with tf.variable_scope(tf.get_variable_scope()):
            for i, dev in enumerate(devices):
                with tf.device(dev), tf.name_scope('tower_%d' % i):
                    logits = model(image_batches[i])
                    tf.get_variable_scope().reuse_variables()
                    loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(
                        labels=label_batches[i], logits=logits))
                    predictions.append(tf.argmax(logits, 1))
                    correct = tf.equal(predictions[-1], label_batches[i])
                    accuracies.append(tf.reduce_mean(tf.cast(correct, tf.float32)))
                    losses.append(loss)
                    tower_grads.append(opt.compute_gradients(loss))

        grads_and_vars = average_gradients(tower_grads)
        grads, variables = zip(*grads_and_vars)
        clipped, global_norm = tf.clip_by_global_norm(grads, MAX_GRAD_NORM)
        train_op = opt.apply_gradients(zip(clipped, variables), global_step=global_step)
        accuracy = tf.reduce_mean(tf.stack(accuracies), name='accuracy')
        in_top2 = tf.reduce_mean(tf.cast(tf.nn.in_top_k(logits, label_batches[-1], 2), tf.float32))
        if streaming:  # accuracy over every step's batch: local variables, an update op run with training
            streamed, streamed_update = tf.metrics.accuracy(labels=labels, predictions=tf.concat(predictions, 0))
            train_op = tf.group(train_op, streamed_update)

    r = np.random.RandomState(9)
    feed = {images: r.rand(BATCH_SIZE, INPUTS).astype(np.float32),
            labels: r.randint(0, CLASSES, BATCH_SIZE).astype(np.int64)}
    fetch = {"loss_tower_0": losses[0], "accuracy": accuracy, "in_top2_last_tower": in_top2,
             "global_norm": global_norm, "learning_rate": learning_rate, "global_step": global_step,
             "logits/b": tf.trainable_variables()[-1],
             "layer1/w/RMSProp": opt.get_slot(tf.trainable_variables()[0], "rms")}
    if streaming:
        fetch["streamed_accuracy"] = streamed
    return {"train": train_op, "steps": 5, "feed": feed, "fetch": fetch}


VARIANTS = {
    "cpu": {"config": {"device_count": {"CPU": 3}},
            "note": "towers on /cpu:1 and /cpu:2 standing in for GPUs"},
    "one_cpu": {"kwargs": {"devices": ('/cpu:0', '/cpu:0')},
                "note": "both towers on the one CPU"},
    "streaming": {"kwargs": {"streaming": True}, "config": {"device_count": {"CPU": 3}},
                  "note": "tf.metrics.accuracy over the training steps (its update op grouped with the train op)"},
    "gpu": {"kwargs": {"devices": ('/gpu:0', '/gpu:1')}, "config": {"allow_soft_placement": True},
            "record": ["ops", "placed"],
            "note": "the GPU program as written; placed with soft placement on a machine without GPUs"},
}
