"""tf.cond and tf.while_loop programs, written once against the TF1 API; each returns its facts
(ops with inputs and control inputs, placements from the partition graphs, values). The same
functions run under TensorFlow 2.21 (tools/record_cases.py control_flow writes what it does to
tests/data/tf_control_flow.json) and under devlab (tests/test_control_flow.py compares)."""
import re

import numpy as np


def graph_facts(tf):
    out = []
    for op in tf.get_default_graph().get_operations():
        groups = sorted(g.decode() if isinstance(g, bytes) else g for g in op.colocation_groups())
        out.append([op.name, op.type, op.device, [t.name for t in op.inputs], sorted(c.name for c in op.control_inputs),
                    groups])
    return out


def run(tf, fetch, feed=None, cpus=2, rewrites_off=False):
    config = tf.ConfigProto(device_count={"CPU": cpus})
    if rewrites_off:  # the recorder turns TF's graph rewrites off: the placer's own decisions
        config.graph_options.rewrite_options.disable_meta_optimizer = True
        config.graph_options.optimizer_options.opt_level = -1
    opts = tf.RunOptions(output_partition_graphs=True)
    md = tf.RunMetadata()
    with tf.Session(config=config) as sess:
        value = sess.run(fetch, feed_dict=feed, options=opts, run_metadata=md)
    placed = {n.name: n.device for pg in md.partition_graphs for n in pg.node
              if not re.search(r"(^|/)_", n.name)}
    return placed, value


def _values(value):
    return [np.asarray(v).tolist() for v in value] if isinstance(value, (list, tuple)) else np.asarray(value).tolist()


def case_cond_across_devices(tf, rewrites_off=False):
    x = tf.placeholder(tf.float32, [2], name="x")
    with tf.device("/cpu:1"):
        c = tf.constant(3.0, name="c")
    r = tf.cond(tf.reduce_sum(x) > 0, lambda: x * c, lambda: x - 1.0)
    facts = {"ops": graph_facts(tf)}
    placed, pos = run(tf, r, {x: [1.0, 2.0]}, rewrites_off=rewrites_off)
    _, neg = run(tf, r, {x: [-1.0, -2.0]}, rewrites_off=rewrites_off)
    facts.update(placed=placed, values=[_values(pos), _values(neg)])
    return facts


def case_cond_returns_tuples_and_outer_tensors(tf, rewrites_off=False):
    x = tf.placeholder(tf.float32, [2], name="x")
    y = tf.placeholder(tf.float32, [2], name="y")
    with tf.device("/cpu:0"):
        r = tf.cond(tf.reduce_sum(x) > 0, lambda: (x, y * 2.0), lambda: (tf.constant([5.0, 6.0]), y))
    facts = {"ops": graph_facts(tf)}
    placed, a = run(tf, list(r), {x: [1.0, 2.0], y: [3.0, 4.0]}, rewrites_off=rewrites_off)
    _, b = run(tf, list(r), {x: [-1.0, 2.0], y: [3.0, 4.0]}, rewrites_off=rewrites_off)
    facts.update(placed=placed, values=[_values(a), _values(b)])
    return facts


def case_while_counts_on_a_second_device(tf, rewrites_off=False):
    x = tf.placeholder(tf.float32, [2], name="x")
    with tf.device("/cpu:1"):
        out = tf.while_loop(lambda v: tf.reduce_sum(v) < 100.0, lambda v: v * 2.0, [x], name="loop")
    facts = {"ops": graph_facts(tf)}
    placed, value = run(tf, out, {x: [1.0, 2.0]}, rewrites_off=rewrites_off)
    facts.update(placed=placed, values=_values(value))
    return facts


def case_while_with_outer_tensor_and_two_vars(tf, rewrites_off=False):
    i0 = tf.constant(0, name="i0")
    v0 = tf.constant(1.0, name="v0")
    with tf.device("/cpu:1"):
        k = tf.constant(2.0, name="k")
    i, v = tf.while_loop(lambda i, v: i < 3, lambda i, v: (i + 1, v * k), [i0, v0])
    facts = {"ops": graph_facts(tf)}
    placed, value = run(tf, [i, v], rewrites_off=rewrites_off)
    facts.update(placed=placed, values=_values(value))
    return facts


