"""Compiled programs of plans with control flow (``runtime/flow_program.py``): while loops,
dynamic_rnn and its gradient (stacks), nested loops and tf.cond inside loops compute, fetch and
fail exactly as the step-by-step interpreter does."""
from unittest import mock

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import devlab as tf
from devlab.api.control_flow import switch
from devlab.runtime import flow_program
from devlab.runtime.flow_program import FlowProgram


def interpreted(fn):
    """``fn()`` with the control-flow compiler turned off: every run is the interpreter's."""
    with mock.patch.object(flow_program, "build", lambda plan: None):
        return fn()


def runs(fetches, feed=None, times=3, graph=None, init=None):
    """The results of ``times`` runs in a fresh session (the first interpreted, the later ones the
    compiled program's), and the session."""
    sess = tf.Session(graph=graph or tf.get_default_graph())
    if init is not None:
        sess.run(init)
    return [sess.run(fetches, feed) for _ in range(times)], sess


def assert_same(a, b):
    if isinstance(a, (list, tuple)):
        assert len(a) == len(b)
        for x, y in zip(a, b):
            assert_same(x, y)
    else:
        np.testing.assert_allclose(np.asarray(a, np.float64), np.asarray(b, np.float64), rtol=1e-6, atol=1e-6)
        assert np.asarray(a).dtype == np.asarray(b).dtype


def check(fetches, feed=None, init=None, times=3):
    """Runs ``fetches`` compiled and interpreted; both give the same values; returns the program."""
    compiled, sess = runs(fetches, feed, times, init=init)
    program = sess.compiled_program(sess.last_plan)
    assert isinstance(program, FlowProgram), "the steady run is the compiled program's"
    expected, _ = interpreted(lambda: runs(fetches, feed, times, init=init))
    assert_same(compiled, expected)
    return program


def test_a_while_loop_runs_as_a_python_loop():
    x = tf.placeholder(tf.float32, [3])
    i, acc = tf.while_loop(lambda i, a: i < 7, lambda i, a: (i + 1, a * 1.5 + tf.cast(i, tf.float32)),
                           [tf.constant(0), x])
    program = check([i, acc], {x: np.array([1.0, -2.0, 0.5], np.float32)})
    assert "while True:" in program.source and "is DEAD" not in program.source  # deadness known when compiling


@pytest.mark.parametrize("n", [0, 1, 5])
def test_loops_of_zero_one_and_more_iterations(n):
    limit = tf.placeholder(tf.int32, [])
    i, acc = tf.while_loop(lambda i, a: i < limit, lambda i, a: (i + 1, a + tf.square(a)), [0, tf.constant(0.25)])
    check([i, acc], {limit: n})


def test_nested_loops():
    x = tf.placeholder(tf.float32, [2])

    def outer(j, s):
        _, inner = tf.while_loop(lambda k, t: k < j, lambda k, t: (k + 1, t + tf.cast(k, tf.float32)), [0, s])
        return j + 1, inner

    j, s = tf.while_loop(lambda j, s: j < 4, outer, [0, x])
    grad = tf.gradients(tf.reduce_sum(s * s), x)
    check([j, s, grad], {x: np.array([1.0, 2.0], np.float32)})


def test_a_cond_inside_a_loop_and_its_gradient():
    x = tf.placeholder(tf.float32, [3])

    def body(i, a):
        return i + 1, tf.cond(tf.reduce_sum(a) > 5.0, lambda: a * 0.5, lambda: a + 1.0)

    i, a = tf.while_loop(lambda i, a: i < 10, body, [tf.constant(0), x])
    grad = tf.gradients(tf.reduce_sum(a * a), x)
    program = check([i, a, grad], {x: np.array([1.0, 2.0, 3.0], np.float32)})
    assert "is DEAD" in program.source  # the branch taken is known only when it runs ...
    merge = next(s for s in program.plan.flat_steps() if s.op.name == "while/cond/Merge")
    assert f"s{merge.outputs[0]} is DEAD" not in program.source  # ... but one of the two is


