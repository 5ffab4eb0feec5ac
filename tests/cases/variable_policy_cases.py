"""Issue 27's variable policies and tapes: a variable's ``synchronization``/``aggregation`` (ON_READ
makes it non-trainable), its ``constraint`` (applied by the optimizers after each update), its
``VariableDef`` (``to_proto``/``Variable(variable_def=...)``), variable creators, variable_scope
misuse, slots of a partitioned variable's shards, Adagrad on a variable of unknown shape,
``tf.GradientTape`` in graph mode and ``tf.recompute_grad``. The same functions run under TensorFlow
2.21 (``tools/record_cases.py variable_policy tests/data/tf_variable_policy.json``) and under devlab
(tests/test_variable_policy.py compares)."""
from control_flow_cases import graph_facts
from rnn_cases import _values
from script_cases import _error


def _policy(v):
    return [v.name, v.trainable, v.synchronization.name, v.aggregation.name]


def case_synchronization_and_aggregation_are_recorded(tf, rewrites_off=False):
    S, A = tf.VariableSynchronization, tf.VariableAggregation
    made = [tf.Variable(1.0, name="plain"),
            tf.Variable(1.0, name="on_read", synchronization=S.ON_READ, aggregation=A.MEAN),
            tf.Variable(1.0, name="on_read_trainable", synchronization=S.ON_READ, trainable=True),
            tf.Variable(1.0, name="by_value", synchronization=2, aggregation=1),
            tf.Variable(1.0, name="resource", use_resource=True, synchronization=S.ON_READ,
                        aggregation=A.ONLY_FIRST_TOWER),
            tf.get_variable("got", [], synchronization=S.ON_READ, aggregation=A.SUM),
            tf.get_variable("got_on_write", [], synchronization=S.ON_WRITE)]
    return {"policies": [_policy(v) for v in made],
            "trainable": [v.name for v in tf.trainable_variables()],
            "global": [v.name for v in tf.global_variables()],
            "v1_equals_v2": [A.SUM == _v2(tf).SUM, _v2(tf).MEAN == A.MEAN,
                             A.ONLY_FIRST_TOWER == _v2(tf).ONLY_FIRST_REPLICA, A.SUM == _v2(tf).MEAN]}


def _v2(tf):
    """TF2's ``tf.VariableAggregation`` (VariableAggregationV2), which TF1's compares equal to."""
    if tf.__name__.startswith("devlab"):
        from devlab.api.variable_sync import VariableAggregationV2
    else:
        from tensorflow.python.ops.variables import VariableAggregationV2
    return VariableAggregationV2


def case_bad_synchronization(tf, rewrites_off=False):
    return _error(lambda: tf.Variable(1.0, name="v", synchronization=7))


def case_bad_aggregation(tf, rewrites_off=False):
    return _error(lambda: tf.get_variable("v", [], aggregation="most"))


def case_constraint_not_callable(tf, rewrites_off=False):
    return _error(lambda: tf.Variable(1.0, constraint=0))


def case_variable_def_round_trip(tf, rewrites_off=False):
    S, A = tf.VariableSynchronization, tf.VariableAggregation
    v = tf.Variable([1.0, 2.0], name="v", trainable=False, synchronization=S.NONE, aggregation=A.ONLY_FIRST_REPLICA)
    w = tf.Variable(lambda: tf.ones([2]), name="w")
    defs = [v.to_proto(), w.to_proto()]
    back = [tf.Variable(variable_def=d) for d in defs]
    with tf.name_scope("outer"):
        u = tf.Variable(3.0, name="u")
    exported = u.to_proto(export_scope="outer")
    scoped = tf.Variable.from_proto(exported, import_scope="outer")
    return {"defs": [str(d) for d in defs], "back": [_policy(b) for b in back],
            "back_elements": [[b.op.name, b.initializer.name, b.initial_value.name, b.value().name] for b in back],
            "exported": str(exported), "scoped": [scoped.name, scoped.initializer.name],
            "outside": w.to_proto(export_scope="elsewhere") is None,
            "globals": [g.name for g in tf.global_variables()]}


