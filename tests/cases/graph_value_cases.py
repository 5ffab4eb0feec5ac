"""Issue 24's graph, value and name classes (5-11, 13): programs on which devlab once answered
differently from TensorFlow without a word. Each records what TF 2.21 builds (ops, inputs,
colocation), where it places them, and the values or error it gives.
The same functions run under TensorFlow 2.21 (tools/record_cases.py graph_value writes what it does
to tests/data/tf_graph_value.json) and under devlab (tests/test_graph_value.py compares)."""
import numpy as np

import re

from control_flow_cases import graph_facts
from rnn_cases import _values
from script_cases import _error

X3 = np.arange(24, dtype=np.float32).reshape(2, 3, 4) / 10.0
KERNEL = (np.arange(20, dtype=np.float32).reshape(4, 5) - 10.0) / 20.0


def run(tf, fetch, feed=None, rewrites_off=False):
    """(placements from the partition graphs, the value of ``fetch``) on two CPUs, the variables
    initialized by a run of their own first."""
    config = tf.ConfigProto(device_count={"CPU": 2})
    if rewrites_off:  # the recorder turns TF's graph rewrites off: the placer's own decisions
        config.graph_options.rewrite_options.disable_meta_optimizer = True
        config.graph_options.optimizer_options.opt_level = -1
    opts = tf.RunOptions(output_partition_graphs=True)
    md = tf.RunMetadata()
    with tf.Session(config=config) as sess:
        sess.run(tf.global_variables_initializer())
        value = sess.run(fetch, feed_dict=feed, options=opts, run_metadata=md)
    placed = {n.name: n.device for pg in md.partition_graphs for n in pg.node if not re.search(r"(^|/)_", n.name)}
    return placed, value


def _facts(tf, fetch, feed=None, rewrites_off=False):
    facts = {"ops": graph_facts(tf)}
    placed, value = run(tf, fetch, feed, rewrites_off=rewrites_off)
    facts.update(placed=placed, values=_values(value))
    return facts


# -- 5: reducing every axis of a tensor of known rank folds the axes into one Const -------------
def case_reductions_over_every_axis_fold_the_axes(tf, rewrites_off=False):
    v = tf.Variable(np.arange(6, dtype=np.float32).reshape(2, 3), name="v")
    b = tf.Variable([[True, False]], name="b")
    outs = [tf.reduce_sum(v), tf.reduce_mean(v), tf.reduce_max(v), tf.reduce_min(v), tf.reduce_prod(v + 1.0),
            tf.reduce_any(b), tf.reduce_all(b), tf.reduce_logsumexp(v), tf.count_nonzero(v),
            tf.reduce_sum([1.0, 2.0]), tf.reduce_sum(tf.constant(3.0))]
    return _facts(tf, outs, rewrites_off=rewrites_off)


def case_reduction_of_unknown_rank_builds_rank_and_range(tf, rewrites_off=False):
    x = tf.placeholder(tf.float32, name="x")
    return _facts(tf, [tf.reduce_sum(x), tf.reduce_max(x)], {x: [[1.0, 5.0], [2.0, 3.0]]}, rewrites_off)


# -- 6: StringJoin's shape is its non-scalar inputs' shape ------------------------------------------
def case_string_join_of_a_vector_is_a_vector(tf, rewrites_off=False):
    s = tf.strings.join([tf.constant(["a", "b"]), "-", tf.constant("z")], separator="+")
    t = tf.strings.join([tf.constant("p"), "q"])
    u = tf.strings.join([tf.placeholder(tf.string, [None], name="names"), "!"])
    facts = {"ops": graph_facts(tf), "shapes": [s.shape.as_list(), t.shape.as_list(), u.shape.as_list()]}
    placed, value = run(tf, [s, t], rewrites_off=rewrites_off)
    facts.update(placed=placed, values=[np.char.decode(np.asarray(x, dtype=bytes)).tolist() for x in value])
    return facts


