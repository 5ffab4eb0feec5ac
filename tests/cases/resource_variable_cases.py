"""Resource variables (``tf.Variable(..., use_resource=True)``, ``get_variable(use_resource=True)``,
``variable_scope(use_resource=True)``): the VarHandleOp / ReadVariableOp / AssignVariableOp graph TF
builds, where each op is placed (every op taking a handle beside the handle), the values of reads,
writes, gradients and the optimizers' ``ResourceApply*`` updates, a Saver round trip, and errors.
The same functions run under TensorFlow 2.21 (tools/record_cases.py resource_variable writes
tests/data/tf_resource_variables.json) and under devlab (tests/test_resource_variables.py compares)."""
import numpy as np

from control_flow_cases import graph_facts
from rnn_cases import _facts, _run, _values
from script_cases import _error

X = np.array([[1.0, 2.0, 0.5], [0.0, -1.0, 2.0], [3.0, 1.0, -2.0], [0.5, 0.5, 0.5]], np.float32)
Y = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0], [0.5, -0.5]], np.float32)
W0 = np.array([[0.1, -0.2], [0.3, 0.4], [-0.5, 0.6]], np.float32)
TABLE = np.arange(12, dtype=np.float32).reshape(4, 3) / 10.0


def case_graph_of_the_three_ways_to_make_one(tf, rewrites_off=False):
    v = tf.Variable(1.0, use_resource=True, name="v")
    w = tf.get_variable("w", [2, 3], initializer=tf.constant_initializer(0.5), use_resource=True)
    with tf.variable_scope("s", use_resource=True):
        u = tf.get_variable("u", [3], initializer=tf.zeros_initializer())
        r = tf.Variable([1, 2], name="r")  # the scope's use_resource reaches tf.Variable too
    plain = tf.Variable(2.0, name="plain")  # still a ref variable
    y = v * 2.0
    z = tf.reduce_sum(w) + v
    facts = _facts(tf, [v, w, u, r, y, z, plain], rewrites_off=rewrites_off)
    facts["variables"] = [[x.name, x.op.name, x.op.type, x.handle.name if hasattr(x, "handle") else None,
                           x.shape.as_list(), x.dtype.name, x.initializer.name, x.initial_value.name,
                           x._as_graph_element().name] for x in (v, w, u, r, plain)]
    facts["collections"] = [[x.name for x in tf.global_variables()], [x.name for x in tf.trainable_variables()]]
    return facts


def case_reads_and_writes(tf, rewrites_off=False):
    v = tf.Variable([1.0, 2.0], use_resource=True, name="v")
    a = v.assign([3.0, 4.0])
    b = v.assign_add([1.0, 1.0])
    c = v.assign_sub([0.5, 0.5], read_value=False)
    d = tf.assign_add(v, [10.0, 10.0])
    r = v.read_value()
    init = tf.is_variable_initialized(v)
    facts = {"ops": graph_facts(tf)}
    with tf.Session() as sess:
        before = sess.run(init)
        sess.run(v.initializer)
        values = [sess.run(a), sess.run(b), sess.run(c) is None, sess.run(d), sess.run(r), sess.run(init)]
        values.append(sess.run(tf.report_uninitialized_variables()).tolist())
    facts["values"] = _values([float(before)] + [np.asarray(x, np.float64) for x in values[:2]] + [float(values[2])]
                              + [np.asarray(x, np.float64) for x in values[3:6]])
    facts["uninitialized"] = values[6]
    facts["kinds"] = [type(a).__name__ == "Tensor", a.name, c.type, c.name]
    return facts


def case_gather_scatter_and_count(tf, rewrites_off=False):
    t = tf.get_variable("t", initializer=TABLE, use_resource=True)
    g = tf.gather(t, [2, 0, 2])
    e = tf.nn.embedding_lookup(t, [[1], [3]])
    s = tf.scatter_add(t, [0, 0], [[1.0, 1.0, 1.0], [2.0, 2.0, 2.0]])
    n = tf.get_variable("n", initializer=tf.constant(3, tf.int64), use_resource=True)
    up = n.count_up_to(5)
    facts = {"ops": graph_facts(tf)}
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        values = [sess.run(g), sess.run(e), sess.run(s), sess.run(up), sess.run(up)]
        values.append(_error(lambda: sess.run(up))["error"])
    facts["values"] = _values(values[:5])
    facts["limit"] = values[5]
    return facts


