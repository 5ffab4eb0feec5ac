"""Recurrent networks as TF1 programs write them (``tf.nn.rnn_cell``, ``dynamic_rnn``,
``static_rnn``, ``tf.TensorArray``), written once against the TF1 API; each returns its facts:
ops (inputs, control inputs, colocation groups), placements from the partition graphs, values.
The same functions run under TensorFlow 2.21 (tools/record_cases.py rnn writes what it does to
tests/data/tf_rnn.json) and under devlab (tests/test_rnn.py compares)."""
import numpy as np

from control_flow_cases import graph_facts

R = np.random.RandomState(7)
X = R.rand(2, 3, 4).astype(np.float32)  # batch, time, features
Y = R.rand(2, 3, 5).astype(np.float32)


def spread(shape, dtype=None, partition_info=None):
    """A deterministic initial value (TF's random numbers are not devlab's)."""
    import numpy as np
    n = int(np.prod(shape))
    return np.linspace(-0.6, 0.6, n).reshape(shape).astype(np.float32)


def _run(tf, fetch, feed=None, train=None, steps=0, cpus=3, rewrites_off=False, soft=False):
    import re
    config = tf.ConfigProto(device_count={"CPU": cpus}, allow_soft_placement=soft)
    if rewrites_off:
        config.graph_options.rewrite_options.disable_meta_optimizer = True
        config.graph_options.optimizer_options.opt_level = -1
    opts = tf.RunOptions(output_partition_graphs=True)
    md = tf.RunMetadata()
    with tf.Session(config=config) as sess:
        if tf.global_variables():
            sess.run(tf.global_variables_initializer())
        for _ in range(steps):
            sess.run(train, feed, options=opts, run_metadata=md)
        value = sess.run(fetch, feed, options=opts, run_metadata=md)
    placed = {n.name: n.device for pg in md.partition_graphs for n in pg.node if not re.search(r"(^|/)_", n.name)}
    return placed, value


def _values(value):
    if isinstance(value, (list, tuple)):
        return [_values(v) for v in value]
    return np.round(np.asarray(value, dtype=np.float64), 6).tolist()


def _facts(tf, fetch, feed=None, **kw):
    facts = {"ops": graph_facts(tf)}
    placed, value = _run(tf, fetch, feed, **kw)
    facts.update(placed=placed, values=_values(value))
    return facts


def case_basic_lstm_dynamic_rnn_trains(tf, rewrites_off=False):
    x = tf.placeholder(tf.float32, [2, 3, 4], name="x")
    y = tf.placeholder(tf.float32, [2, 3, 5], name="y")
    with tf.variable_scope("model", initializer=spread):
        cell = tf.nn.rnn_cell.BasicLSTMCell(5)
        outputs, state = tf.nn.dynamic_rnn(cell, x, dtype=tf.float32)
    loss = tf.reduce_mean(tf.square(outputs - y))
    train = tf.train.GradientDescentOptimizer(0.5).minimize(loss)
    return _facts(tf, [loss, outputs, state.c, state.h], {x: X, y: Y}, train=train, steps=2,
                  rewrites_off=rewrites_off)


def case_gru_with_sequence_lengths(tf, rewrites_off=False):
    x = tf.placeholder(tf.float32, [2, 3, 4], name="x")
    lengths = tf.placeholder(tf.int32, [2], name="lengths")
    with tf.variable_scope("gru", initializer=spread):
        outputs, state = tf.nn.dynamic_rnn(tf.nn.rnn_cell.GRUCell(3), x, sequence_length=lengths, dtype=tf.float32)
    grads = tf.gradients(tf.reduce_sum(outputs) + tf.reduce_sum(state), tf.trainable_variables())
    return _facts(tf, [outputs, state] + grads, {x: X, lengths: [3, 1]}, rewrites_off=rewrites_off)


def case_lstm_peepholes_projection_clip(tf, rewrites_off=False):
    x = tf.placeholder(tf.float32, [2, 3, 4], name="x")
    cell = tf.nn.rnn_cell.LSTMCell(4, use_peepholes=True, cell_clip=0.5, num_proj=2, proj_clip=0.3,
                                   initializer=spread, forget_bias=0.5)
    outputs, state = tf.nn.dynamic_rnn(cell, x, dtype=tf.float32, time_major=True, scope="peep")
    grads = tf.gradients(tf.reduce_sum(outputs), tf.trainable_variables())
    return _facts(tf, [outputs, state.c, state.h] + grads, {x: X}, rewrites_off=rewrites_off)


def case_static_rnn_basic_cell(tf, rewrites_off=False):
    x = tf.placeholder(tf.float32, [2, 3, 4], name="x")
    steps = tf.unstack(x, axis=1)
    with tf.variable_scope("static", initializer=spread):
        outputs, state = tf.nn.static_rnn(tf.nn.rnn_cell.BasicRNNCell(3), steps, dtype=tf.float32)
    grads = tf.gradients(tf.add_n(outputs), tf.trainable_variables())
    return _facts(tf, outputs + [state] + grads, {x: X}, rewrites_off=rewrites_off)


