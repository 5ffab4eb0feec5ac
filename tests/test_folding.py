"""A compiled program computes once what only constants feed (``runtime/folding.py``) and passes
an Identity's input on, and still computes exactly what the interpreter computes: a fetch never
hands out the value it keeps, and what reads a variable, a feed or a random generator runs
every time."""
import numpy as np
import pytest

import devlab as tf
from devlab.ops.table import OPS
from devlab.runtime import folding

TRACED = tf.RunOptions(trace_level=tf.RunOptions.FULL_TRACE)  # a traced run is interpreted op by op


def steady(sess, fetches, feed=None, runs=3):
    """The values of ``runs`` runs (the first interpreted, the later ones the compiled program's)."""
    out = [sess.run(fetches, feed) for _ in range(runs)]
    assert sess.compiled_program(sess.last_plan) is not None
    return out


def test_ops_fed_by_constants_only_run_once_and_give_the_interpreted_values():
    x = tf.placeholder(tf.float32, [4], name="x")
    shape = tf.stack([tf.constant(2), tf.constant(2)], name="shape")  # Pack of constants
    scale = tf.fill(tf.constant([2, 2]), 3.0, name="scale")  # Fill of constants
    offset = tf.reduce_sum(scale, name="offset") - 1.0  # and what they feed
    y = tf.reshape(x, shape, name="y") * scale + offset
    feed = {x: np.arange(4, dtype=np.float32)}
    sess = tf.Session()
    got = steady(sess, y, feed)
    program = sess.compiled_program(sess.last_plan)
    folded = {sess.last_plan.steps[i].op.name for i in program.folded}
    assert {"shape", "scale", "offset", "sub"} <= folded and "y" not in folded and "mul" not in folded
    assert "(Pack)" not in program.source and "(Fill)" not in program.source and "(Reshape)" in program.source
    want = np.arange(4, dtype=np.float32).reshape(2, 2) * 3 + 11
    for values in got:
        np.testing.assert_array_equal(values, want)
    assert sess.run(y, {x: np.ones(4, np.float32)}).tolist() == [[14.0, 14.0], [14.0, 14.0]]


def test_a_fetched_folded_value_is_a_fresh_array_every_run():
    c = tf.fill([3], 2.0, name="c")
    fetches = [c, tf.identity(c), tf.reshape(c, [3, 1]), c + 1.0]
    sess = tf.Session()
    first, second, third = steady(sess, fetches)
    assert sess.compiled_program(sess.last_plan).folded  # c and c + 1 are computed once ...
    for value in second:
        value[...] = -7.0  # ... yet changing what a run returned changes no later run
    for a, b in zip(first, sess.run(fetches)):
        np.testing.assert_array_equal(a, b)
    assert not any(np.shares_memory(a, b) for a in second for b in third)


def test_random_ops_variables_and_feeds_are_never_folded():
    with tf.Graph().as_default() as g:
        tf.set_random_seed(3)
        v = tf.Variable([1.0, 2.0], name="v")
        noise = tf.random_uniform([2], seed=1) + tf.constant(1.0)  # a random op's value changes each run
        read = v + tf.constant([10.0, 10.0])  # a variable's, as it is written
        step = tf.assign_add(v, [1.0, 1.0])
        with tf.control_dependencies([step]):
            out = tf.identity(noise) + read
    results = []
    for options in (None, TRACED):
        sess = tf.Session(graph=g)
        sess.run(v.initializer)
        results.append([sess.run(out, options=options) for _ in range(4)])
        if options is None:
            program = sess.compiled_program(sess.last_plan)
            folded = {sess.last_plan.steps[i].op.type for i in program.folded}
            assert not folded & {"RandomUniform", "AddV2", "AssignAdd"}
    compiled, interpreted = results
    for a, b in zip(compiled, interpreted):
        np.testing.assert_array_equal(a, b)
    assert not np.array_equal(compiled[1], compiled[2])  # the noise and the variable moved


def test_a_kernel_that_fails_on_constants_is_left_to_fail_when_it_runs():
    with tf.Graph().as_default() as g:
        ok = tf.add(tf.constant(2), tf.constant(3), name="ok")
        bad = tf.floormod(tf.constant(5), tf.constant(0), name="bad")  # integer division by zero
        x = tf.placeholder(tf.int32, [], name="x")
        out = [ok + x, bad + x]
    sess = tf.Session(graph=g)
    plan, _ = sess.prepare(out, {x: 1})
    folded = {plan.steps[i].op.name for i in folding.fold(plan)}
    assert "ok" in folded and "bad" not in folded
    with pytest.raises(tf.errors.InvalidArgumentError, match="Integer division by zero"):
        sess.run(out, {x: 1})


def test_an_identity_passes_its_input_on_in_the_program():
    x = tf.placeholder(tf.float32, [2], name="x")
    y = tf.identity(tf.exp(x), name="y")
    z = tf.stop_gradient(y, name="z") * 2.0
    sess = tf.Session()
    got = steady(sess, z, {x: [0.0, 1.0]})
    source = sess.compiled_program(sess.last_plan).source
    assert "(Identity)" in source and "(StopGradient)" in source  # shown, with no kernel called
    assert not any(line.split("=", 1)[1].lstrip().startswith("k") for line in source.splitlines()
                   if "(Identity)" in line or "(StopGradient)" in line)
    for values in got:
        np.testing.assert_allclose(values, [2.0, 2 * np.e], rtol=1e-6)


@pytest.mark.parametrize("op_type", sorted(t for t, d in OPS.items() if d.forwards))
def test_an_op_that_forwards_returns_its_input_itself(op_type):
    class K:
        xp, out, attrs = np, None, {}
    x = np.arange(3.0)
    assert OPS[op_type].kernel(K, x) is x and OPS[op_type].returns_view


@pytest.mark.parametrize("size", [16, 5000, 1 << 20], ids=["numexpr", "in-place", "split over the cores"])
def test_a_fused_chain_reads_a_folded_value_however_it_runs(size):
    x = tf.placeholder(tf.float32, [size], name="x")
    scale = tf.constant(2.0) * tf.constant(0.25)  # folded: a scalar the chain reads
    y = tf.exp(x * scale) + 1.0
    total = tf.reduce_sum(y)
    feed = {x: np.linspace(-1, 1, size).astype(np.float32)}
    with tf.Session() as sess:
        interpreted = sess.run(total, feed, options=TRACED)
        got = steady(sess, total, feed)
        program = sess.compiled_program(sess.last_plan)
        assert program.folded and program.groups
    for value in got:
        assert value == interpreted
    np.testing.assert_allclose(got[-1], np.sum(np.exp(feed[x] * 0.5) + 1.0, dtype=np.float64), rtol=1e-5)