def test_a_cond_outside_loops_and_its_untaken_side_fetched():
    p = tf.placeholder(tf.bool, [])
    x = tf.placeholder(tf.float32, [2])
    y = tf.cond(p, lambda: x * 2.0, lambda: x - 1.0)
    for taken in (True, False):
        check(y, {p: taken, x: np.array([3.0, 4.0], np.float32)})
    # a value on the untaken side of a Switch: TF's error, compiled as interpreted
    _, sw_true = switch(x, p)
    sess = tf.Session()
    feed = {p: False, x: np.array([3.0, 4.0], np.float32)}
    for _ in range(3):
        with pytest.raises(tf.errors.InvalidArgumentError, match="does not have value"):
            sess.run(sw_true, feed)


def test_dynamic_rnn_training_steps_equal_the_interpreter():
    def train_losses():
        g = tf.Graph()
        with g.as_default():
            tf.set_random_seed(1)
            words = tf.placeholder(tf.int32, [3, 4])
            targets = tf.placeholder(tf.int32, [3, 4])
            with tf.variable_scope("m", initializer=tf.random_uniform_initializer(-0.3, 0.3, seed=2)):
                emb = tf.get_variable("emb", [10, 8])
                cell = tf.nn.rnn_cell.MultiRNNCell([tf.nn.rnn_cell.LSTMCell(8) for _ in range(2)])
                out, _ = tf.nn.dynamic_rnn(cell, tf.nn.embedding_lookup(emb, words), dtype=tf.float32)
                logits = tf.layers.dense(tf.reshape(out, [-1, 8]), 10)
            loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(
                labels=tf.reshape(targets, [-1]), logits=logits))
            train = tf.train.GradientDescentOptimizer(0.5).minimize(loss)
            init = tf.global_variables_initializer()
            variables = tf.global_variables()
        rng = np.random.default_rng(0)
        feed = {words: rng.integers(0, 10, (3, 4)).astype(np.int32),
                targets: rng.integers(0, 10, (3, 4)).astype(np.int32)}
        sess = tf.Session(graph=g)
        sess.run(init)
        losses = [sess.run([loss, train], feed)[0] for _ in range(4)]
        program = sess.compiled_program(sess.last_plan)
        return losses, sess.run(variables), program

    losses, values, program = train_losses()
    assert isinstance(program, FlowProgram)
    assert program.source.count("summed_products(") == 2  # each layer's kernel gradient: one product
    expected_losses, expected_values, none = interpreted(train_losses)
    assert none is None
    assert_same(losses, expected_losses)
    assert_same(values, expected_values)
    assert losses[-1] < losses[0]


def test_a_failing_op_in_a_loop_is_reported_as_the_interpreter_reports_it():
    m = tf.placeholder(tf.float32, [None, None])
    i, acc = tf.while_loop(lambda i, a: i < 3, lambda i, a: (i + 1, tf.matmul(a, m)), [0, tf.ones([2, 2])],
                           shape_invariants=[tf.TensorShape([]), tf.TensorShape([None, None])])
    sess = tf.Session()
    good, bad = {m: np.eye(2, dtype=np.float32)}, {m: np.ones((3, 3), np.float32)}
    sess.run(acc, good)
    with pytest.raises(tf.errors.InvalidArgumentError) as first:
        sess.run(acc, bad)
    sess.run(acc, good)
    assert isinstance(sess.compiled_program(sess.last_plan), FlowProgram)
    with pytest.raises(tf.errors.InvalidArgumentError) as compiled:
        sess.run(acc, bad)
    assert compiled.value.op is first.value.op and compiled.value.op.type == "MatMul"
    assert str(compiled.value) == str(first.value)


@pytest.mark.parametrize("transpose_a", [False, True])
@pytest.mark.parametrize("transpose_b", [False, True])
@pytest.mark.parametrize("n", [0, 1, 6])
def test_a_loop_summing_one_product_a_step_sums_them_as_one(transpose_a, transpose_b, n):
    rng = np.random.default_rng(5)
    xs = tf.constant(rng.standard_normal((6, 4, 3)).astype(np.float32))
    w = tf.constant(rng.standard_normal((3, 5) if not transpose_b else (5, 3)).astype(np.float32))
    limit = tf.placeholder(tf.int32, [])

    def body(i, acc):
        x = tf.gather(xs, i)
        x = tf.transpose(x) if transpose_a else x
        return i + 1, acc + tf.matmul(x, w, transpose_a=transpose_a, transpose_b=transpose_b)

    _, total = tf.while_loop(lambda i, acc: i < limit, body, [0, tf.ones([4, 5])])
    program = check(total, {limit: n})
    assert "summed_products(" in program.source and "stash" in program.source