def case_scatter_sub_update_and_a_cond_gradient(tf, rewrites_off=False):
    """tf.scatter_sub / scatter_update on a resource variable; the gradient of a read in one branch
    of a tf.cond (the other branch's zeros shaped by VariableShape)."""
    t = tf.get_variable("t", initializer=TABLE, use_resource=True)
    a = tf.get_variable("a", initializer=np.array([0.5], np.float32), use_resource=True)
    sub = tf.scatter_sub(t, [1], [[1.0, 1.0, 1.0]])
    upd = tf.scatter_update(t, [3, 0], [[9.0, 9.0, 9.0], [8.0, 8.0, 8.0]])
    pred = tf.placeholder_with_default(True, shape=(), name="pred")
    out = tf.cond(pred, lambda: a * 2.0, lambda: a * 3.0)
    grad, = tf.gradients(out, a)
    facts = {"ops": graph_facts(tf)}
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        values = [sess.run(sub), sess.run(upd), sess.run(grad), sess.run(grad, {pred: False})]
    facts["values"] = _values(values)
    return facts


def case_gradients_through_reads(tf, rewrites_off=False):
    x = tf.constant(X, name="x")
    w = tf.get_variable("w", initializer=W0, use_resource=True)
    t = tf.get_variable("t", initializer=TABLE, use_resource=True)
    loss = tf.reduce_sum(tf.matmul(x, w) * tf.matmul(x, w)) + tf.reduce_sum(tf.gather(t, [1, 1, 3]) ** 2)
    gw, gt = tf.gradients(loss, [w, t])
    facts = _facts(tf, [loss, gw, tf.convert_to_tensor(gt)], rewrites_off=rewrites_off)
    facts["kinds"] = [type(gt).__name__, gt.indices.name, gt.values.name]
    return facts


def _optimizer_case(make, sparse=False):
    def case(tf, rewrites_off=False):
        x = tf.placeholder(tf.float32, [4, 3], name="x")
        y = tf.placeholder(tf.float32, [4, 2], name="y")
        with tf.device("/cpu:1"):
            w = tf.Variable(W0, name="w", use_resource=True)
            b = tf.Variable([0.1, -0.2], name="b", use_resource=True)
            t = tf.Variable(TABLE[:, :2], name="t", use_resource=True)
        with tf.device("/cpu:2"):
            rows = tf.gather(t, [0, 2, 2, 3]) if sparse else t[:1]
            loss = tf.reduce_mean(tf.square(tf.matmul(x, w) + b - y)) + tf.reduce_sum(rows * rows)
        global_step = tf.train.get_or_create_global_step()
        opt = make(tf)
        train = opt.minimize(loss, global_step=global_step)
        slots = [opt.get_slot(v, n) for n in opt.get_slot_names() for v in (w, b, t)]
        facts = _facts(tf, [loss, w, b, t, global_step] + slots, {x: X, y: Y}, train=train, steps=3,
                       rewrites_off=rewrites_off)
        facts["slots"] = [opt.get_slot_names(), [s.op.name for s in slots], [s.op.type for s in slots],
                          [v.name for v in opt.variables()]]
        return facts
    return case


case_gradient_descent = _optimizer_case(lambda tf: tf.train.GradientDescentOptimizer(0.1))
case_gradient_descent_sparse = _optimizer_case(lambda tf: tf.train.GradientDescentOptimizer(0.1), sparse=True)
case_momentum = _optimizer_case(lambda tf: tf.train.MomentumOptimizer(0.1, 0.9))
case_momentum_sparse_nesterov = _optimizer_case(lambda tf: tf.train.MomentumOptimizer(0.1, 0.9, use_nesterov=True),
                                                sparse=True)