# -- 7: a gather's sparse gradient made dense where a dense op needs it; clipping keeps it sparse --
def case_gradient_through_gather_of_a_computed_tensor(tf, rewrites_off=False):
    v = tf.Variable([1.0, 2.0, 3.0], name="v")
    loss = tf.reduce_sum(tf.gather(tf.sin(v), [1, 0, 1]))
    grads = tf.gradients(loss, [v])
    sparse = [isinstance(g, tf.IndexedSlices) for g in grads]
    return dict(_facts(tf, grads, rewrites_off=rewrites_off), sparse=sparse)


def case_clip_by_global_norm_keeps_sparse_gradients_sparse(tf, rewrites_off=False):
    with tf.device("/cpu:1"):
        table = tf.Variable(np.arange(8, dtype=np.float32).reshape(4, 2), name="table")
    w = tf.Variable([0.5, -0.5], name="w")
    rows = tf.gather(table, [2, 0, 2])
    loss = tf.reduce_sum(rows * w)
    opt = tf.train.GradientDescentOptimizer(0.1)
    grads_and_vars = opt.compute_gradients(loss)
    grads = [g for g, _ in grads_and_vars]
    norm = tf.global_norm(grads)
    clipped, used = tf.clip_by_global_norm(grads, 1.5)
    one = tf.clip_by_norm(grads[0], 0.5)
    train = opt.apply_gradients(zip(clipped, [v for _, v in grads_and_vars]))
    facts = {"ops": graph_facts(tf), "sparse": [isinstance(g, tf.IndexedSlices) for g in clipped + [one]]}
    config = tf.ConfigProto(device_count={"CPU": 2})
    if rewrites_off:
        config.graph_options.rewrite_options.disable_meta_optimizer = True
        config.graph_options.optimizer_options.opt_level = -1
    with tf.Session(config=config) as sess:
        sess.run(tf.global_variables_initializer())
        before = sess.run([norm, used, clipped[0].values, clipped[0].indices, clipped[1], one.values])
        sess.run(train)
        after = sess.run([table, w])
    facts["values"] = _values(before + after)
    return facts


# -- 8: Max and Min of nothing are the dtype's lowest and highest values ----------------------------
def case_max_and_min_of_an_empty_tensor(tf, rewrites_off=False):
    outs = []
    for dtype in (tf.float32, tf.int32, tf.int64, tf.uint8, tf.float64):
        e = tf.zeros([0], dtype)
        outs += [tf.reduce_max(e), tf.reduce_min(e)]
    m = tf.zeros([0, 3])
    outs += [tf.reduce_max(m, axis=0), tf.reduce_min(m, axis=0, keepdims=True), tf.reduce_max(m, axis=1),
             tf.reduce_sum(m, axis=0), tf.reduce_prod(m, axis=0)]
    return _facts(tf, outs, rewrites_off=rewrites_off)


# -- 9: integer division by a fed zero fails the run, and nothing is assigned ------------------------
def case_integer_floordiv_and_mod_by_a_fed_zero(tf, rewrites_off=False):
    x = tf.placeholder(tf.int32, [2], name="x")
    y = tf.placeholder(tf.int64, [2], name="y")
    v = tf.Variable([7, 7], name="v")
    w = tf.Variable(np.array([5, 5], np.int64), name="w")
    assign_div = tf.assign(v, tf.floordiv(tf.constant([4, 4]), x))
    assign_mod = tf.assign(w, tf.floormod(tf.constant(np.array([9, 9], np.int64)), y))
    modded = tf.mod(tf.constant([4, -4]), x)
    ops = graph_facts(tf)
    facts = {"ops": ops, "errors": []}
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        values = []
        for _ in range(3):  # the third run of a plan runs devlab's compiled program
            values.append(sess.run([assign_div, assign_mod, modded], {x: [3, 2], y: [2, 4]}))
            for fetch, feed in ((assign_div, {x: [2, 0]}), (assign_mod, {y: [0, 2]}), (modded, {x: [0, 1]})):
                facts["errors"].append(_error(lambda: sess.run(fetch, feed))["error"])
            values.append(sess.run([v, w]))
    facts["values"] = _values(values)
    return facts


