"""Embeddings and sparse gradients: the graphs, placements, values and errors TensorFlow 2.21
recorded for the same programs (tests/cases/sparse_cases.py; tools/record_cases.py sparse records
them), and what holds whatever the program: only the rows looked up change, a fetched
IndexedSlices comes back as an IndexedSlicesValue, a failed scatter changes nothing."""
import pathlib
import sys

import numpy as np
import pytest

import devlab as tf

sys.path.insert(0, str(pathlib.Path(__file__).parent / "cases"))
from recorded import compare, load  # noqa: E402

CASES, RECORDED = load("sparse", "tf_sparse.json")


@pytest.mark.parametrize("name", sorted(CASES))
def test_graph_placement_values_and_errors_match_tensorflow(name):
    compare(tf, CASES[name], RECORDED[name])


def _train_table(make_optimizer, ids, steps=2):
    table0 = np.arange(24, dtype=np.float32).reshape(8, 3) / 10
    g = tf.Graph()
    with g.as_default():
        with tf.device("/cpu:0"):
            table = tf.Variable(table0, name="table")
        with tf.device("/cpu:1"):
            loss = tf.reduce_sum(tf.square(tf.nn.embedding_lookup(table, ids)))
        train = make_optimizer().minimize(loss)
        init = tf.global_variables_initializer()
    with tf.Session(graph=g, config=tf.ConfigProto(device_count={"CPU": 2})) as sess:
        sess.run(init)
        for _ in range(steps):
            sess.run(train)
        return table0, sess.run(table)


@pytest.mark.parametrize("make", [
    lambda: tf.train.GradientDescentOptimizer(0.1),
    lambda: tf.train.MomentumOptimizer(0.1, 0.9),
    lambda: tf.train.MomentumOptimizer(0.1, 0.9, use_nesterov=True),
    lambda: tf.train.AdagradOptimizer(0.1),
    lambda: tf.train.RMSPropOptimizer(0.1, momentum=0.5, centered=True),
    lambda: tf.train.AdadeltaOptimizer(1.0),
    lambda: tf.train.FtrlOptimizer(0.1, l2_shrinkage_regularization_strength=0.1),
    lambda: tf.train.ProximalAdagradOptimizer(0.1, l1_regularization_strength=0.01),
    lambda: tf.train.ProximalGradientDescentOptimizer(0.1, l2_regularization_strength=0.1),
], ids=["sgd", "momentum", "nesterov", "adagrad", "centered_rmsprop", "adadelta", "ftrl_v2", "proximal_adagrad",
        "proximal_sgd"])
def test_only_the_rows_looked_up_change(make):
    before, after = _train_table(make, [1, 4, 4, 6])
    touched = [1, 4, 6]
    untouched = [r for r in range(8) if r not in touched]
    np.testing.assert_array_equal(after[untouched], before[untouched])
    assert not np.isclose(after[touched], before[touched]).any()


def test_sgd_on_repeated_rows_matches_numpy():
    """d/dt sum(t[ids]^2) = 2 t[i] per occurrence: row 4, looked up twice, moves twice as far."""
    before, after = _train_table(lambda: tf.train.GradientDescentOptimizer(0.1), [1, 4, 4, 6], steps=1)
    want = before.copy()
    for i in [1, 4, 4, 6]:
        want[i] -= 0.1 * 2 * before[i]
    np.testing.assert_allclose(after, want, rtol=1e-6)


def test_a_fetched_indexed_slices_comes_back_as_an_indexed_slices_value():
    table = tf.Variable(np.ones((5, 2), np.float32))
    grad = tf.gradients(tf.reduce_sum(tf.gather(table, [3, 0, 3])), [table])[0]
    assert isinstance(grad, tf.IndexedSlices) and grad.dtype == tf.float32 and grad.op is grad.values.op
    with tf.Session() as sess:
        sess.run(table.initializer)
        got = sess.run({"grad": grad})["grad"]
    assert isinstance(got, tf.IndexedSlicesValue)
    np.testing.assert_array_equal(got.values, np.ones((3, 2)))
    np.testing.assert_array_equal(got.indices, [3, 0, 3])
    np.testing.assert_array_equal(got.dense_shape, [5, 2])


def test_a_failed_sparse_update_changes_nothing():
    table = tf.Variable(np.ones((4, 2), np.float32), name="table")
    ids = tf.placeholder(tf.int32, [None])
    ok = tf.scatter_add(table, [0], [[5.0, 5.0]])
    with tf.control_dependencies([ok]):
        bad = tf.scatter_sub(table, ids, tf.ones([2, 2]))
    with tf.Session() as sess:
        sess.run(table.initializer)
        with pytest.raises(tf.errors.InvalidArgumentError, match=r"indices\[1\] = 7 is not in \[0, 4\)"):
            sess.run(bad, {ids: [1, 7]})
        np.testing.assert_array_equal(sess.run(table), np.ones((4, 2)))  # the ScatterAdd before it did not land
        sess.run(bad, {ids: [1, 1]})
        np.testing.assert_array_equal(sess.run(table), [[6, 6], [-1, -1], [1, 1], [1, 1]])