def case_variable_def_with_initial_value(tf, rewrites_off=False):
    v = tf.Variable(1.0, name="v")
    return _error(lambda: tf.Variable(2.0, variable_def=v.to_proto()))


def case_constraint_applied_after_the_update(tf, rewrites_off=False):
    var0 = tf.Variable([1.0, 2.0], name="var0", constraint=lambda x: tf.clip_by_value(x, -0.1, 0.0))
    var1 = tf.get_variable("var1", initializer=tf.constant([3.0, 4.0]),
                           constraint=lambda x: tf.clip_by_value(x, 0.0, 1.0))
    with tf.variable_scope("scoped", constraint=lambda x: x * 0.5):
        var2 = tf.get_variable("var2", initializer=tf.constant([8.0]))
    cost = 5 * var0 + 3 * var1 + tf.reduce_sum(var2)
    step = tf.train.GradientDescentOptimizer(3.0).minimize(cost)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        sess.run(step)
        values = sess.run([var0, var1, var2])
    return {"ops": graph_facts(tf), "values": _values(values)}


def case_constraint_on_a_sparse_update(tf, rewrites_off=False):
    v = tf.Variable([[1.0], [2.0]], name="v", constraint=lambda x: x)
    loss = tf.reduce_sum(tf.gather(v, [1]))
    return _error(lambda: tf.train.GradientDescentOptimizer(1.0).minimize(loss))


def case_variable_creators_see_the_policies(tf, rewrites_off=False):
    seen = []

    def outer(next_creator, **kwargs):
        seen.append(["outer", kwargs["name"], str(kwargs["synchronization"]), str(kwargs["aggregation"])])
        return next_creator(**kwargs)

    def inner(next_creator, **kwargs):
        kwargs["name"] = "renamed"
        return next_creator(**kwargs)

    with tf.variable_creator_scope(outer):
        with tf.variable_creator_scope(inner):
            made = tf.Variable(1.0, name="asked")
        got = tf.get_variable("g", [], aggregation=tf.VariableAggregation.MEAN)
    return {"seen": seen, "names": [made.name, got.name]}


def case_variable_scope_left_out_of_order(tf, rewrites_off=False):
    with tf.variable_scope("aa"):
        scope = tf.variable_scope("bb")
        scope.__enter__()
        with tf.variable_scope("cc"):
            error = _error(lambda: scope.__exit__(None, None, None))
            inside = tf.get_variable_scope().name
        scope.__exit__(None, None, None)
        after = tf.get_variable_scope().name
    return {"error": error, "inside": inside, "after": after}


def case_auxiliary_name_scope_not_a_bool(tf, rewrites_off=False):
    return _error(lambda: tf.variable_scope("s", auxiliary_name_scope="yes"))


def case_default_name_after_a_reentered_scope(tf, rewrites_off=False):
    names = []
    with tf.variable_scope("outer") as outer:
        with tf.variable_scope(outer, "default", []):
            names.append(tf.get_variable("w", []).name)
        with tf.variable_scope(None, "default", []):
            names.append(tf.get_variable("w", []).name)
    with tf.variable_scope(outer, "default", reuse=True):
        with tf.variable_scope(None, "default", []):
            names.append(tf.get_variable("w", []).name)
    return {"names": names}


def case_slots_of_a_partitioned_variable(tf, rewrites_off=False):
    p = tf.get_variable("emb", shape=[4, 3], initializer=tf.ones_initializer(),
                        partitioner=tf.fixed_size_partitioner(2))
    opt = tf.train.MomentumOptimizer(0.1, 0.9)
    step = opt.minimize(tf.reduce_sum(tf.concat(list(p), 0)))
    infos = []
    for shard in p:
        slot = opt.get_slot(shard, "momentum")
        info = slot._save_slice_info
        infos.append([slot.op.name, info.full_name, info.full_shape, info.var_offset, info.var_shape])
    return {"slots": infos, "step": step.type}