# -- 10: a numpy scalar keeps its dtype; Python numbers are int32/float32 unless they do not fit -----
def case_constant_dtypes_of_numpy_and_python_scalars(tf, rewrites_off=False):
    values = [np.int64(3), np.float64(1.5), np.int16(2), np.uint8(1), np.float16(0.5), np.bool_(True), 3, 3.0,
              2 ** 40, [np.int64(1), 2], [1.5, 2], np.array(3), np.array([1.0, 2.0]), True]
    consts = [tf.constant(x) for x in values]
    added = tf.constant(np.int64(5)) + tf.constant(np.int64(2))
    return {"dtypes": [c.dtype.name for c in consts], "added": added.dtype.name,
            "converted": [tf.convert_to_tensor(x).dtype.name for x in (np.float64(2.0), np.int64(2), 7, 7.5)]}


# -- 11: a dense layer on a 3-D input contracts the last axis with Tensordot -------------------------
def case_dense_layer_on_a_3d_input_builds_tensordot(tf, rewrites_off=False):
    x = tf.placeholder(tf.float32, [2, 3, 4], name="x")
    with tf.device("/cpu:1"):
        y = tf.layers.dense(x, 5, kernel_initializer=tf.constant_initializer(KERNEL),
                            bias_initializer=tf.constant_initializer(0.25))
    z = tf.placeholder(tf.float32, [None, None, 4], name="z")
    u = tf.layers.dense(z, 5, kernel_initializer=tf.constant_initializer(KERNEL), name="d2", activation=tf.nn.relu)
    t = tf.tensordot(tf.constant(X3), tf.constant(KERNEL), 1)
    facts = {"ops": graph_facts(tf), "shapes": [y.shape.as_list(), u.shape.as_list(), t.shape.as_list()]}
    placed, value = run(tf, [y, u, t], {x: X3, z: X3[:, :2]}, rewrites_off=rewrites_off)
    facts.update(placed=placed, values=_values(value))
    return facts


# -- 13: names and op types -------------------------------------------------------------------------
def case_floormod_adam_powers_and_cond_on_a_bool_variable(tf, rewrites_off=False):
    a = tf.floormod(tf.constant(7), tf.constant(3))
    b = tf.mod(tf.constant(7), tf.constant(3))
    c = tf.floordiv(tf.constant(7), tf.constant(3))
    with tf.variable_scope("model"):
        v = tf.Variable([1.0, 2.0], name="w")
        train = tf.train.AdamOptimizer(0.1).minimize(tf.reduce_sum(v * v))
    flag = tf.Variable(True, name="flag")
    r = tf.cond(flag, lambda: v + 1.0, lambda: v * 2.0)
    facts = {"ops": graph_facts(tf)}
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        sess.run(train)
        facts["values"] = _values(sess.run([a, b, c, r, v]))
    return facts


# -- tf.cumsum (issue 26's common functions): its op, attrs, gradient and errors ----------------------
def case_cumsum_its_gradient_and_its_errors(tf, rewrites_off=False):
    x = tf.constant(X3, name="x")
    sums = [tf.cumsum(x, axis=a, exclusive=e, reverse=r) for a, e, r in ((1, True, True), (-1, False, True), (0, True, False))]
    grad = tf.gradients(tf.reduce_sum(sums[0] * x) + tf.reduce_sum(sums[1] * sums[2]), [x])[0]
    facts = _facts(tf, sums + [grad, tf.cumsum([1, 2, 3])], rewrites_off=rewrites_off)
    facts["attrs"] = [[op.get_attr("exclusive"), op.get_attr("reverse")]
                      for op in tf.get_default_graph().get_operations() if op.type == "Cumsum"]
    facts["errors"] = [_error(lambda: tf.cumsum([1.0, 2.0], axis=1.0)), _error(lambda: tf.cumsum("ab"))]
    return facts


CASES = {name[len("case_"):]: fn for name, fn in sorted(globals().items()) if name.startswith("case_")}
