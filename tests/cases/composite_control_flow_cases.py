"""Control flow carrying IndexedSlices and SparseTensors (one Switch/Merge/Enter per component),
references passed on (RefIdentity, RefSelect, RefSwitch), ``tf.tuple`` and ``with_dependencies``
of IndexedSlices, queues chosen at run time (``FIFOQueue.from_list``), and TF's words for
structures that do not match (``nest``), recorded under TensorFlow 2.21
(``tools/record_cases.py composite_control_flow tests/data/tf_composite_control_flow.json``) and
compared by tests/test_composite_control_flow.py."""
import collections

import numpy as np

from control_flow_cases import graph_facts, run
from rnn_cases import _values
from script_cases import _error


def _control_flow_ops(tf):
    """TF's module of the control-flow primitives (devlab's own under devlab)."""
    if tf.__name__.startswith("devlab"):
        from devlab.api import control_flow, control_flow_ops, ref_ops
        return type("M", (), {"switch": staticmethod(control_flow.switch), "merge": staticmethod(control_flow.merge),
                              "_Identity": staticmethod(control_flow_ops._Identity),
                              "with_dependencies": staticmethod(control_flow_ops.with_dependencies),
                              "_SwitchRefOrTensor": staticmethod(control_flow._SwitchRefOrTensor),
                              "ref_select": staticmethod(ref_ops.ref_select)})
    from tensorflow.python.ops import control_flow_ops
    return control_flow_ops


def _facts(tf, fetch, feed=None, rewrites_off=False):
    facts = {"ops": graph_facts(tf)}
    placed, value = run(tf, fetch, feed, rewrites_off=rewrites_off)
    facts.update(placed=placed, values=_values(value))
    return facts


def case_cond_of_indexed_slices_with_int32_and_int64_indices(tf, rewrites_off=False):
    values = tf.constant([10.0], name="values")
    i32 = tf.constant([0], dtype=tf.int32, name="i32")
    i64 = tf.constant([0], dtype=tf.int64, name="i64")
    pred = tf.placeholder(tf.bool, [], name="pred")
    r = tf.cond(pred, lambda: tf.IndexedSlices(values + 1, i32), lambda: tf.IndexedSlices(values - 1, i64))
    facts = _facts(tf, [r.values, r.indices], {pred: True}, rewrites_off=rewrites_off)
    _, no = run(tf, [r.values, r.indices], {pred: False}, rewrites_off=rewrites_off)
    facts["values_false"] = _values(no)
    facts["index_dtype"] = r.indices.dtype.name
    return facts


def case_cond_of_sparse_tensors(tf, rewrites_off=False):
    values = tf.constant([2.0, 4.0], name="values")
    indices = tf.constant([[0], [3]], dtype=tf.int64, name="indices")
    shape = tf.constant([10], dtype=tf.int64, name="dense_shape")
    x = tf.SparseTensor(indices, values, dense_shape=shape)
    r = tf.cond(tf.constant(True), lambda: tf.SparseTensor(indices + 1, x.values + 1, dense_shape=shape),
                lambda: tf.SparseTensor(indices, x.values - 1, dense_shape=shape))
    facts = _facts(tf, [r.indices, r.values, r.dense_shape], rewrites_off=rewrites_off)
    facts["shapes"] = [str(r.indices.shape), str(r.values.shape), str(r.dense_shape.shape)]
    return facts


def case_switch_merge_and_identity_of_composites(tf, rewrites_off=False):
    cfo = _control_flow_ops(tf)
    data = tf.IndexedSlices(tf.constant([1, 2, 3]), tf.constant([0, 2, 4]))
    f, t = cfo.switch(data, tf.constant(True))
    merged, index = cfo.merge([f, t])
    st = tf.SparseTensor([[0, 5]], ["x"], [10, 10])
    st2 = cfo._Identity(st)
    return _facts(tf, [merged.values, merged.indices, index, st2.indices, st2.dense_shape],
                  rewrites_off=rewrites_off)


def case_while_loop_of_composites_and_its_gradient(tf, rewrites_off=False):
    values = tf.constant([2.0, 4.0], name="values")
    i = tf.constant(0, name="i")
    x = tf.IndexedSlices(values, tf.constant([0, 3], name="indices"), tf.constant([10], name="dense_shape"))
    _, r = tf.while_loop(lambda i, _: i < 10, lambda i, x: [i + 1, tf.IndexedSlices(x.values * 2.0, x.indices,
                                                                                     x.dense_shape)], [i, x])
    sv = tf.constant([1.0, 3.0], name="svalues")
    s = tf.SparseTensor(tf.constant([[0], [3]], dtype=tf.int64), sv, tf.constant([10], dtype=tf.int64))
    _, rs = tf.while_loop(lambda i, _: i < 3, lambda i, s: [i + 1, tf.SparseTensor(s.indices, s.values * 3.0,
                                                                                    s.dense_shape)], [i, s])
    g = tf.gradients(r.values, values)[0]
    gs = tf.gradients(rs.values, sv)[0]
    facts = _facts(tf, [r.values, r.indices, g, rs.values, gs], rewrites_off=rewrites_off)
    facts["shapes"] = [str(r.values.shape), str(rs.indices.shape), str(rs.values.shape), str(rs.dense_shape.shape)]
    facts["bad_invariant"] = _error(lambda: tf.while_loop(lambda i, _: i < 3, lambda i, s: [i + 1, s], [i, s],
                                                          [i.get_shape(), tf.TensorShape([5])]))
    return facts