def case_layers_on_two_devices_with_residual_and_initial_state(tf, rewrites_off=False):
    x = tf.placeholder(tf.float32, [2, 3, 4], name="x")
    with tf.variable_scope("stack", initializer=spread):
        cells = [tf.nn.rnn_cell.DeviceWrapper(tf.nn.rnn_cell.GRUCell(4, name="gru_a"), "/cpu:1"),
                 tf.nn.rnn_cell.DeviceWrapper(tf.nn.rnn_cell.ResidualWrapper(tf.nn.rnn_cell.GRUCell(4, name="gru_b")),
                                              "/cpu:2")]
        cell = tf.nn.rnn_cell.MultiRNNCell(cells)
        init = tuple(tf.fill([2, 4], 0.1 * (i + 1)) for i in range(2))
        outputs, state = tf.nn.dynamic_rnn(cell, x, initial_state=init)
    loss = tf.reduce_sum(outputs * outputs)
    train = tf.train.GradientDescentOptimizer(0.1).minimize(loss, colocate_gradients_with_ops=True)
    return _facts(tf, [loss, outputs] + list(state), {x: X}, train=train, steps=2, rewrites_off=rewrites_off)


def case_dropout_wrapper_graph(tf, rewrites_off=False):
    x = tf.placeholder(tf.float32, [2, 3, 4], name="x")
    cell = tf.nn.rnn_cell.DropoutWrapper(tf.nn.rnn_cell.LSTMCell(3, initializer=spread), input_keep_prob=0.8,
                                         output_keep_prob=1.0, state_keep_prob=0.7, seed=3)
    outputs, state = tf.nn.dynamic_rnn(cell, x, dtype=tf.float32)
    with tf.variable_scope("all_kept", initializer=spread):
        kept = tf.nn.rnn_cell.DropoutWrapper(tf.nn.rnn_cell.BasicRNNCell(3, name="kept"), input_keep_prob=1.0)
        kept_outputs, _ = tf.nn.dynamic_rnn(kept, x, dtype=tf.float32)
    static = state.c.shape.as_list()
    placed, value = _run(tf, [tf.shape(outputs), kept_outputs], {x: X}, rewrites_off=rewrites_off)
    return {"ops": graph_facts(tf), "placed": placed, "values": [_values(value[0]), static, _values(value[1])]}


def case_tensor_array_loop(tf, rewrites_off=False):
    x = tf.placeholder(tf.float32, [3, 2], name="x")
    w = tf.Variable([2.0, 3.0], name="w")
    ta_in = tf.TensorArray(tf.float32, size=3).unstack(x)
    ta_out = tf.TensorArray(tf.float32, size=3, element_shape=[2])

    def body(t, acc, out):
        v = ta_in.read(t) * w + acc
        return t + 1, v, out.write(t, v)
    _, acc, out = tf.while_loop(lambda t, *_: t < 3, body, [0, tf.zeros([2]), ta_out])
    y = out.stack()
    loss = tf.reduce_sum(y * y)
    g = tf.gradients(loss, [x, w])
    return _facts(tf, [y, loss, out.size()] + g, {x: np.arange(6).reshape(3, 2)}, rewrites_off=rewrites_off)


def case_rnn_errors(tf, rewrites_off=False):
    def error(fn):
        try:
            fn()
        except Exception as e:  # noqa: BLE001 - the class and the first line are the facts
            return [type(e).__name__, str(e).splitlines()[0]]
        return None
    x = tf.placeholder(tf.float32, [2, 3, 4], name="x")
    return {"values": [
        error(lambda: tf.nn.dynamic_rnn(tf.nn.rnn_cell.GRUCell(3), x)),
        error(lambda: tf.nn.dynamic_rnn(tf.nn.rnn_cell.GRUCell(3), x[0], dtype=tf.float32)),
        error(lambda: tf.nn.dynamic_rnn(tf.nn.rnn_cell.GRUCell(3), tf.placeholder(tf.float32, [2, 3, None]),
                                        dtype=tf.float32)),
        error(lambda: tf.nn.rnn_cell.MultiRNNCell([])),
        error(lambda: tf.nn.static_rnn(tf.nn.rnn_cell.GRUCell(3), x, dtype=tf.float32)),
        error(lambda: tf.TensorArray(tf.float32)),
    ]}


def case_sequence_lengths_checked_at_run_time(tf, rewrites_off=False):
    x = tf.placeholder(tf.float32, [2, 3, 4], name="x")
    lengths = tf.placeholder(tf.int32, [None], name="lengths")
    with tf.variable_scope("checked", initializer=spread):
        outputs, _ = tf.nn.dynamic_rnn(tf.nn.rnn_cell.BasicRNNCell(2), x, sequence_length=lengths,
                                       dtype=tf.float32)
    try:
        _run(tf, outputs, {x: X, lengths: [3, 1, 2]}, rewrites_off=rewrites_off)
        error = None
    except tf.errors.InvalidArgumentError as e:
        lines = [l for l in str(e).splitlines() if l.strip() and not l[0].isspace()
                 and not l.startswith(("Graph execution error", "Detected at node", "Node:"))]
        error = [type(e).__name__, lines[0]]
    _, value = _run(tf, outputs, {x: X, lengths: [2, 3]}, rewrites_off=rewrites_off)
    return {"ops": graph_facts(tf), "values": [error, _values(value)]}


CASES = {name[len("case_"):]: fn for name, fn in globals().items() if name.startswith("case_")}