case_adam = _optimizer_case(lambda tf: tf.train.AdamOptimizer(0.05))
case_adam_sparse = _optimizer_case(lambda tf: tf.train.AdamOptimizer(0.05), sparse=True)
case_adagrad_sparse = _optimizer_case(lambda tf: tf.train.AdagradOptimizer(0.2), sparse=True)
case_rmsprop = _optimizer_case(lambda tf: tf.train.RMSPropOptimizer(0.05, momentum=0.5))
case_rmsprop_centered_sparse = _optimizer_case(lambda tf: tf.train.RMSPropOptimizer(0.05, centered=True), sparse=True)
case_proximal_adagrad_sparse = _optimizer_case(
    lambda tf: tf.train.ProximalAdagradOptimizer(0.2, l1_regularization_strength=0.01), sparse=True)
case_proximal_gradient_descent = _optimizer_case(
    lambda tf: tf.train.ProximalGradientDescentOptimizer(0.1, l2_regularization_strength=0.01))
case_proximal_gradient_descent_sparse = _optimizer_case(
    lambda tf: tf.train.ProximalGradientDescentOptimizer(0.1, l1_regularization_strength=0.01), sparse=True)
case_adadelta_sparse = _optimizer_case(lambda tf: tf.train.AdadeltaOptimizer(1.0), sparse=True)
case_ftrl_sparse = _optimizer_case(lambda tf: tf.train.FtrlOptimizer(0.1, l2_shrinkage_regularization_strength=0.1),
                                   sparse=True)
case_rmsprop_sparse = _optimizer_case(lambda tf: tf.train.RMSPropOptimizer(0.05, momentum=0.5), sparse=True)
case_ftrl_sparse_l1 = _optimizer_case(lambda tf: tf.train.FtrlOptimizer(0.1, l1_regularization_strength=0.01),
                                      sparse=True)
case_adadelta = _optimizer_case(lambda tf: tf.train.AdadeltaOptimizer(1.0))
case_ftrl = _optimizer_case(lambda tf: tf.train.FtrlOptimizer(0.1, l1_regularization_strength=0.01))


def case_placement_follows_the_handle(tf, rewrites_off=False):
    """Reads and writes requested elsewhere run beside the handle (TF's placer joins resource edges)."""
    with tf.device("/cpu:1"):
        v = tf.get_variable("v", initializer=W0, use_resource=True)
    with tf.device("/cpu:2"):
        read = v.read_value()
        doubled = v * 2.0
        write = v.assign_add(tf.ones_like(W0))
        rows = tf.gather(v, [0, 2])
    # the write in a run of its own first (a read and a write in one run race in TF)
    return _facts(tf, [read, doubled, rows], train=write, steps=1, rewrites_off=rewrites_off, soft=True)


def case_on_parameter_servers(tf, rewrites_off=False):
    """Graph only: replica_device_setter puts each VarHandleOp on a ps task; the slots follow."""
    cluster = tf.train.ClusterSpec({"ps": ["ps0:2222", "ps1:2222"], "worker": ["w0:2222"]})
    with tf.device(tf.train.replica_device_setter(cluster=cluster)):
        x = tf.placeholder(tf.float32, [4, 3], name="x")
        w = tf.get_variable("w", initializer=W0, use_resource=True)
        b = tf.get_variable("b", initializer=tf.constant([0.1, -0.2]), use_resource=True)
        loss = tf.reduce_sum(tf.square(tf.matmul(x, w) + b))
        tf.train.MomentumOptimizer(0.1, 0.9).minimize(loss)
    return {"ops": graph_facts(tf)}


