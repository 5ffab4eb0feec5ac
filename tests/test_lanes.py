"""Lanes (runtime/lanes.py): a compiled program runs its devices' steps side by side, as
TensorFlow's executor runs the towers of a data-parallel step, and gives the values and the
errors of the same program run in one thread (``inter_op_parallelism_threads=1``) and of the
interpreter (a traced run)."""
import os
import sys

import numpy as np
import pytest

import devlab as tf
from devlab.devices import parallel
from devlab.runtime import lanes, memory

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "benchmarks"))
import models  # noqa: E402

TRACED = tf.RunOptions(trace_level=tf.RunOptions.FULL_TRACE)
CNN = dict(batch=8, image=8, channels=4, hidden=16)


@pytest.fixture(autouse=True)
def small_work_gets_lanes(monkeypatch):
    """Lanes for these small graphs, two cores whatever the machine has, and planned buffers for
    small arrays (so that buffers are shared inside a lane)."""
    monkeypatch.setattr(lanes, "MIN_WORK", 0)
    monkeypatch.setattr(memory, "MIN_BYTES", 0)
    monkeypatch.setattr(parallel, "cores", lambda: 2)
    ran = []
    side_by_side = parallel.side_by_side

    def counted(first, others, stop=None):
        done = side_by_side(first, others, stop)
        ran.append(done)
        return done
    monkeypatch.setattr(parallel, "side_by_side", counted)
    return ran


def session(g, threads):
    config = tf.ConfigProto(device_count={"CPU": 2})
    if threads is not None:
        config.inter_op_parallelism_threads = threads
    return tf.Session(graph=g, config=config)


def train_cnn(threads, traced=False, steps=3):
    g, init, train_op, loss, feed = models.cnn_towers(tf, **CNN)
    with g.as_default():
        variables = tf.global_variables()
    sess = session(g, threads)
    sess.run(init)
    losses = [sess.run([loss, train_op], feed, options=TRACED if traced else None)[0] for _ in range(steps)]
    program = sess.compiled_program(sess.last_plan)
    return losses, sess.run(variables), program


def test_the_cnn_towers_run_side_by_side_with_the_values_of_one_thread_and_of_the_interpreter(
        small_work_gets_lanes):
    losses, values, program = train_cnn(threads=None)
    assert program.lanes is not None and program.lanes.count == 2
    assert "def lane1(" in program.source and "ev[" in program.source
    assert small_work_gets_lanes and all(small_work_gets_lanes)  # every steady run ran its lanes
    one_losses, one_values, one = train_cnn(threads=1)
    assert one.lanes is None and "def lane0(" not in one.source
    want_losses, want_values, _ = train_cnn(threads=None, traced=True)
    for got_losses, got_values in ((losses, values), (one_losses, one_values)):
        np.testing.assert_allclose(got_losses, want_losses, rtol=1e-5, atol=1e-6)
        assert len(got_values) == len(want_values) == 8
        for got, want in zip(got_values, want_values):
            np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
    assert losses[-1] != losses[0]


@pytest.mark.parametrize("threads", [1, -1])
def test_one_inter_op_thread_or_a_negative_count_runs_one_step_at_a_time(threads, small_work_gets_lanes):
    _, _, program = train_cnn(threads=threads, steps=2)
    assert program.lanes is None
    assert small_work_gets_lanes == []


def towers(bad_tower):
    """Two towers reading one weight; ``bad_tower``'s CheckNumerics fails when its input is fed a
    NaN; the averaged gradient updates the weight."""
    g = tf.Graph()
    with g.as_default():
        with tf.device("/cpu:0"):
            w = tf.Variable(np.ones((4, 4), np.float32), name="w")
        xs, losses = [], []
        for t in range(2):
            with tf.device(f"/cpu:{t}"), tf.name_scope(f"tower_{t}"):
                x = tf.placeholder(tf.float32, [3, 4], name="x")
                h = tf.matmul(x, w)
                if t in bad_tower:
                    h = tf.debugging.check_numerics(h, f"tower {t} is not finite")
                losses.append(tf.reduce_sum(tf.nn.relu(h)))
                xs.append(x)
        with tf.device("/cpu:0"):
            loss = tf.add_n(losses)
            train = tf.train.GradientDescentOptimizer(0.01).minimize(loss)
        init = tf.global_variables_initializer()
    return g, init, train, loss, xs, w


