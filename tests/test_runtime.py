"""The runtime's guarantees: a run commits all of its variable writes or none, runs in threads
are isolated, the stepper's writes are its own, and a compiled program computes exactly what
the step-by-step interpreter computes (fused or not, with or without numexpr)."""
import threading
from unittest import mock

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import devlab as tf
from devlab.runtime import fusion


def run_three_times(sess, fetch, feed=None):
    """The first run is interpreted, the later ones run the compiled program."""
    return [sess.run(fetch, feed) for _ in range(3)]


def test_threads_keep_their_own_writes_and_a_failure_commits_none():
    good = tf.Variable(0.0, name="good")
    bad = tf.Variable(0.0, name="bad")
    x = tf.placeholder(tf.float32, [None, None])
    up_good = good.assign_add(1.0)
    up_bad = bad.assign_add(1.0)
    with tf.control_dependencies([up_bad]):
        fails = tf.matmul(x, x)  # fails at run time on a non-square feed, after `bad` was written
    sess = tf.Session()
    sess.run(tf.global_variables_initializer())
    errors = []

    def failing():
        for _ in range(100):
            try:
                sess.run(fails, {x: [[1.0, 2.0]]})
            except tf.errors.InvalidArgumentError as e:
                errors.append(e)

    def succeeding():
        for _ in range(100):
            sess.run(up_good)

    threads = [threading.Thread(target=failing), threading.Thread(target=succeeding)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(errors) == 100
    assert sess.run(good) == 100.0 and sess.run(bad) == 0.0


def test_concurrent_updates_of_one_variable_are_serialised():
    v = tf.Variable(0.0, name="v")
    inc = v.assign_add(1.0)
    sess = tf.Session()
    sess.run(v.initializer)
    threads = [threading.Thread(target=lambda: [sess.run(inc) for _ in range(200)]) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sess.run(v) == 800.0


def test_a_fetch_that_fails_commits_nothing():
    v = tf.Variable(1.0, name="v")
    w = tf.Variable(2.0, name="w")  # never initialised: fetching it fails after every step ran
    inc = v.assign_add(10.0)
    sess = tf.Session()
    sess.run(v.initializer)
    with pytest.raises(tf.errors.FailedPreconditionError, match="uninitialized value w"):
        sess.run([inc, w._ref()])
    assert sess.run(v) == 1.0


def test_stepper_back_leaves_the_writes_of_runs_made_meanwhile():
    v = tf.Variable(1.0, name="v")
    w = tf.Variable(0.0, name="w")
    inc = v.assign_add(1.0)
    set_w = w.assign(5.0)
    sess = tf.Session()
    sess.run(tf.global_variables_initializer())
    stepper = sess.stepper(inc)
    stepper.run_to(len(stepper.steps))
    sess.run(set_w)  # another run commits while the stepper is half-way through its own
    stepper.back()
    assert sess.run(w) == 5.0
    assert stepper.finish() == 2.0 and sess.run(v) == 2.0 and sess.run(w) == 5.0


def test_a_stepper_abandoned_half_way_leaks_nothing():
    v = tf.Variable(1.0, name="v")
    inc = v.assign_add(10.0)
    sess = tf.Session()
    sess.run(v.initializer)
    stepper = sess.stepper(inc)
    stepper.run_to(len(stepper.steps))  # every step ran, but the run was never finished
    assert sess.run(v) == 1.0
    assert sess.run(inc) == 11.0  # the next run starts from the committed value, once
    del stepper
    assert sess.run(inc) == 21.0


def test_stepper_replays_random_ops_the_same_way():
    r = tf.random_uniform([3], name="r")
    y = r * 2.0
    sess = tf.Session()
    stepper = sess.stepper(y)
    stepper.run_to(len(stepper.steps))
    first = stepper.history[-1].outputs[0][1]
    stepper.back()
    stepper.run_to(len(stepper.steps))
    assert np.array_equal(stepper.history[-1].outputs[0][1], first)


def test_runs_leave_the_cached_plan_as_compiled():
    """A plan is shared by every run of (fetches, feeds): runs never write into it. What they make
    of it (the compiled program of the steady runs) is kept beside it, by the session."""
    x = tf.placeholder(tf.float32, [4], name="x")
    y = tf.tanh(x * 2.0 + 1.0)
    sess = tf.Session()
    feed = {x: np.arange(4, dtype=np.float32)}
    plan, _ = sess.prepare(y, feed)
    before = {name: id(value) for name, value in vars(plan).items()}
    runs = run_three_times(sess, y, feed)
    assert sess.last_plan is plan and {name: id(value) for name, value in vars(plan).items()} == before
    program = sess.compiled_program(plan)
    assert program is not None and "tanh" in program.source.lower()
    np.testing.assert_array_equal(runs[2], np.tanh(np.arange(4, dtype=np.float32) * 2 + 1))


def training_step(seed=0):
    """A linear model trained on a fed batch: (placeholders x and y, weights, the minimize op, loss)."""
    rng = np.random.default_rng(seed)
    with tf.device("/cpu:0"):
        x = tf.placeholder(tf.float32, [None, 3], name="x")
        y = tf.placeholder(tf.float32, [None, 1], name="y")
    with tf.device("/gpu:0"):
        w = tf.Variable(rng.standard_normal((3, 1)).astype(np.float32), name="w")
        b = tf.Variable(np.zeros(1, np.float32), name="b")
        loss = tf.reduce_mean(tf.square(tf.matmul(x, w) + b - y))
    train = tf.train.GradientDescentOptimizer(0.1).minimize(loss)
    batches = [(rng.standard_normal((4, 3)).astype(np.float32), rng.standard_normal((4, 1)).astype(np.float32))
               for _ in range(3)]
    return x, y, (w, b), train, loss, batches


def test_a_training_loop_stepped_to_the_end_trains_as_session_run_does():
    """Every training loop feeds its batches: a stepper over such a step, run to the end and
    finished, leaves the variables exactly where ``sess.run`` with the same feeds leaves them."""
    values = {}
    for how in ("run", "stepper"):
        with tf.Graph().as_default():
            x, y, weights, train, loss, batches = training_step()
            sess = tf.Session(config=tf.ConfigProto(device_count={"GPU": 1}))
            sess.run(tf.global_variables_initializer())
            for bx, by in batches:
                feed = {x: bx, y: by}
                if how == "run":
                    got = sess.run([train, loss], feed)
                    continue
                stepper = sess.stepper([train, loss], feed)
                assert [name for name, _, _ in stepper.feeds] == ["x:0", "y:0"]
                np.testing.assert_array_equal(stepper.feeds[0][2], bx)
                stepper.run_to(3)
                stepper.back()  # a replay feeds the same batch again
                stepper.run_to_end()
                fed = [v for v in stepper.history if v.fed]
                assert fed and {n for v in fed for n in v.fed} == {"x:0", "y:0"}
                copy = next(v for v in stepper.history if v.kind == "transfer" and v.fed == ("x:0",))
                np.testing.assert_array_equal(copy.inputs[0][1], bx)  # the batch entering the GPU
                got = stepper.finish()
            values[how] = [sess.run(v) for v in weights] + [got[1]]
    for a, b in zip(values["run"], values["stepper"]):
        np.testing.assert_array_equal(a, b)


def test_training_in_place_never_touches_a_constant_initial_value():
    init = tf.constant([1.0, 2.0], name="init")
    v = tf.Variable(init, name="v")
    loss = tf.reduce_sum(tf.square(v))
    train = tf.train.MomentumOptimizer(0.1, 0.9).minimize(loss)
    sess = tf.Session()
    sess.run(tf.global_variables_initializer())
    for _ in range(5):
        sess.run(train)
    sess.run(v.initializer)
    assert sess.run(v).tolist() == [1.0, 2.0] and sess.run(init).tolist() == [1.0, 2.0]


def test_a_value_assigned_to_two_variables_is_never_updated_in_place_under_the_other():
    a = tf.Variable([1.0, 2.0], name="a")
    b = tf.Variable([0.0, 0.0], name="b")
    copy = b.assign(a)
    train = tf.train.GradientDescentOptimizer(1.0).minimize(tf.reduce_sum(a))
    sess = tf.Session()
    sess.run(tf.global_variables_initializer())
    for _ in range(3):
        sess.run(train)
    sess.run(copy)  # b now holds a's current array
    for _ in range(3):
        sess.run(train)  # a's updates go to spare buffers, never into b's value
    assert sess.run(b).tolist() == [-2.0, -1.0] and sess.run(a).tolist() == [-5.0, -4.0]


def test_fetched_results_of_planned_buffers_survive_the_next_run():
    x = tf.placeholder(tf.float32, [600, 600])
    y = tf.matmul(x, x)  # 1.4 MB: its slot gets a planned buffer in the compiled program
    z = tf.reduce_sum(y)
    sess = tf.Session()
    ones = np.ones((600, 600), np.float32)
    got = [sess.run([y, z], {x: ones * k}) for k in (1.0, 2.0, 3.0, 4.0)]
    assert [g[0][0, 0] for g in got] == [600.0, 2400.0, 5400.0, 9600.0]
    assert sess.compiled_program(sess.last_plan) and not sess.compiled_program(sess.last_plan).buffers  # y is fetched: no buffer
    w = tf.matmul(tf.matmul(x, x), x)  # both products stay inside the run: planned buffers
    u = tf.reduce_sum(w)
    first = run_three_times(sess, u, {x: ones})
    assert len(sess.compiled_program(sess.last_plan).buffers) == 2 and first[0] == first[1] == first[2]


def test_a_failing_op_in_a_compiled_program_is_reported_as_the_interpreter_reports_it():
    x = tf.placeholder(tf.float32, [None, None])
    y = tf.placeholder(tf.float32, [None, None])
    z = tf.exp(x + y) * 2.0 - 1.0  # a fused chain
    sess = tf.Session()
    ok = {x: np.ones((2, 3)), y: np.ones((2, 3))}
    bad = {x: np.ones((2, 3)), y: np.ones((4, 5))}
    sess.run(z, ok)
    with pytest.raises(tf.errors.InvalidArgumentError) as interpreted:
        sess.run(z, bad)
    sess.run(z, ok)
    assert sess.compiled_program(sess.last_plan)
    with pytest.raises(tf.errors.InvalidArgumentError) as compiled:
        sess.run(z, bad)
    assert compiled.value.op is interpreted.value.op is (x + y).graph.get_operation_by_name("add")


def test_program_source_reads_as_the_steps_it_runs():
    with tf.device("/cpu:0"):
        a = tf.placeholder(tf.float32, [4], name="a")
        b = tf.sin(a, name="b")
    with tf.device("/cpu:1"):
        c = tf.matmul(tf.reshape(b, [2, 2]), tf.reshape(b, [2, 2]), name="c")
    sess = tf.Session(config=tf.ConfigProto(device_count={"CPU": 2}))
    run_three_times(sess, c, {a: np.arange(4.0)})
    source = sess.compiled_program(sess.last_plan).source
    assert "# c (MatMul) on CPU:1" in source and "np_sin(" in source
    assert "transfer" not in source  # CPU:0 -> CPU:1 is an alias: no copy at run time
    assert len(sess.last_plan.transfers) == 1  # ... yet the plan, the log and the trace keep it


UNARY = [tf.negative, tf.exp, tf.sin, tf.cos, tf.tanh, tf.abs]
BINARY = [tf.add, tf.subtract, tf.multiply, tf.maximum]


@pytest.mark.parametrize("numexpr", [True, False], ids=["numexpr", "numpy-only"])
@settings(max_examples=40, deadline=None)
@given(ops=st.lists(st.tuples(st.integers(0, len(UNARY) + len(BINARY) - 1), st.integers(0, 5), st.integers(0, 1)),
                    min_size=2, max_size=30),
       size=st.sampled_from([0, 1, 16, 5000]), fetch_middle=st.booleans())
def test_compiled_programs_compute_what_the_interpreter_computes(numexpr, ops, size, fetch_middle):
    assert fusion.numexpr_module() is not None, "the test extra installs numexpr"
    module = fusion.numexpr_module if numexpr else (lambda: None)
    shape = [size] if size else []  # 0: scalars (a ufunc of 0-d arrays returns a numpy scalar)
    with mock.patch.object(fusion, "numexpr_module", module), tf.Graph().as_default():
        x = tf.placeholder(tf.float32, shape, name="x")
        y = tf.placeholder(tf.float32, shape, name="y")
        values = [x, y]
        for kind, pick, device in ops:
            with tf.device(f"/cpu:{device}"):
                a = values[pick % len(values)]
                if kind < len(UNARY):
                    out = UNARY[kind](tf.tanh(a) if UNARY[kind] is tf.exp else a)
                else:
                    out = BINARY[kind - len(UNARY)](a, values[(pick + 1) % len(values)])
            values.append(out)
        fetches = [values[-1]] + ([values[len(values) // 2]] if fetch_middle else [])
        rng = np.random.default_rng(size)
        feed = {x: rng.standard_normal(shape).astype(np.float32), y: rng.standard_normal(shape).astype(np.float32)}
        sess = tf.Session(config=tf.ConfigProto(device_count={"CPU": 2}))
        interpreted, compiled, again = run_three_times(sess, fetches, feed)
        assert sess.compiled_program(sess.last_plan)
        for a, b, c in zip(interpreted, compiled, again):
            np.testing.assert_allclose(b, a, rtol=2e-6, atol=1e-6)
            np.testing.assert_array_equal(b, c)


def test_a_fused_chain_reads_its_inputs_where_it_runs_so_no_buffer_reuse_overwrites_them():
    """A fused chain runs at its last op's place: ``a`` must stay intact until then, although the
    chain's first op is its last reader in step order and ``c`` (same shape, large) runs between."""
    x = tf.placeholder(tf.float32, [512, 512], name="x")
    y = tf.placeholder(tf.float32, [512, 512], name="y")
    w = tf.constant(np.eye(512, dtype=np.float32) * 2, name="w")
    m1 = tf.add(tf.matmul(x, w, name="a"), 1.0, name="m1")
    with tf.control_dependencies([m1]):
        c = tf.matmul(y, w, name="c")  # ready after m1, before m2
    m2 = tf.multiply(m1, 3.0, name="m2")
    outs = [tf.reduce_sum(m2), tf.reduce_sum(c)]
    feed = {x: np.ones((512, 512), np.float32), y: np.full((512, 512), 5.0, np.float32)}
    with tf.Session() as s:
        got = [s.run(outs, feed) for _ in range(3)]  # the third run is the compiled program's
        assert s.compiled_program(s.last_plan) and "m2" in s.compiled_program(s.last_plan).source
    for values in got:
        np.testing.assert_allclose(values, [9.0 * 512 * 512, 10.0 * 512 * 512])