def case_saver_round_trip(tf, rewrites_off=False):
    import os
    import tempfile
    v = tf.get_variable("v", initializer=W0, use_resource=True)
    n = tf.Variable(7, name="n", use_resource=True)
    plain = tf.Variable([1.5], name="plain")
    saver = tf.train.Saver()
    zero = [v.assign(tf.zeros_like(W0)), n.assign(0), tf.assign(plain, [0.0])]
    ops = [[op.name, op.type, [t.name for t in op.inputs], op.device] for op in tf.get_default_graph().get_operations()
           if op.name.startswith("save/")]
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        path = saver.save(sess, os.path.join(tempfile.mkdtemp(), "model"), write_meta_graph=False)
        sess.run(zero)
        saver.restore(sess, path)
        values = sess.run([v, n, plain])
    return {"ops": ops, "values": _values(values)}


def case_caching_device_and_partitions(tf, rewrites_off=False):
    """A caching device gets the cached read; a partitioned resource variable's shards are resource
    variables, read by a sharded Saver beside them on ps tasks."""
    with tf.device("/cpu:1"):
        c = tf.get_variable("c", initializer=W0, use_resource=True, caching_device="/cpu:2")
    with tf.device(tf.train.replica_device_setter(ps_tasks=2)):
        with tf.variable_scope("emb", use_resource=True, partitioner=tf.fixed_size_partitioner(2)):
            e = tf.get_variable("e", [6, 2], initializer=tf.constant_initializer(0.5))
    tf.train.Saver(sharded=True)
    return {"ops": graph_facts(tf), "shards": [[v.op.name, v.op.type, v.device] for v in e],
            "cached": [c.value().name, c.value().device, c._as_graph_element().name]}


def case_layers_and_moving_averages(tf, rewrites_off=False):
    """tf.layers under a resource variable scope, trained, with an ExponentialMovingAverage of the weights."""
    x = tf.constant(X, name="x")
    with tf.variable_scope("net", use_resource=True, initializer=tf.constant_initializer(0.1)):
        h = tf.layers.dense(x, 2, activation=tf.nn.relu, name="d")
    loss = tf.reduce_sum(tf.square(h - Y))
    train = tf.train.GradientDescentOptimizer(0.05).minimize(loss)
    ema = tf.train.ExponentialMovingAverage(0.5)
    with tf.control_dependencies([train]):
        step = ema.apply(tf.trainable_variables())
    averages = [ema.average(v) for v in tf.trainable_variables()]
    facts = _facts(tf, [loss] + tf.trainable_variables() + averages, train=step, steps=2, rewrites_off=rewrites_off)
    facts["averages"] = [[a.op.name, a.op.type] for a in averages]
    return facts


def case_errors(tf, rewrites_off=False):
    v = tf.Variable([1.0, 2.0], use_resource=True, name="v")
    out = {"assign_shape": _error(lambda: v.assign([1.0, 2.0, 3.0]))["error"],
           "assign_add_shape": _error(lambda: v.assign_add([1.0]))["error"],
           "in_place_add": _error(lambda: v.__iadd__(1.0))["error"],  # `v += 1.0`
           "in_place_sub": _error(lambda: v.__isub__(1.0))["error"]}
    read = v.value()
    with tf.Session() as sess:
        out["uninitialized_read"] = _error(lambda: sess.run(read))["error"]
        out["uninitialized_fetch"] = _error(lambda: sess.run(v))["error"]
        sess.run(v.initializer)
        out["gather_out_of_range"] = _error(lambda: sess.run(tf.gather(v, [5])))["error"]
    return out


def case_enable_resource_variables(tf, rewrites_off=False):
    def is_resource(x):
        return x.op.type == "VarHandleOp"
    tf.enable_resource_variables()
    try:
        made = [is_resource(tf.Variable(1.0, name="a")), is_resource(tf.get_variable("b", [1])),
                tf.resource_variables_enabled()]
        with tf.variable_scope("ref", use_resource=False):
            made.append(is_resource(tf.get_variable("c", [1])))
    finally:
        tf.disable_resource_variables()
    made += [is_resource(tf.Variable(1.0, name="d")), tf.resource_variables_enabled()]
    return {"made": made}


CASES = {name[len("case_"):]: fn for name, fn in globals().items() if name.startswith("case_")}
