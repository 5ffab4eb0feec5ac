"""Train and eval nets that share weights: one model function called under variable_scope('model') and again with reuse.

The eval net must reuse ``model/dense/kernel`` and ``model/dense_1/kernel``: TensorFlow
resets the sub-scope counters when a variable scope is re-entered, so the second call's
``tf.layers.dense`` layers are ``dense`` and ``dense_1`` again (their ops go to the name
scope ``model_1/``). The three styles people write: re-entering with ``reuse=True``,
``reuse=tf.AUTO_REUSE`` for both, and ``scope.reuse_variables()`` inside one scope. The
train net runs on one device and the eval net on another; batch normalization's moving
statistics go through ``UPDATE_OPS`` and ``control_dependencies``.
"""
import numpy as np


def build(tf, style="reuse_true", train_device='/cpu:1', eval_device='/cpu:2'):
    rng = np.random.RandomState(5)

    def fixed(*shape):
        return tf.constant_initializer(rng.uniform(-0.5, 0.5, size=shape).astype(np.float32))

    def model(x, is_training):
        h = tf.layers.dense(x, 8, activation=tf.nn.relu, kernel_initializer=fixed(4, 8))
        h = tf.layers.batch_normalization(h, training=is_training)
        return tf.layers.dense(h, 2, kernel_initializer=fixed(8, 2))

    x_train = tf.placeholder(tf.float32, [None, 4], name='x_train')
    y_train = tf.placeholder(tf.int64, [None], name='y_train')
    x_eval = tf.placeholder(tf.float32, [None, 4], name='x_eval')

    if style == "reuse_true":
        with tf.device(train_device):
            with tf.variable_scope('model'):
                train_logits = model(x_train, is_training=True)
        with tf.device(eval_device):
            with tf.variable_scope('model', reuse=True):
                eval_logits = model(x_eval, is_training=False)
    elif style == "auto_reuse":
        with tf.device(train_device):
            with tf.variable_scope('model', reuse=tf.AUTO_REUSE):
                train_logits = model(x_train, is_training=True)
        with tf.device(eval_device):
            with tf.variable_scope('model', reuse=tf.AUTO_REUSE):
                eval_logits = model(x_eval, is_training=False)
    elif style == "reuse_variables":
        with tf.variable_scope('model') as scope:
            with tf.device(train_device):
                train_logits = model(x_train, is_training=True)
            scope.reuse_variables()
            with tf.device(eval_device):
                eval_logits = model(x_eval, is_training=False)
    else:
        raise ValueError(style)

    with tf.device(train_device):
        loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(
            labels=y_train, logits=train_logits))
        update_ops = tf.get_collection(tf.GraphKeys.UPDATE_OPS)
        with tf.control_dependencies(update_ops):
            train_op = tf.train.GradientDescentOptimizer(0.1).minimize(loss)
    with tf.device(eval_device):
        prediction = tf.argmax(eval_logits, 1)

    r = np.random.RandomState(11)
    feed = {x_train: r.rand(6, 4).astype(np.float32), y_train: r.randint(0, 2, 6),
            x_eval: r.rand(3, 4).astype(np.float32)}
    fetch = {"loss": loss, "eval_logits": eval_logits, "prediction": prediction}
    return {"train": train_op, "steps": 2, "feed": feed, "fetch": fetch}


VARIANTS = {
    "reuse_true": {"kwargs": {"style": "reuse_true"}, "config": {"device_count": {"CPU": 3}}},
    "auto_reuse": {"kwargs": {"style": "auto_reuse"}, "config": {"device_count": {"CPU": 3}}},
    "reuse_variables": {"kwargs": {"style": "reuse_variables"}, "config": {"device_count": {"CPU": 3}},
                        "note": "fails in TensorFlow: without re-entering the scope the counters go on, "
                                "so the eval net asks for model/dense_2/kernel"},
}
