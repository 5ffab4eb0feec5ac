"""Two towers fed by a queue-based input pipeline: examples sliced from in-memory arrays, batched by queue runners, then either split over the towers or prefetched into a queue each tower dequeues from.

In the style of the estimator-free multi-GPU training scripts of the TF 1.x era (cifar10's
``multi_gpu_train`` and the scripts built on it; public), written for devlab; no code copied.
Patterns: the input pipeline pinned to ``/cpu:0`` in ``name_scope('input')``:
``slice_input_producer`` over an image and a label array (an index queue and ``gather``),
per-example preprocessing (scale and shift, ``reshape``), ``tf.train.batch`` (or
``shuffle_batch``) of the whole step's examples; then either ``tf.split`` of that batch into one
slice per tower, or a prefetch ``FIFOQueue`` of whole per-tower batches filled by its own
``QueueRunner`` (``add_queue_runner``), each tower calling ``dequeue()`` under its device;
towers under ``tf.device`` and ``name_scope('tower_%d')`` sharing variables made on ``/cpu:0``
(``variable_scope(get_variable_scope())`` + ``reuse_variables()`` after the first tower);
``compute_gradients`` per tower, averaged on the CPU (``expand_dims``/``concat``/``reduce_mean``),
``apply_gradients`` with the global step; the session loop with ``Coordinator`` and
``start_queue_runners``. Within a step the towers take consecutive batches in either order; the
averaged gradient and the mean loss do not depend on that order, so they are compared.
"""
import numpy as np

import harness

examples, features, classes = 16, 6, 3
per_tower = 2
steps = 3


def run(tf, sess_config, towers=('/cpu:1', '/cpu:2'), feed='split', shuffle=False, shuffle_batch=False):
    rng = np.random.RandomState(27)
    images_np = rng.rand(examples, features).astype(np.float32)
    labels_np = rng.randint(0, classes, examples).astype(np.int32)
    w_init = rng.uniform(-0.5, 0.5, (features, classes)).astype(np.float32)
    n = len(towers)

    with tf.device('/cpu:0'), tf.name_scope('input'):
        image, label = tf.train.slice_input_producer([tf.constant(images_np), tf.constant(labels_np)],
                                                     shuffle=shuffle, seed=7, capacity=8)
        image = tf.reshape(image * 2.0 - 1.0, [features])  # per-example preprocessing
        batch_size = per_tower if feed == 'prefetch' else per_tower * n
        if shuffle_batch:
            images, labels = tf.train.shuffle_batch([image, label], batch_size, capacity=12, min_after_dequeue=4,
                                                    num_threads=1, seed=3)
        else:
            images, labels = tf.train.batch([image, label], batch_size, num_threads=1, capacity=12)
        if feed == 'prefetch':
            prefetch = tf.FIFOQueue(2 * n, [tf.float32, tf.int32], shapes=[[per_tower, features], [per_tower]],
                                    name='prefetch_queue')
            tf.train.add_queue_runner(tf.train.QueueRunner(prefetch, [prefetch.enqueue([images, labels])]))
        else:
            image_slices, label_slices = tf.split(images, n), tf.split(labels, n)

    with tf.device('/cpu:0'):
        global_step = tf.train.get_or_create_global_step()
        opt = tf.train.GradientDescentOptimizer(0.5)

    def tower_loss(x, y):
        with tf.device('/cpu:0'):
            w = tf.get_variable('weights', initializer=w_init)
            b = tf.get_variable('biases', [classes], initializer=tf.zeros_initializer())
        logits = tf.nn.xw_plus_b(x, w, b)
        return tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=logits))

    losses, tower_grads = [], []
    with tf.variable_scope(tf.get_variable_scope()):
        for i, dev in enumerate(towers):
            with tf.device(dev), tf.name_scope('tower_%d' % i):
                if feed == 'prefetch':
                    x, y = prefetch.dequeue()
                else:
                    x, y = image_slices[i], label_slices[i]
                loss = tower_loss(x, y)
                tf.get_variable_scope().reuse_variables()
                losses.append(loss)
                tower_grads.append(opt.compute_gradients(loss))

    with tf.device('/cpu:0'):
        averaged = []
        for pairs in zip(*tower_grads):
            stacked = tf.concat([tf.expand_dims(g, 0) for g, _ in pairs], 0)
            averaged.append((tf.reduce_mean(stacked, 0), pairs[0][1]))
        train_op = opt.apply_gradients(averaged, global_step=global_step)
        mean_loss = tf.reduce_mean(tf.stack(losses), name='mean_loss')

    step_losses = []
    with tf.Session(config=sess_config) as sess:
        harness.traced_run(tf, sess, [tf.global_variables_initializer(), tf.local_variables_initializer()])
        coord = tf.train.Coordinator()
        threads = tf.train.start_queue_runners(sess=sess, coord=coord)
        for _ in range(steps):
            step_loss, _ = harness.traced_run(tf, sess, [mean_loss, train_op])
            step_losses.append(step_loss)
        final = sess.run({v.op.name: v for v in tf.global_variables()})
        coord.request_stop()
        coord.join(threads, stop_grace_period_secs=5)
    final["losses"] = step_losses
    return final


VARIANTS = {
    "split": {"config": {"device_count": {"CPU": 3}},
              "note": "one batch of both towers' examples split with tf.split; towers on /cpu:1, /cpu:2"},
    "prefetch": {"kwargs": {"feed": "prefetch"}, "config": {"device_count": {"CPU": 3}},
                 "note": "per-tower batches prefetched into a FIFOQueue; each tower dequeues under its device"},
    "shuffled_slices": {"kwargs": {"shuffle": True}, "config": {"device_count": {"CPU": 3}},
                        "note": "slice_input_producer(shuffle=True, seed=7): the index queue shuffled by TF's "
                                "RandomShuffle numbers, so the examples come in TF's order"},
    "shuffle_batch": {"kwargs": {"shuffle_batch": True}, "config": {"device_count": {"CPU": 3}},
                      "record": ["ops", "placed", "log"],
                      "note": "shuffle_batch's RandomShuffleQueue draws in its own order: graph and placement only"},
    "prefetch_gpu_soft": {"kwargs": {"feed": "prefetch", "towers": ('/gpu:0', '/gpu:1')},
                          "config": {"allow_soft_placement": True}, "record": ["ops", "placed"],
                          "note": "the GPU program soft-placed on a machine without GPUs"},
}
