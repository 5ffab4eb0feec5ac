"""A variable read that enters a while loop as an invariant is read afresh in every iteration
(TF's Enter forwards the variable's buffer): a loop whose body updates a variable sees each
update, in its condition and its body, in the interpreter and in the compiled program alike.
The values are TF 2.21's (its control_flow_ops_py_test testWhileUpdateVariable_5 and _6)."""
from unittest import mock

import devlab as tf
from devlab.runtime import flow_program
from devlab.runtime.flow_program import FlowProgram


def _twice(build):
    """(the variables' values after the first run, interpreted, and after the second run from fresh
    values, the compiled program's), and whether the second run was compiled."""
    with tf.Graph().as_default():
        loop, variables = build()
        init = tf.global_variables_initializer()
        sess = tf.Session()
        values = []
        for _ in range(2):
            sess.run(init)
            sess.run(loop)
            plan = sess.last_plan
            values.append(sess.run(variables))
        return values, isinstance(sess.compiled_program(plan), FlowProgram)


def _body_reads_what_it_updated():
    var_a = tf.Variable(0, name="a")
    var_b = tf.Variable(0, name="b")

    def body(i):
        asn1 = tf.assign_add(var_a, 1, name="a_add")
        with tf.control_dependencies([asn1]):
            asn2 = tf.assign_add(var_b, var_a, name="b_add")
        with tf.control_dependencies([asn2]):
            return tf.add(i, 1, name="i_add")
    return tf.while_loop(lambda i: tf.less(i, 10), body, [tf.constant(0)], parallel_iterations=1), [var_a, var_b]


def _condition_reads_what_the_body_updated():
    var_a = tf.Variable(0, name="a")
    var_b = tf.Variable(0, name="b")

    def body(i):
        asn1 = tf.assign_add(var_a, tf.constant(1), name="a_add")
        asn2 = tf.assign_add(var_b, tf.constant(1), name="b_add")
        with tf.control_dependencies([asn1, asn2]):
            return tf.identity(var_b)
    return tf.while_loop(lambda _: tf.less(var_b, 10), body, [var_b], parallel_iterations=1), [var_a, var_b]


def test_the_body_reads_each_update_of_a_variable():
    values, compiled = _twice(_body_reads_what_it_updated)
    assert values == [[10, 55], [10, 55]]  # TF: b = 1 + 2 + ... + 10
    assert compiled


def test_the_condition_reads_each_update_of_a_variable():
    values, compiled = _twice(_condition_reads_what_the_body_updated)
    assert values == [[10, 10], [10, 10]]
    assert not compiled  # its loop variable's Enter reads b: the interpreter runs it


def test_interpreted_runs_agree():
    with mock.patch.object(flow_program, "build", lambda plan: None):
        values, compiled = _twice(_body_reads_what_it_updated)
    assert values == [[10, 55], [10, 55]] and not compiled
