"""Model parallelism for RNNs: one LSTM layer per device with tf.nn.rnn_cell.DeviceWrapper, MultiRNNCell and dynamic_rnn.

The GNMT / seq2seq tutorials' way to spread a deep RNN over GPUs: each layer's cell is
wrapped in ``DeviceWrapper(cell, "/gpu:%d" % i)``, the stack is a ``MultiRNNCell`` and
``tf.nn.dynamic_rnn`` unrolls it in a ``while_loop``; the projection and loss stay on the
default device. Weights start from a constant initializer (``variable_scope`` default
initializer), so the values do not depend on TensorFlow's random numbers.
"""
import numpy as np


def build(tf, devices=('/cpu:1', '/cpu:2'), units=4):
    inputs = tf.placeholder(tf.float32, [2, 3, 5], name="inputs")  # batch, time, features
    targets = tf.placeholder(tf.float32, [2, 3, units], name="targets")

    with tf.variable_scope("rnn_model", initializer=tf.constant_initializer(0.1)):
        cells = []
        for i, dev in enumerate(devices):
            cell = tf.nn.rnn_cell.LSTMCell(units, name="lstm_%d" % i)
            cells.append(tf.nn.rnn_cell.DeviceWrapper(cell, dev))
        cell = tf.nn.rnn_cell.MultiRNNCell(cells)
        outputs, state = tf.nn.dynamic_rnn(cell, inputs, dtype=tf.float32)
        loss = tf.reduce_mean(tf.square(outputs - targets))
    train_op = tf.train.GradientDescentOptimizer(0.5).minimize(loss, colocate_gradients_with_ops=True)

    r = np.random.RandomState(4)
    feed = {inputs: r.rand(2, 3, 5).astype(np.float32), targets: r.rand(2, 3, units).astype(np.float32)}
    return {"train": train_op, "steps": 2, "feed": feed, "fetch": {"loss": loss, "outputs": outputs}}


VARIANTS = {
    "cpu": {"config": {"device_count": {"CPU": 3}}, "note": "layers on /cpu:1 and /cpu:2 standing in for GPUs"},
    "gpu": {"kwargs": {"devices": ('/gpu:0', '/gpu:1')}, "config": {"allow_soft_placement": True},
            "record": ["ops", "placed"],
            "note": "the GPU program as written; placed with soft placement on a machine without GPUs"},
}