def case_tuple_and_with_dependencies_of_indexed_slices(tf, rewrites_off=False):
    cfo = _control_flow_ops(tf)
    v = tf.Variable(np.array([[0.0, 1.0], [10.0, 11.0]], np.float32), name="v")
    at_1 = tf.IndexedSlices(v, tf.constant([1]))
    after = cfo.with_dependencies([v.initializer], at_1)
    a, b = tf.tuple([after, tf.constant(5.0, name="five")])
    return _facts(tf, [tf.gather(a.values, a.indices), b], rewrites_off=rewrites_off)


def case_references_passed_on(tf, rewrites_off=False):
    cfo = _control_flow_ops(tf)
    v = tf.Variable(7, name="v")
    w = tf.Variable(3, name="w")
    ref = cfo._Identity(v)
    assign = tf.assign(ref, 9)
    read = cfo.with_dependencies([assign], ref)
    sw = cfo._SwitchRefOrTensor(w._ref(), tf.constant(True))
    assign_w = tf.assign(sw[1], 4)
    sel = cfo.ref_select(tf.constant(1), [v, w])
    facts = {"ops": graph_facts(tf), "dtypes": [ref.dtype.name, read.dtype.name, sw[1].dtype.name, sel.dtype.name],
             "sel_shape": str(sel.shape)}
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        facts["values"] = _values(sess.run([read, assign_w]))
    return facts


def case_structure_errors_in_tensorflows_words(tf, rewrites_off=False):
    named = collections.namedtuple("named", ("a", "b"))
    loop_vars = [named(a=tf.constant(0.0), b=tf.constant(1.0)), (tf.constant(2.0), tf.constant(3.0)),
                 tf.constant(4.0)]
    x = tf.constant([2.0, 4.0], name="x")
    i = tf.constant(0, name="i")
    return {"arity": _error(lambda: tf.while_loop(lambda a, b, c: a.a < 100.0, lambda a, b, c: [a, b], loop_vars)),
            "nesting": _error(lambda: tf.while_loop(lambda i, *x: i < 10, lambda i, *x: (i, i) + x, [i, (x,)])),
            "cond_structure": _error(lambda: tf.cond(tf.constant(True), lambda: (i, i), lambda: i)),
            "cond_types": _error(lambda: tf.cond(tf.constant(True), lambda: i, lambda: x)),
            "cond_bool": _error(lambda: tf.cond(False, lambda: i, lambda: i))}


def case_queue_chosen_when_the_graph_runs(tf, rewrites_off=False):
    q1 = tf.FIFOQueue(10, tf.float32, name="q1")
    q2 = tf.FIFOQueue(15, tf.float32, name="q2")
    index = tf.placeholder(tf.int32, [], name="index")
    q = tf.FIFOQueue.from_list(index, [q1, q2])
    enqueue = q.enqueue((3.0,))
    facts = {"ops": graph_facts(tf), "container": q1.queue_ref.op.get_attr("container").decode()}
    with tf.Session() as sess:
        sess.run(enqueue, {index: 1})
        facts["values"] = _values(sess.run([q1.size(), q2.size(), q2.dequeue()]))
        facts["out_of_range"] = _error(lambda: sess.run(q.dequeue(), {index: 3}))
    facts["mismatch"] = _error(lambda: tf.FIFOQueue.from_list(0, [q1, tf.FIFOQueue(3, tf.int32)]))
    return facts


def _raw_ops(tf):
    """(gen_state_ops.variable, control_flow_ops.ref_switch, gen_array_ops.ref_identity, merge)."""
    if tf.__name__.startswith("devlab"):
        from devlab.api import control_flow, gen_state_ops, ref_ops
        return gen_state_ops.variable, ref_ops.ref_switch, ref_ops.ref_identity, control_flow.merge
    from tensorflow.python.ops import control_flow_ops, gen_array_ops, gen_state_ops
    return gen_state_ops.variable, control_flow_ops.ref_switch, gen_array_ops.ref_identity, control_flow_ops.merge


def case_an_uninitialized_reference_through_a_ref_switch(tf, rewrites_off=False):
    variable, ref_switch, ref_identity, merge = _raw_ops(tf)
    v = variable(shape=[1], dtype=tf.float32, name="v", container="", shared_name="")
    inited = tf.is_variable_initialized(v)
    v_f, v_t = ref_switch(v, inited)
    v_f_op, v_t_op = ref_identity(v_f), ref_identity(v_t)
    with tf.control_dependencies([v_f_op]):
        assign_v = tf.assign(v, [1.0])
    with tf.control_dependencies([v_t_op]):
        orig_v = tf.identity(v)
    merged = merge([assign_v, orig_v])
    facts = {"ops": graph_facts(tf), "dtypes": [v.dtype.name, v_f.dtype.name, v_f_op.dtype.name],
             "fields": [merged.output.name, merged.value_index.name]}
    with tf.Session() as sess:
        facts["values"] = _values(sess.run([merged.output, merged.value_index]))
        facts["again"] = _values(sess.run(merged.output))  # now initialized: the other side
    return facts


CASES = {name[len("case_"):]: fn for name, fn in sorted(globals().items()) if name.startswith("case_")}