def case_while_maximum_iterations(tf, rewrites_off=False):
    j = tf.while_loop(lambda i: i < 100, lambda i: i + 1, [0], maximum_iterations=7, name="capped")
    facts = {"ops": graph_facts(tf)}
    placed, value = run(tf, j, rewrites_off=rewrites_off)
    facts.update(placed=placed, values=_values(value))
    return facts


def case_cond_inside_while(tf, rewrites_off=False):
    def body(i, acc):
        acc = tf.cond(i < 3, lambda: acc + tf.cast(i, tf.float32), lambda: acc - 1.0)
        return i + 1, acc
    i, acc = tf.while_loop(lambda i, acc: i < 6, body, [tf.constant(0), tf.constant(0.0)])
    facts = {"ops": graph_facts(tf)}
    placed, value = run(tf, [i, acc], rewrites_off=rewrites_off)
    facts.update(placed=placed, values=_values(value))
    return facts


def case_nested_while(tf, rewrites_off=False):
    def outer_body(i, total):
        inner = tf.while_loop(lambda j, s: j < i, lambda j, s: (j + 1, s + j), [tf.constant(0), total])
        return i + 1, inner[1]
    i, total = tf.while_loop(lambda i, t: i < 4, outer_body, [tf.constant(0), tf.constant(0)])
    facts = {"ops": graph_facts(tf)}
    placed, value = run(tf, [i, total], rewrites_off=rewrites_off)
    facts.update(placed=placed, values=_values(value))
    return facts


def case_while_inside_untaken_cond(tf, rewrites_off=False):
    p = tf.placeholder(tf.bool, [], name="p")
    r = tf.cond(p, lambda: tf.while_loop(lambda v: v < 10.0, lambda v: v + 3.0, [tf.constant(1.0)]),
                lambda: tf.constant(-1.0))
    facts = {"ops": graph_facts(tf)}
    placed, a = run(tf, r, {p: True}, rewrites_off=rewrites_off)
    _, b = run(tf, r, {p: False}, rewrites_off=rewrites_off)
    facts.update(placed=placed, values=[_values(a), _values(b)])
    return facts


def case_cond_and_loop_built_under_another_device(tf, rewrites_off=False):
    with tf.device("/cpu:0"):
        x = tf.placeholder(tf.float32, [2], name="x")
        pred = tf.reduce_sum(x) > 0
    with tf.device("/cpu:1"):
        r = tf.cond(pred, lambda: x * 3.0, lambda: x * x + 1.0)
        out = tf.while_loop(lambda v: tf.reduce_sum(v) < 50.0, lambda v: v * 2.0, [r], name="grow")
    with tf.device("/cpu:0"):
        total = tf.reduce_sum(out, name="total")
    facts = {"ops": graph_facts(tf)}
    placed, a = run(tf, total, {x: [1.0, 2.0]}, rewrites_off=rewrites_off)
    _, b = run(tf, total, {x: [-1.0, -2.0]}, rewrites_off=rewrites_off)
    facts.update(placed=placed, values=[_values(a), _values(b)])
    return facts


# -- gradients through loops and conds (the gradient loop, its stacks and its placement) ----------------
def _error(fn):
    try:
        fn()
    except Exception as e:  # noqa: BLE001 - the class and the first line are the facts
        return [type(e).__name__, str(e).splitlines()[0]]
    return None


def case_grad_of_a_power_loop(tf, rewrites_off=False):
    x = tf.placeholder(tf.float32, [2], name="x")
    _, y = tf.while_loop(lambda i, v: i < 4, lambda i, v: (i + 1, v * x), [tf.constant(0), tf.ones([2])],
                         name="power")
    g = tf.gradients(tf.reduce_sum(y), x)[0]
    facts = {"ops": graph_facts(tf)}
    placed, value = run(tf, [y, g], {x: [1.5, -2.0]}, rewrites_off=rewrites_off)
    facts.update(placed=placed, values=_values(value))
    return facts