def case_adagrad_on_a_variable_of_unknown_shape(tf, rewrites_off=False):
    var = tf.get_variable("var0", initializer=tf.constant(1.0), validate_shape=False)
    opt = tf.train.AdagradOptimizer(lambda: 3.0, initial_accumulator_value=0.1, use_locking=True)
    update = opt.apply_gradients([(tf.constant(0.1), var)])
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for _ in range(3):
            sess.run(update)
        values = sess.run([var, opt.get_slot(var, "accumulator")])
    return {"slot_shape": str(opt.get_slot(var, "accumulator").shape), "values": _values(values)}


def _nones(grads):
    return [g is None for g in grads]


def case_gradient_tape_records_and_watches(tf, rewrites_off=False):
    x = tf.constant(3.0, name="x")
    before = x * 2.0
    v = tf.get_variable("v", initializer=2.0, use_resource=True)
    frozen = tf.get_variable("frozen", initializer=5.0, use_resource=True, trainable=False)
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(x)
        z = before * x * v * frozen
        with tape.stop_recording():
            hidden = x * x
        w = hidden * x
    grads = tape.gradient(z, [x, v, frozen, before])
    zero = tape.gradient(w, [x, frozen], unconnected_gradients=tf.UnconnectedGradients.ZERO)
    seeded = tape.gradient(w, x, output_gradients=tf.constant(2.0))
    with tf.GradientTape() as once:
        u = v * v
    first = once.gradient(u, v)
    again = _error(lambda: once.gradient(u, v))
    with tf.GradientTape(watch_accessed_variables=False) as manual:
        q = v * v
    unwatched = manual.gradient(q, v)
    fetch = [g for g in grads + zero + [seeded, first] if g is not None]
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        values = sess.run(fetch)
    return {"none": _nones(grads) + _nones(zero) + [unwatched is None],
            "watched": [var.name for var in tape.watched_variables()], "again": again, "values": _values(values)}


def case_recompute_grad_gives_the_plain_gradient(tf, rewrites_off=False):
    def block(x, scale):
        with tf.variable_scope("block", reuse=tf.AUTO_REUSE, use_resource=True):
            w = tf.get_variable("w", initializer=tf.constant([1.0, 2.0, 3.0]))
        return tf.tanh(x * w) * scale

    x = tf.constant([0.5, -1.0, 2.0], name="x")
    s = tf.constant(3.0, name="s")
    with tf.variable_scope("net", use_resource=True):
        re = tf.recompute_grad(block)
        y_re = tf.reduce_sum(re(x, s))
        y = tf.reduce_sum(block(x, s))
    w = [v for v in tf.global_variables() if v.name == "net/block/w:0"][0]
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        values = sess.run(tf.gradients(y_re, [x, s, w]) + tf.gradients(y, [x, s, w]) + [y_re, y])
    return {"wrapped": re.__wrapped__ is block, "values": _values(values)}


def case_gradients_helper_optimizes_identity_n(tf, rewrites_off=False):
    a, b = tf.constant(1.0, name="a"), tf.constant(2.0, name="b")
    c, d = tf.identity_n([a, b])
    helper = _gradients_helper(tf)
    return {"optimized": [helper(ys=d, xs=a, optimize_identity_n=True)[0] is None,
                          helper(ys=c, xs=b, optimize_identity_n=True)[0] is None,
                          helper(ys=c, xs=a, optimize_identity_n=True)[0] is None],
            "plain": [g is None for g in tf.gradients(d, a) + tf.gradients(c, b)]}


def _gradients_helper(tf):
    if tf.__name__.startswith("devlab"):
        from devlab.api.gradients import _GradientsHelper
        return _GradientsHelper
    from tensorflow.python.ops.gradients_util import _GradientsHelper
    return _GradientsHelper


CASES = {name[len("case_"):]: fn for name, fn in sorted(globals().items()) if name.startswith("case_")}
