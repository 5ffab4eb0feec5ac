"""Variable basics one snippet per variant: get_variable, collections, device placement, initialization order, assignment, sharing through variable_scope.

In the style of the TF r1 guide "Variables" (public), written for devlab; no code copied.
Patterns: ``get_variable`` with a shape and default initializer, with a constant initializer,
with a tensor initial value (no shape); ``trainable=False``, ``collections=[LOCAL_VARIABLES]``,
``add_to_collection``/``get_collection`` of a named collection; a variable placed with
``tf.device('/cpu:1')`` and one under ``replica_device_setter`` with a ``ClusterSpec``;
``initialized_value()`` to initialize one variable from another, ``variables_initializer`` on a
subset, ``report_uninitialized_variables``; ``assign``/``assign_add`` and ``read_value`` under
``control_dependencies``; a convolution block with its weights through ``get_variable`` called
twice in ``variable_scope('first')``/``('second')``, then shared with ``reuse=True`` and with
``scope.reuse_variables()``, and the ``ValueError`` of asking again without reuse.
"""
import numpy as np


def conv_block(tf, images, kernel_shape, bias_shape):
    weights = tf.get_variable('weights', kernel_shape, initializer=tf.constant_initializer(0.1))
    biases = tf.get_variable('biases', bias_shape, initializer=tf.constant_initializer(-0.2))
    conv = tf.nn.conv2d(images, weights, strides=[1, 1, 1, 1], padding='SAME')
    return tf.nn.relu(conv + biases)


def image_filter(tf, images):
    with tf.variable_scope('first'):
        hidden = conv_block(tf, images, [3, 3, 1, 2], [2])
    with tf.variable_scope('second'):
        return conv_block(tf, hidden, [3, 3, 2, 2], [2])


def build(tf, snippet='create'):
    if snippet == 'create':
        plain = tf.get_variable('plain', [2, 3], initializer=tf.zeros_initializer())
        ints = tf.get_variable('ints', [3], dtype=tf.int32, initializer=tf.constant_initializer([1, 2, 3]))
        from_tensor = tf.get_variable('from_tensor', initializer=tf.constant([2.5, 3.5]))
        return {"fetch": {"plain": plain, "ints": ints, "from_tensor": from_tensor},
                "extra": {"shape": from_tensor.shape.as_list()}}
    if snippet == 'collections':
        counter = tf.get_variable('counter', [], trainable=False, initializer=tf.zeros_initializer())
        scratch = tf.get_variable('scratch', [2], collections=[tf.GraphKeys.LOCAL_VARIABLES],
                                  initializer=tf.ones_initializer())
        kept = tf.get_variable('kept', [1], initializer=tf.ones_initializer())
        tf.add_to_collection('my_collection', kept)
        names = lambda key: [v.op.name for v in tf.get_collection(key)]  # noqa: E731
        return {"fetch": {"scratch": scratch, "counter": counter},
                "extra": {"global": names(tf.GraphKeys.GLOBAL_VARIABLES),
                          "trainable": names(tf.GraphKeys.TRAINABLE_VARIABLES),
                          "local": names(tf.GraphKeys.LOCAL_VARIABLES), "mine": names('my_collection')}}
    if snippet == 'devices':
        with tf.device('/cpu:1'):
            pinned = tf.get_variable('pinned', [2], initializer=tf.constant_initializer(4.0))
        doubled = pinned * 2.0
        return {"fetch": {"doubled": doubled}}
    if snippet == 'setter':
        cluster = tf.train.ClusterSpec({'ps': ['ps0:2222', 'ps1:2222'], 'worker': ['worker0:2222']})
        with tf.device(tf.train.replica_device_setter(cluster=cluster)):
            a = tf.get_variable('a', [1])
            b = tf.get_variable('b', [1])
            c = tf.get_variable('c', [1])
        return {"extra": {"devices": [a.device, b.device, c.device]}}
    if snippet == 'init_order':
        base = tf.get_variable('base', [3], initializer=tf.constant_initializer([1.0, 2.0, 3.0]))
        derived = tf.get_variable('derived', initializer=base.initialized_value() + 1)
        later = tf.get_variable('later', [1], initializer=tf.constant_initializer(7.0))
        with tf.Session() as sess:
            sess.run(tf.variables_initializer([base, derived]))
            missing = sess.run(tf.report_uninitialized_variables())
        return {"fetch": {"derived": derived, "later": later}, "extra": {"missing": missing}}
    if snippet == 'assign':
        v = tf.get_variable('v', [], initializer=tf.constant_initializer(1.0))
        bumped = v.assign_add(2.0)
        with tf.control_dependencies([bumped]):
            after = v.read_value()
        reset = v.assign(v * 10.0)
        return {"train": reset, "steps": 1, "fetch": {"after": after}}
    images = tf.constant(np.linspace(-1, 1, 2 * 4 * 4).reshape(2, 4, 4, 1).astype(np.float32))
    if snippet == 'sharing':
        with tf.variable_scope('filters') as scope:
            one = image_filter(tf, images)
            scope.reuse_variables()
            two = image_filter(tf, images)
        with tf.variable_scope('filters', reuse=True):
            three = image_filter(tf, images)
        return {"fetch": {"one": one, "same": tf.reduce_max(tf.abs(one - two) + tf.abs(one - three))},
                "extra": {"variables": [v.op.name for v in tf.global_variables()]}}
    if snippet == 'no_reuse':
        image_filter(tf, images)
        image_filter(tf, images)  # ValueError: first/weights already exists
        return None
    raise ValueError(snippet)


VARIANTS = {name: {"kwargs": {"snippet": name}, "config": {}} for name in
            ('create', 'collections', 'init_order', 'assign', 'sharing', 'no_reuse')}
VARIANTS["devices"] = {"kwargs": {"snippet": "devices"}, "config": {"device_count": {"CPU": 2}}}
VARIANTS["setter"] = {"kwargs": {"snippet": "setter"}, "execute": False,
                      "note": "replica_device_setter over two ps tasks: built only"}
