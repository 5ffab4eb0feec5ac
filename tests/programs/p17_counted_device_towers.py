"""Towers on every device device_lib reports, tf.layers shared through reuse=True without layer names, Adam on the summed loss with colocated gradients.

In the style of golbin's multi-GPU MNIST programs (public), written for devlab; no code copied.
Patterns: ``device_lib.list_local_devices()`` counted by ``device_type`` to choose the number
of towers; the batch ``tf.split`` over them; one tower per device through
``tf.device(tf.DeviceSpec(device_type=..., device_index=i))``; the model's blocks in
``variable_scope('block%d', reuse=i > 0)`` calling ``tf.layers.conv2d``/``max_pooling2d``/
``dropout``/``flatten``/``dense`` with ``reuse=`` and *no* ``name`` (so the second tower's
layers must find the first tower's variables by their default names); the towers' losses
``add_n``-ed and minimised by ``AdamOptimizer(colocate_gradients_with_ops=True)``; accuracy
from the concatenated logits. The first device counted (``CPU:0``) keeps the inputs and the
optimizer; the others stand in for GPUs. Dropout is fed off and the weights come from a
deterministic scope initializer, so values are compared.
"""
import numpy as np

import harness

batch, side, classes = 4, 6, 3


def device_lib_of(tf):
    if tf.__name__.startswith('devlab'):
        from devlab.runtime import device_lib
    else:
        from tensorflow.python.client import device_lib
    return device_lib


def run(tf, sess_config, device_type='CPU', spare=1):
    local = device_lib_of(tf).list_local_devices(sess_config)
    indices = [int(d.name.rsplit(':', 1)[1]) for d in local if d.device_type == device_type][spare:]

    def deterministic(shape, dtype=None, partition_info=None):
        n = int(np.prod(shape))
        return tf.constant(0.25 * np.cos(np.arange(n) * 0.9).reshape(shape).astype(np.float32))

    def model(x, training, reuse):
        with tf.variable_scope('block1', reuse=reuse):
            x = tf.layers.conv2d(x, 4, [3, 3], padding='same', activation=tf.nn.relu, reuse=reuse)
            x = tf.layers.max_pooling2d(x, [2, 2], [2, 2])
            x = tf.layers.dropout(x, 0.3, training=training)
        with tf.variable_scope('block2', reuse=reuse):
            x = tf.layers.flatten(x)
            x = tf.layers.dense(x, 8, activation=tf.nn.relu, reuse=reuse)
            x = tf.layers.dropout(x, 0.5, training=training)
        with tf.variable_scope('head', reuse=reuse):
            return tf.layers.dense(x, classes, reuse=reuse)

    rng = np.random.RandomState(8)
    images = rng.rand(batch, side, side, 1).astype(np.float32)
    labels = np.eye(classes, dtype=np.float32)[rng.randint(0, classes, batch)]

    with tf.variable_scope(tf.get_variable_scope(), initializer=deterministic):
        X = tf.placeholder(tf.float32, [None, side, side, 1], name='X')
        Y = tf.placeholder(tf.float32, [None, classes], name='Y')
        training = tf.placeholder(tf.bool, name='is_training')
        x_parts, y_parts = tf.split(X, len(indices)), tf.split(Y, len(indices))
        losses, outputs = [], []
        for i, index in enumerate(indices):
            with tf.device(tf.DeviceSpec(device_type=device_type, device_index=index)):
                logits = model(x_parts[i], training, reuse=i > 0)
                losses.append(tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits_v2(
                    labels=y_parts[i], logits=logits)))
                outputs.append(logits)
        loss = tf.add_n(losses)
        train_op = tf.train.AdamOptimizer(0.01).minimize(loss, colocate_gradients_with_ops=True)
        correct = tf.equal(tf.argmax(tf.concat(outputs, 0), 1), tf.argmax(Y, 1))
        accuracy = tf.reduce_mean(tf.cast(correct, tf.float32))

    feed = {X: images, Y: labels, training: False}
    with tf.Session(config=sess_config) as sess:
        harness.traced_run(tf, sess, tf.global_variables_initializer())
        for _ in range(3):
            harness.traced_run(tf, sess, train_op, feed)
        values = harness.traced_run(tf, sess, {"loss": loss, "accuracy": accuracy}, feed)
    values["towers"] = len(indices)
    values["variables"] = sorted(v.op.name for v in tf.trainable_variables())
    return values


VARIANTS = {
    "cpu": {"kwargs": {}, "config": {"device_count": {"CPU": 3}},
            "note": "three CPUs counted: towers on CPU:1 and CPU:2, inputs and Adam on CPU:0"},
    "four": {"kwargs": {}, "config": {"device_count": {"CPU": 5}},
             "note": "five CPUs counted: four towers of one image each"},
}
