"""Sparse writes into the variable's own array (runtime/variable_store.py, ``rows_in_place``):
a ScatterSub or SparseApply* changes the rows it names in the committed array itself, keeping their
old values in the run's undo log. What must hold: the values are those of the copying path, a run
that fails after the write leaves the variable exactly as it was, a value read before the write
keeps its rows, an array something else holds (a loaded array, a stepper's starting point) is
never written, and a run that opens while another has written in place reads the committed value."""
import threading

import numpy as np
import pytest

import devlab as tf
from devlab.runtime.variable_store import VariableStore


def _table_and_steps(rows=50, cols=4):
    """A table, a ScatterSub of 0.5 at fed ids, and a MatMul after it that fails on a non-square feed."""
    start = np.random.default_rng(3).standard_normal((rows, cols)).astype(np.float32)
    table = tf.Variable(start, name="table")
    ids = tf.placeholder(tf.int32, [None], name="ids")
    step = tf.scatter_sub(table, ids, tf.fill(tf.stack([tf.size(ids), cols]), 0.5))
    p = tf.placeholder(tf.float32, [None, None], name="p")
    with tf.control_dependencies([step]):
        fails = tf.matmul(p, p)  # after the write: fails on a non-square feed
    return start, table, ids, step, p, fails


def test_a_steady_sparse_step_writes_the_array_in_place_and_a_failed_run_puts_its_rows_back(monkeypatch):
    start, table, ids, step, p, fails = _table_and_steps()
    want = start.copy()
    copies, n = [], 0  # in which round sparse writes copied (the test holds no reference: it would make them copy)
    copy = VariableStore.copy_for_rows
    monkeypatch.setattr(VariableStore, "copy_for_rows", lambda *a: copies.append(n) or copy(*a))
    with tf.Session() as sess:
        sess.run(table.initializer)
        for n in range(6):  # the first runs are interpreted, the later ones run the compiled program
            before = sess.variables.values["table"].tobytes()
            with pytest.raises(tf.errors.InvalidArgumentError):
                sess.run(fails, {ids: [n, 7, 7, 40], p: [[1.0, 2.0]]})
            assert sess.variables.values["table"].tobytes() == before  # the written rows are back
            sess.run([step, fails], {ids: [n, 7, 7, 40], p: [[2.0]]})
            np.subtract.at(want, [n, 7, 7, 40], np.float32(0.5))
            np.testing.assert_array_equal(sess.run(table), want)
        # the initial value is the constant's array: the first writes copy it, the later go in place
        assert copies == [0, 0]


def test_two_writes_of_one_variable_in_a_run_are_undone_latest_first(monkeypatch):
    copies = []  # the sparse writes that copied: after the first run, none
    copy = VariableStore.copy_for_rows
    monkeypatch.setattr(VariableStore, "copy_for_rows", lambda *a: copies.append(a[1]) or copy(*a))
    table = tf.Variable(np.zeros((6, 2), np.float32), name="table")
    first = tf.scatter_add(table, [1, 2, 2], tf.ones([3, 2]))
    with tf.control_dependencies([first]):
        second = tf.scatter_update(table, [2, 3], [[7.0, 7.0], [8.0, 8.0]])
    p = tf.placeholder(tf.float32, [None, None])
    with tf.control_dependencies([second]):
        fails = tf.matmul(p, p)
    with tf.Session() as sess:
        sess.run(table.initializer)
        sess.run(fails, {p: [[1.0]]})  # the first write copies the initial value (a constant's array)
        assert copies == ["table"]
        want = [[0, 0], [1, 1], [7, 7], [8, 8], [0, 0], [0, 0]]
        np.testing.assert_array_equal(sess.run(table), want)
        for _ in range(3):  # the next ones go in place
            with pytest.raises(tf.errors.InvalidArgumentError):
                sess.run(fails, {p: [[1.0, 2.0]]})
            np.testing.assert_array_equal(sess.run(table), want)
        sess.run(fails, {p: [[1.0]]})
        np.testing.assert_array_equal(sess.run(table), [[0, 0], [2, 2], [7, 7], [8, 8], [0, 0], [0, 0]])
        assert copies == ["table"]  # both writes of every later run went into the array


def test_in_place_and_copying_writes_train_to_the_same_values(monkeypatch):
    """word2vec's step (benchmarks/models.py, small): embedding, nce_loss, SGD's three ScatterSubs."""
    import pathlib
    import sys
    sys.path.insert(0, str(pathlib.Path(__file__).parent.parent / "benchmarks"))
    from models import word2vec

    def train(steps=4):
        g, init, train_op, loss, feed = word2vec(tf, batch=16, vocab=300, size=8, sampled=5)
        with tf.Session(graph=g) as sess:
            sess.run(init)
            losses = [sess.run([loss, train_op], feed)[0] for _ in range(steps)]
            return losses, sess.run(g.get_collection("variables"))

    in_place = train()
    monkeypatch.setattr(VariableStore, "rows_in_place", lambda self, run, name, rows: None)
    copied = train()
    np.testing.assert_array_equal(in_place[0], copied[0])
    for a, b in zip(in_place[1], copied[1]):
        np.testing.assert_array_equal(a, b)


