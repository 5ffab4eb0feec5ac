"""Graph-and-session basics one snippet per variant: op naming, device strings, ps/worker pinning, replica_device_setter, partial runs, feeds, a second graph.

In the style of the TF r1 guide "Graphs and Sessions" (public), written for devlab; no code
copied. Patterns: automatic unique names (``total``, ``total_1``) and nested ``name_scope``\\ s;
a string device scope with the work split between ``/cpu:0`` and ``/cpu:1``; ``/job:ps`` and
``/job:worker`` pinning (built only: no cluster); ``replica_device_setter`` with a
``ClusterSpec`` of two ps tasks (variables round-robin, ops on the worker); fetching only part
of a graph, a fetch that needs a placeholder fed, a feed that overrides an intermediate tensor;
a second ``tf.Graph()`` whose ops stay out of the default graph. Values are fixed numbers.
"""
import numpy as np


def build(tf, snippet='naming'):
    if snippet == 'naming':
        a = tf.constant(3.0, name='a')
        b = tf.constant(4.0, name='a')  # asks for 'a' again: gets a_1
        total = tf.add(a, b, name='total')
        again = tf.add(total, a, name='total')
        with tf.name_scope('outer'):
            inner_const = tf.constant(1.0, name='one')
            with tf.name_scope('inner'):
                deep = tf.multiply(inner_const, again, name='product')
            with tf.name_scope('inner'):  # a second 'inner' scope becomes inner_1
                deeper = tf.identity(deep, name='product')
        names = [t.op.name for t in (a, b, total, again, inner_const, deep, deeper)]
        return {"fetch": {"deeper": deeper}, "extra": {"names": names}}
    if snippet == 'devices':
        with tf.device('/cpu:0'):
            w = tf.Variable(np.arange(6, dtype=np.float32).reshape(3, 2), name='weights')
            x = tf.constant(np.ones((2, 3), np.float32), name='x')
        with tf.device('/cpu:1'):
            y = tf.matmul(x, w, name='first_layer')
        z = tf.nn.relu(y - 4.0, name='activation')  # no device scope: the placer chooses
        return {"fetch": {"y": y, "z": z}}
    if snippet == 'jobs':
        with tf.device('/job:ps/task:0'):
            w0 = tf.Variable(tf.zeros([4, 2]), name='w0')
        with tf.device('/job:ps/task:1'):
            w1 = tf.Variable(tf.zeros([2, 1]), name='w1')
        with tf.device('/job:worker'):
            inputs = tf.placeholder(tf.float32, [None, 4])
            out = tf.matmul(tf.matmul(inputs, w0), w1)
        return {"fetch": {"out": out}}
    if snippet == 'setter':
        cluster = tf.train.ClusterSpec({'ps': ['ps0:2222', 'ps1:2222'], 'worker': ['w0:2222']})
        with tf.device(tf.train.replica_device_setter(cluster=cluster)):
            v1 = tf.Variable(1.0, name='v1')
            v2 = tf.Variable(2.0, name='v2')
            v3 = tf.Variable(3.0, name='v3')
            s = tf.add_n([v1, v2, v3], name='sum')
        return {"fetch": {"s": s}, "extra": {"devices": [v.device for v in (v1, v2, v3)] + [s.device]}}
    if snippet == 'partial_runs':
        x = tf.placeholder(tf.float32, [3], name='x')
        doubled = tf.multiply(x, 2.0, name='doubled')
        c = tf.constant([1.0, 2.0, 3.0], name='c')
        squared = tf.square(c, name='squared')
        shifted = doubled + squared
        feed = {x: np.array([1.0, -1.0, 0.5], np.float32)}
        with tf.Session() as sess:
            only_const = sess.run(squared)  # needs no feed
            override = sess.run(shifted, {x: feed[x], squared: np.zeros(3, np.float32)})
        return {"fetch": {"shifted": shifted, "doubled": doubled}, "feed": feed,
                "extra": {"only_const": only_const, "override": override}}
    if snippet == 'two_graphs':
        side = tf.Graph()
        with side.as_default():
            tf.constant(5.0, name='side_const')
            tf.Variable(1.0, name='side_var')
        main = tf.constant(6.0, name='main_const')
        return {"fetch": {"main": main},
                "extra": {"side_ops": [op.name for op in side.get_operations()],
                          "side_is_default": tf.get_default_graph() is side,
                          "main_in_default": main.graph is tf.get_default_graph()}}
    raise ValueError(snippet)


VARIANTS = {
    "naming": {"kwargs": {"snippet": "naming"}, "config": {}},
    "devices": {"kwargs": {"snippet": "devices"}, "config": {"device_count": {"CPU": 2}}},
    "jobs": {"kwargs": {"snippet": "jobs"}, "execute": False,
             "note": "/job:ps and /job:worker pins: built only, there is no cluster"},
    "setter": {"kwargs": {"snippet": "setter"}, "execute": False,
               "note": "replica_device_setter over two ps tasks: built only"},
    "partial_runs": {"kwargs": {"snippet": "partial_runs"}, "config": {}},
    "two_graphs": {"kwargs": {"snippet": "two_graphs"}, "config": {}},
}