@settings(max_examples=20, deadline=None)
@given(ops=st.lists(st.tuples(st.integers(0, 3), st.floats(-2.0, 2.0)), min_size=1, max_size=5),
       n=st.integers(0, 3))
def test_conds_nested_in_loops_compute_what_the_interpreter_computes(ops, n):
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [3])

        def body(i, a, b):
            for kind, c in ops:
                if kind == 0:
                    a = tf.cond(tf.reduce_sum(a) > c, lambda: a * 0.5, lambda: a + b)
                elif kind == 1:
                    b = tf.cond(tf.reduce_max(b) < c,
                                lambda: tf.cond(tf.reduce_min(a) > 0.0, lambda: b - a, lambda: b * a),
                                lambda: b + 1.0)
                elif kind == 2:
                    a, b = b, a
                else:
                    a = tf.tanh(a) + b
            return i + 1, a, b

        _, a, b = tf.while_loop(lambda i, a, b: i < n, body, [0, x, x * 2.0])
        grad = tf.gradients(tf.reduce_sum(a * b), x)[0]
        check([a, b, grad], {x: np.array([0.5, -1.0, 2.0], np.float32)})


def test_a_loop_that_updates_a_variable_reads_each_update():
    v = tf.Variable(tf.zeros([1, 2]))
    w = tf.Variable([[1.0, 0.5], [0.0, 1.0]])

    def body(i, acc):
        with tf.control_dependencies([tf.assign_add(v, tf.ones([1, 2]))]):
            return i + 1, acc + tf.matmul(v.read_value(), w)  # a product of what the variable holds now

    _, acc = tf.while_loop(lambda i, acc: i < 4, body, [0, tf.zeros([1, 2])])
    init = tf.global_variables_initializer()
    compiled, sess = runs([acc, v.read_value()], init=init)
    assert isinstance(sess.compiled_program(sess.last_plan), FlowProgram)
    expected, _ = interpreted(lambda: runs([acc, v.read_value()], init=init))
    assert_same(compiled, expected)
    assert compiled[0][0].tolist() == [[10.0, 15.0]] and compiled[2][1].tolist() == [[12.0, 12.0]]


def test_a_loop_that_writes_a_variable_it_reads_through_an_enter_compiles():
    """A loop that writes a variable read through a constant Enter: the Enter hands on the
    variable itself (TF forwards its buffer), each reader reads it when it runs, so the compiled
    program (whose Enters run first) computes what the interpreter computes."""
    v = tf.Variable(tf.zeros([2]))
    w = tf.Variable([[1.0, 0.5], [0.0, 1.0]])

    def body(i, acc):
        with tf.control_dependencies([tf.assign_add(v, tf.ones([2]))]):
            x = tf.reshape(v, [1, 2])
        return i + 1, acc + tf.matmul(x, w)

    _, acc = tf.while_loop(lambda i, acc: i < 4, body, [0, tf.zeros([1, 2])])
    init = tf.global_variables_initializer()
    compiled, sess = runs(acc, init=init)
    expected, _ = interpreted(lambda: runs(acc, init=init))
    assert_same(compiled, expected)
    assert isinstance(sess.compiled_program(sess.last_plan), FlowProgram)


def test_a_loop_invariant_read_of_a_variable_the_loop_writes_runs_in_the_interpreters_order():
    v = tf.Variable(tf.zeros([2]))
    step = tf.constant([1.0, 2.0])

    def body(i, acc):
        add = tf.assign_add(v, step)  # reads only values from outside the loop: runs before the condition
        doubled = v * 2.0  # so does this read
        with tf.control_dependencies([add]):
            return i + 1, acc + doubled

    _, acc = tf.while_loop(lambda i, acc: i < 3, body, [0, tf.zeros([2])])
    init = tf.global_variables_initializer()
    compiled, _ = runs(acc, init=init)
    expected, _ = interpreted(lambda: runs(acc, init=init))
    assert_same(compiled, expected)