def test_a_value_read_before_the_write_keeps_the_rows_it_read():
    """A reshape of the table's value is a view of its array: the write sees it held and copies.
    (TF's ref variables alias here, TF's resource variables copy on write; devlab keeps the value
    read, for both.)"""
    table = tf.Variable(np.ones((4, 2), np.float32), name="table")
    flat = tf.reshape(table.value(), [-1])
    with tf.control_dependencies([flat]):
        write = tf.scatter_sub(table, [1], [[5.0, 5.0]])
    with tf.control_dependencies([write]):
        later = flat * 1.0
    with tf.Session() as sess:
        sess.run(table.initializer)
        for n in range(3):
            np.testing.assert_array_equal(sess.run(later), np.ones(8) - 5.0 * n * np.repeat([0, 1, 0, 0], 2))
        np.testing.assert_array_equal(sess.run(table)[1], [-14.0, -14.0])


def test_an_array_held_elsewhere_is_never_written():
    """A loaded array stays the caller's; the initial value (a constant) stays what it was."""
    table = tf.Variable(np.ones((4, 2), np.float32), name="table")
    write = tf.scatter_sub(table, [2], [[1.0, 1.0]])
    mine = np.full((4, 2), 3.0, np.float32)
    with tf.Session() as sess:
        for _ in range(2):
            sess.run(table.initializer)
            for _ in range(3):
                sess.run(write)
            np.testing.assert_array_equal(sess.run(table)[2], [-2.0, -2.0])
        table.load(mine, sess)
        for _ in range(3):
            sess.run(write)
        np.testing.assert_array_equal(mine, np.full((4, 2), 3.0))
        np.testing.assert_array_equal(sess.run(table)[2], [0.0, 0.0])


def test_a_stepper_replays_from_the_values_it_started_from():
    table = tf.Variable(np.ones((4, 2), np.float32), name="table")
    doubled = table * 2.0
    write = tf.scatter_sub(table, [0], [[1.0, 1.0]])
    with tf.Session() as sess:
        sess.run(table.initializer)
        sess.run(write)  # the first write copies the initial value (a constant's array)
        stepper = sess.stepper(doubled)
        start = stepper.finish()  # its start: the values now
        for _ in range(3):
            sess.run(write)
        stepper.reset()  # a replay from its start
        stepper.run_to_end()
        np.testing.assert_array_equal(stepper.history[-1].outputs[0][1], start)
        np.testing.assert_array_equal(start[0], [0.0, 0.0])
        np.testing.assert_array_equal(sess.run(table)[0], [-3.0, -3.0])


@pytest.mark.parametrize("fail", [False, True])
def test_a_run_opened_meanwhile_reads_the_committed_value(fail):
    """Run A writes in place, then waits in a dequeue; run B, opened meanwhile, reads the table as
    committed; B's enqueue (or close) lets A commit (or fail, its rows put back)."""
    table = tf.Variable(np.zeros((3, 2), np.float32), name="table")
    queue = tf.FIFOQueue(1, tf.float32, shapes=[[]])
    write = tf.scatter_add(table, [1], [[4.0, 4.0]])
    with tf.control_dependencies([write]):
        waits = queue.dequeue()
    enqueue, close = queue.enqueue(1.0), queue.close()
    with tf.Session() as sess:
        sess.run(table.initializer)
        sess.run(enqueue)
        sess.run(waits)  # one run of A's plan before: the next one is its compiled program
        errors = []

        def run_a():
            try:
                sess.run(waits)
            except tf.errors.OutOfRangeError as e:
                errors.append(e)

        a = threading.Thread(target=run_a)
        a.start()
        for _ in range(200):  # until A has written and waits (its write made its undo log)
            if sess.variables._dirty:
                break
            threading.Event().wait(0.01)
        assert sess.variables._dirty, "run A never wrote in place"
        np.testing.assert_array_equal(sess.run(table), [[0, 0], [4, 4], [0, 0]])  # A's first write only
        sess.run(close if fail else enqueue)
        a.join(10)
        assert not a.is_alive() and len(errors) == fail
        np.testing.assert_array_equal(sess.run(table), [[0, 0], [4 if fail else 8] * 2, [0, 0]])