def case_grad_of_a_loop_reading_a_variable(tf, rewrites_off=False):
    w = tf.Variable([[0.5, -0.2], [0.1, 0.3]], name="w")
    b = tf.Variable([0.1, 0.2], name="b")
    h0 = tf.constant([[1.0, 2.0]], name="h0")

    def body(i, h):
        return i + 1, tf.tanh(tf.matmul(h, w) + b)
    _, h = tf.while_loop(lambda i, h: i < 3, body, [0, h0])
    loss = tf.reduce_sum(tf.square(h - 0.25))
    train = tf.train.GradientDescentOptimizer(0.3).minimize(loss)
    facts = {"ops": graph_facts(tf)}
    placed, values = _train(tf, train, 3, [loss, w, b], rewrites_off)
    facts.update(placed=placed, values=_values(values))
    return facts


def _train(tf, train, steps, fetch, rewrites_off, cpus=2):
    """Initializes the variables, runs ``train`` ``steps`` times, fetches ``fetch``; returns
    (where the training run placed each node, the values fetched)."""
    config = tf.ConfigProto(device_count={"CPU": cpus})
    if rewrites_off:
        config.graph_options.rewrite_options.disable_meta_optimizer = True
        config.graph_options.optimizer_options.opt_level = -1
    opts = tf.RunOptions(output_partition_graphs=True)
    md = tf.RunMetadata()
    with tf.Session(config=config) as sess:
        sess.run(tf.global_variables_initializer())
        for _ in range(steps):
            sess.run(train, options=opts, run_metadata=md)
        values = sess.run(fetch)
    placed = {n.name: n.device for pg in md.partition_graphs for n in pg.node if not re.search(r"(^|/)_", n.name)}
    return placed, values


def case_grad_with_maximum_iterations(tf, rewrites_off=False):
    x = tf.placeholder(tf.float32, [], name="x")
    y = tf.while_loop(lambda v: v < 1000.0, lambda v: v * x + 1.0, [x], maximum_iterations=3, name="capped")
    g = tf.gradients(y, x)[0]
    facts = {"ops": graph_facts(tf)}
    placed, a = run(tf, [y, g], {x: 2.0}, rewrites_off=rewrites_off)
    _, b = run(tf, [y, g], {x: 40.0}, rewrites_off=rewrites_off)  # stops after 2 iterations: v >= 1000
    facts.update(placed=placed, values=[_values(a), _values(b)])
    return facts


def case_grad_of_nested_loops(tf, rewrites_off=False):
    x = tf.placeholder(tf.float32, [2], name="x")

    def outer_body(i, v):
        _, v = tf.while_loop(lambda j, u: j < i, lambda j, u: (j + 1, u * x), [0, v], name="inner")
        return i + 1, v + x
    _, y = tf.while_loop(lambda i, v: i < 3, outer_body, [1, x], name="outer")
    g = tf.gradients(tf.reduce_sum(y), x)[0]
    facts = {"ops": graph_facts(tf)}
    placed, value = run(tf, [y, g], {x: [0.5, 1.5]}, rewrites_off=rewrites_off)
    facts.update(placed=placed, values=_values(value))
    return facts


def case_grad_of_a_loop_across_two_devices(tf, rewrites_off=False):
    with tf.device("/cpu:0"):
        w = tf.Variable([[0.2, 0.1, 0.0], [0.3, -0.1, 0.2], [0.0, 0.4, 0.1]], name="w")
        x = tf.constant([[1.0, 0.5, -0.5]], name="x")

    def body(i, h, c):
        with tf.device("/cpu:1"):
            c = c + tf.sigmoid(tf.matmul(h, w))
        with tf.device("/cpu:0"):
            h = tf.tanh(c) * 0.5
        return i + 1, h, c
    _, h, _ = tf.while_loop(lambda i, h, c: i < 3, body, [0, x, tf.zeros([1, 3])])
    loss = tf.reduce_sum(h)
    g = tf.gradients(loss, w, colocate_gradients_with_ops=True)[0]
    train = tf.train.GradientDescentOptimizer(0.5).apply_gradients([(g, w)])
    facts = {"ops": graph_facts(tf)}
    placed, values = _train(tf, train, 2, [loss, w], rewrites_off)
    facts.update(placed=placed, values=_values(values))
    return facts


