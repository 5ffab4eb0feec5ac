"""tf.cond and tf.while_loop programs, written once against the TF1 API; each returns its facts
(ops with inputs and control inputs, placements from the partition graphs, values). The same
functions run under TensorFlow 2.21 (tools/record_control_flow.py writes what it does to
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


CASES = {name[len("case_"):]: fn for name, fn in globals().items() if name.startswith("case_")}