def test_a_sparse_write_on_an_in_process_cluster_reaches_the_ps():
    cluster = tf.train.ClusterSpec({"ps": ["inplace-ps:2222"], "worker": ["inplace-w:2222"]})
    server = tf.train.Server(cluster, job_name="worker", task_index=0)
    with tf.device("/job:ps/task:0"):
        table = tf.Variable(np.zeros((5, 3), np.float32), name="table")
    write = tf.scatter_sub(table, [1, 3, 3], np.ones((3, 3), np.float32))
    with tf.Session(server.target) as sess:
        sess.run(table.initializer)
        for _ in range(2):
            sess.run(write)
        np.testing.assert_array_equal(sess.run(table), [[0] * 3, [-2] * 3, [0] * 3, [-4] * 3, [0] * 3])


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("index_dtype", [np.int32, np.int64])
def test_numbas_row_loop_and_numpys_rounds_make_the_same_floats(dtype, index_dtype, monkeypatch):
    """ops/fast_rows.py (numba, the ``fast`` extra) against ops/add_rows.py's numpy rounds and
    ``np.add.at``: repeated rows get their updates in the order listed, to the same float."""
    pytest.importorskip("numba")
    from devlab.ops import add_rows as add_rows_mod, fast_rows
    monkeypatch.setattr(fast_rows, "ENABLED", True)  # whatever DEVLAB_NUMBA says: the loop is under test
    rng = np.random.default_rng(5)
    start = rng.standard_normal((300, 64)).astype(dtype)
    rows = np.concatenate([rng.choice(300, 90, replace=False), [7, 7, 7, 299, 0, 7]]).astype(index_dtype)
    values = (rng.standard_normal((rows.size, 64)) * 1e3).astype(dtype)
    assert values.size >= fast_rows.MIN_ELEMENTS
    for op in (np.add, np.subtract):
        want = start.copy()
        op.at(want, rows, values)
        fast = start.copy()
        assert fast_rows.add_rows(fast, rows, values, op is np.subtract)  # numba's loop took it
        monkeypatch.setattr(fast_rows, "ENABLED", False)
        rounds = start.copy()
        add_rows_mod.add_rows(rounds, rows, values, op)
        monkeypatch.setattr(fast_rows, "ENABLED", True)
        assert fast.tobytes() == want.tobytes() == rounds.tobytes()
    # a row outside the matrix: the loop writes nothing and leaves the call to numpy
    bad = np.array(list(rows[:-1]) + [300], index_dtype)
    out = start.copy()
    assert not fast_rows.add_rows(out, bad, values, False)
    assert out.tobytes() == start.tobytes()


def test_word2vec_trains_to_the_same_values_with_and_without_numba(monkeypatch):
    """The step's ScatterSubs through numba's loop give the values numpy's path gives."""
    import pathlib
    import sys
    sys.path.insert(0, str(pathlib.Path(__file__).parent.parent / "benchmarks"))
    from models import word2vec
    from devlab.ops import fast_rows
    pytest.importorskip("numba")

    def train(enabled, steps=3):
        monkeypatch.setattr(fast_rows, "ENABLED", enabled)
        monkeypatch.setattr(fast_rows, "MIN_ELEMENTS", 1)  # the small model's updates take the loop too
        g, init, train_op, loss, feed = word2vec(tf, batch=32, vocab=500, size=40, sampled=8)
        with tf.Session(graph=g) as sess:
            sess.run(init)
            losses = [sess.run([loss, train_op], feed)[0] for _ in range(steps)]
            return losses, sess.run(g.get_collection("variables"))

    got, numpy_only = train(True), train(False)
    np.testing.assert_array_equal(got[0], numpy_only[0])
    for a, b in zip(got[1], numpy_only[1]):
        assert a.tobytes() == b.tobytes()


def test_a_reader_thread_never_sees_half_a_write():
    """One thread trains (every step subtracts 1 from every row in place, then a product keeps the
    run open a while; some steps fail after writing), another reads the table now and then: each
    read is one committed value, all rows alike, and the values read only go down (a failed run's
    write is never seen)."""
    import time
    table = tf.Variable(np.zeros((4096, 64), np.float32), name="table")
    step = tf.scatter_sub(table, np.arange(4096), tf.ones([4096, 64]))
    big = tf.constant(np.ones((300, 300), np.float32))
    p = tf.placeholder(tf.float32, [None, None])
    with tf.control_dependencies([step]):
        slow = tf.reduce_sum(tf.matmul(big, big))
    with tf.control_dependencies([slow]):
        fails = tf.matmul(p, p)
    with tf.Session() as sess:
        sess.run(table.initializer)
        done, seen = threading.Event(), []

        def read():
            while not done.is_set():
                seen.append(sess.run(table))
                time.sleep(0.0003)  # the trainer is alone now and then: its writes go in place

        reader = threading.Thread(target=read)
        reader.start()
        try:
            for n in range(200):
                if n % 7 == 3:
                    with pytest.raises(tf.errors.InvalidArgumentError):
                        sess.run(fails, {p: [[1.0, 2.0]]})
                else:
                    sess.run(fails, {p: [[1.0]]})
        finally:
            done.set()
            reader.join(10)
        assert len(seen) > 10 and all((value == value[0, 0]).all() for value in seen)
        firsts = [value[0, 0] for value in seen]
        assert firsts == sorted(firsts, reverse=True)  # never a failed run's write, taken back later
        assert sess.run(table)[0, 0] == -sum(1 for n in range(200) if n % 7 != 3)