def case_grad_of_a_cond(tf, rewrites_off=False):
    x = tf.placeholder(tf.float32, [2], name="x")
    with tf.device("/cpu:1"):
        k = tf.constant(3.0, name="k")
    r = tf.cond(tf.reduce_sum(x) > 0, lambda: x * k, lambda: tf.square(x))
    g = tf.gradients(r, [x, k])
    facts = {"ops": graph_facts(tf)}
    placed, a = run(tf, g, {x: [1.0, 2.0]}, rewrites_off=rewrites_off)
    _, b = run(tf, g, {x: [-1.0, -2.0]}, rewrites_off=rewrites_off)
    facts.update(placed=placed, values=[_values(a), _values(b)])
    return facts


def case_grad_of_a_cond_inside_a_loop(tf, rewrites_off=False):
    x = tf.placeholder(tf.float32, [], name="x")

    def body(i, v):
        return i + 1, tf.cond(i < 2, lambda: v * x, lambda: v + x)
    _, y = tf.while_loop(lambda i, v: i < 4, body, [0, x])
    g = tf.gradients(y, x)[0]
    facts = {"ops": graph_facts(tf)}
    placed, value = run(tf, [y, g], {x: 1.5}, rewrites_off=rewrites_off)
    facts.update(placed=placed, values=_values(value))
    return facts


def case_grad_through_an_unused_loop_output(tf, rewrites_off=False):
    a = tf.placeholder(tf.float32, [None], name="a")
    b = tf.placeholder(tf.float32, [None], name="b")
    v1, _ = tf.while_loop(lambda u, w: tf.reduce_sum(u) < 20.0, lambda u, w: (u + w, w * 2.0), [a, b])
    g = tf.gradients(tf.reduce_sum(v1), [a, b])
    facts = {"ops": graph_facts(tf)}
    placed, value = run(tf, [v1] + g, {a: [1.0, 2.0], b: [0.5, 1.0]}, rewrites_off=rewrites_off)
    facts.update(placed=placed, values=_values(value))
    return facts


def case_grad_of_a_loop_without_back_prop(tf, rewrites_off=False):
    x = tf.placeholder(tf.float32, [], name="x")
    y = tf.while_loop(lambda v: v < 10.0, lambda v: v * x, [x], back_prop=False)
    return {"ops": graph_facts(tf), "values": [tf.gradients(y, x)[0] is None]}


def case_loop_errors(tf, rewrites_off=False):
    def outside():
        y = tf.while_loop(lambda v: v < 10.0, lambda v: v * 2.0, [tf.constant(1.0)], name="first")
        inner = y.op.inputs[0].op.inputs[0]  # the body's Switch output, inside the loop
        return inner * 3.0

    def other_loop():
        seen = []

        def body(v):
            seen.append(v * 2.0)
            return seen[-1]
        tf.while_loop(lambda v: v < 10.0, body, [tf.constant(1.0)], name="a")
        tf.while_loop(lambda v: v < 10.0, lambda v: v + seen[0], [tf.constant(1.0)], name="b")

    def initial_value():
        x0 = tf.constant(2.0, name="x0")

        def body(v):
            return tf.gradients(v * 3.0, x0)[0]
        tf.while_loop(lambda v: v < 10.0, body, [x0], name="c")
    return {"values": [_error(outside), _error(other_loop), _error(initial_value)]}


CASES = {name[len("case_"):]: fn for name, fn in globals().items() if name.startswith("case_")}