@pytest.mark.parametrize("bad_tower", [(1,), (0,), (0, 1)])
def test_an_error_in_a_tower_stops_the_run_with_the_interpreters_error_and_nothing_written(
        bad_tower, small_work_gets_lanes):
    got = {}
    for threads, traced in ((None, False), (1, False), (None, True)):
        g, init, train, loss, xs, w = towers(bad_tower)
        sess = session(g, threads)
        sess.run(init)
        good = {x: np.full((3, 4), 0.5, np.float32) for x in xs}
        options = TRACED if traced else None
        for _ in range(2):  # the second run and those after it run the compiled program
            sess.run([loss, train], good, options=options)
        plan = sess.last_plan
        before = sess.run(w)
        bad = dict(good)
        for t in bad_tower:
            bad[xs[t]] = np.full((3, 4), np.nan, np.float32)
        with pytest.raises(tf.errors.InvalidArgumentError) as e:
            sess.run([loss, train], bad, options=options)
        np.testing.assert_array_equal(sess.run(w), before)  # nothing committed
        if not traced and threads is None:
            assert sess.compiled_program(plan).lanes is not None
        after = sess.run([loss, train], good, options=options)[0]  # the session still runs
        got[(threads, traced)] = (str(e.value), e.value.op.name, before, after)
    want = got[(None, True)]
    for key in ((None, False), (1, False)):
        message, op, before, after = got[key]
        assert (message, op) == want[:2]
        np.testing.assert_allclose(before, want[2], rtol=1e-6)
        np.testing.assert_allclose(after, want[3], rtol=1e-6)
    assert f"tower {min(bad_tower)} is not finite" in want[0]  # the earliest failure, as interpreted
    assert small_work_gets_lanes and all(small_work_gets_lanes)


def test_a_variable_written_in_one_lane_is_read_by_another_in_plan_order(small_work_gets_lanes):
    results = {}
    for threads, traced in ((None, False), (1, False), (None, True)):
        g = tf.Graph()
        with g.as_default():
            with tf.device("/cpu:0"):
                v = tf.Variable(np.zeros((64,), np.float32), name="v")
                bump = tf.assign_add(v, tf.ones((64,)))
            with tf.device("/cpu:1"):
                before = tf.reduce_sum(v * 2.0)
                with tf.control_dependencies([bump]):
                    after = tf.reduce_sum(v.read_value() * 3.0)
        sess = session(g, threads)
        sess.run(v.initializer)
        options = TRACED if traced else None
        results[(threads, traced)] = [sess.run([before, after, bump], options=options)[:2] for _ in range(4)]
    assert results[(None, False)] == results[(None, True)] == results[(1, False)]
    assert results[(None, True)][-1][1] == 4 * 64 * 3.0


def test_the_towers_kernels_run_at_the_same_time_on_two_threads(small_work_gets_lanes):
    """Each tower's kernel waits at a barrier for the other's: run one at a time, the barrier
    would time out (the first run, the interpreter's, does not wait)."""
    import threading
    barrier = threading.Barrier(2, timeout=10)
    threads, meeting = [], []

    def meet(x):
        if meeting:
            threads.append(threading.get_ident())
            barrier.wait()
        return x * 2

    g = tf.Graph()
    with g.as_default():
        outs = []
        for t in range(2):
            with tf.device(f"/cpu:{t}"):
                x = tf.placeholder(tf.float32, [8], name=f"x{t}")
                outs.append(tf.reduce_sum(tf.py_func(meet, [x * 1.0], tf.float32, stateful=False)))
        total = tf.add_n(outs)
    sess = session(g, None)
    feed = {g.get_tensor_by_name(f"x{t}:0"): np.arange(8, dtype=np.float32) for t in range(2)}
    assert sess.run(total, feed) == 112.0  # interpreted
    meeting.append(True)
    assert sess.run(total, feed) == 112.0  # the compiled program's lanes
    assert len(set(threads)) == 2
    assert small_work_gets_lanes == [True]


def test_with_the_pool_taken_the_program_runs_in_one_thread_with_the_same_values(monkeypatch):
    """A run inside another's lane, or beside another session's lanes, finds no free worker: the
    program then runs its one-thread function (on the lanes' buffer plan)."""
    want_losses, want_values, _ = train_cnn(threads=None)
    monkeypatch.setattr(parallel, "side_by_side", lambda first, others, stop=None: False)
    losses, values, program = train_cnn(threads=None)
    assert program.lanes is not None
    np.testing.assert_array_equal(losses, want_losses)
    for got, want in zip(values, want_values):
        np.testing.assert_array_equal(got, want)


def test_an_interrupted_caller_stops_the_other_lanes_and_waits_for_them():
    """The caller's lane is interrupted (a learner stops the cell): the other lane is told to stop
    and has ended before the interrupt goes on, so no lane still runs on the program's buffers."""
    import threading
    import time
    ended, started = [], threading.Event()

    def other():
        started.wait(5)
        time.sleep(0.2)
        ended.append(True)

    def first():
        started.set()
        raise KeyboardInterrupt

    stopped = []
    with pytest.raises(KeyboardInterrupt):
        parallel.side_by_side(first, [other], lambda: stopped.append(True))
    assert stopped == [True] and ended == [True]