def test_unique_keeps_the_order_of_first_appearance():
    y, idx = tf.unique(tf.constant([7, 2, 7, 9, 2, 2]))
    with tf.Session() as sess:
        got_y, got_idx = sess.run([y, idx])
    np.testing.assert_array_equal(got_y, [7, 2, 9])
    np.testing.assert_array_equal(got_idx, [0, 1, 0, 2, 1, 1])
    assert y.shape.as_list() == [None] and idx.shape.as_list() == [6]


def test_sparse_momentum_applies_a_repeated_row_twice_in_order():
    """The kernel itself (TF's loop; the optimizers remove repeats first): a row listed twice sees
    its first update before its second."""
    from devlab.ops.build import apply_op_output
    var = tf.Variable(np.zeros((3, 1), np.float32))
    accum = tf.Variable(np.zeros((3, 1), np.float32))
    update = apply_op_output("SparseApplyMomentum", [var._ref(), accum._ref(), tf.constant(1.0),
                                                     tf.constant([[1.0], [2.0]]), tf.constant([2, 2]),
                                                     tf.constant(0.5)], {"use_locking": False, "use_nesterov": False},
                             "SparseApplyMomentum")
    with tf.Session() as sess:
        sess.run([var.initializer, accum.initializer])
        sess.run(update)
        acc, v = sess.run([accum, var])
    # first: accum = 0*0.5 + 1 = 1, var = -1; second: accum = 1*0.5 + 2 = 2.5, var = -3.5
    np.testing.assert_array_equal(acc, [[0], [0], [2.5]])
    np.testing.assert_array_equal(v, [[0], [0], [-3.5]])


def test_embedding_lookup_reads_the_table_where_it_lives():
    with tf.device("/cpu:0"):
        table = tf.Variable(np.ones((4, 2), np.float32), name="table")
    with tf.device("/gpu:0"):
        out = tf.nn.embedding_lookup(table, [1, 2]) * 2.0
    assert out.op.inputs[0].op.type == "Identity" and out.op.inputs[0].op.device == "/device:GPU:0"
    gather = out.op.inputs[0].op.inputs[0].op
    assert gather.type == "GatherV2" and gather.name == "embedding_lookup"
    assert gather.device == "/device:CPU:0" and gather.colocation_groups() == [b"loc:@table"]



def test_a_sharded_table_is_read_shard_by_shard_and_trains_only_the_rows_looked_up():
    """Three shards on three devices ("mod": id i is row i // 3 of shard i % 3); ids from a feed."""
    full = np.arange(30, dtype=np.float32).reshape(10, 3)
    shards = []
    for i in range(3):
        with tf.device(f"/cpu:{i}"):
            shards.append(tf.Variable(full[i::3], name=f"shard_{i}"))
    ids = tf.placeholder(tf.int32, [None])
    with tf.device("/cpu:1"):
        rows = tf.nn.embedding_lookup(shards, ids)
    gathers = [op for op in tf.get_default_graph().get_operations() if op.type == "GatherV2"]
    assert [g.colocation_groups() for g in gathers] == [[f"loc:@shard_{i}".encode()] for i in range(3)]
    assert [g.device for g in gathers] == [f"/device:CPU:{i}" for i in range(3)]  # tf.device(None) inside
    train = tf.train.GradientDescentOptimizer(0.5).minimize(tf.reduce_sum(rows))
    with tf.Session(config=tf.ConfigProto(device_count={"CPU": 3})) as sess:
        sess.run(tf.global_variables_initializer())
        np.testing.assert_array_equal(sess.run(rows, {ids: [7, 0, 5, 7]}), full[[7, 0, 5, 7]])
        sess.run(train, {ids: [7, 0, 5, 7]})
        got = np.concatenate(sess.run(shards))
    order = np.concatenate([np.arange(10)[i::3] for i in range(3)])
    want = full.copy()
    for i in [7, 0, 5, 7]:
        want[i] -= 0.5
    np.testing.assert_array_equal(got, want[order])


def test_steady_sparse_steps_copy_only_stale_rows_yet_every_value_is_right():
    """A sparse write's buffer is the variable's spare, brought up to date in the rows the last
    write changed (runtime/variable_store.py): many steps on changing rows, a failed step and a
    dense assign among them, each compared with numpy's table after it."""
    rng = np.random.default_rng(3)
    start = rng.standard_normal((50, 4)).astype(np.float32)
    table = tf.Variable(start, name="table")
    ids = tf.placeholder(tf.int32, [None])
    step = tf.scatter_sub(table, ids, tf.fill(tf.stack([tf.size(ids), 4]), 0.5))
    reset = table.assign(tf.zeros([50, 4]) + 2.0)
    want = start.astype(np.float64)
    with tf.Session() as sess:
        sess.run(table.initializer)
        for n in range(12):
            if n == 5:
                with pytest.raises(tf.errors.InvalidArgumentError):
                    sess.run(step, {ids: [3, 99]})
            elif n == 8:
                sess.run(reset)
                want[:] = 2.0
            else:
                rows = rng.choice(50, 6, replace=False)
                sess.run(step, {ids: rows})
                want[rows] -= 0.5
            np.testing.assert_allclose(sess.run(table), want, rtol=1e-6)
