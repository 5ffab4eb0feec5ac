"""Merged products in compiled programs (``runtime/products.py``): towers' products that share a
weight run as one product, summed (and averaged) gradient products as one product over the
joined batch, and a merged program computes what the step-by-step interpreter computes. Where a
merge would change a value (a product depends on another, a variable changes in between, a
product is fetched) there is none."""
from unittest import mock

import numpy as np
import pytest

import devlab as tf
from devlab.runtime import products, program as program_mod


@pytest.fixture(autouse=True)
def small_arrays_merge():
    """The tests' arrays are small; real programs merge from ``MIN_BYTES`` on."""
    with mock.patch.object(products, "MIN_BYTES", 0):
        yield


def merges_of(program):
    assert program, "the steady run is the compiled program's"
    return sorted((type(m).__name__, tuple(s.op.name for s in m.members if s.op.type == "MatMul"), m.root.op.name)
                  for m in program.merges)


def interpreted(fn):
    """``fn()`` with compiled programs turned off: every run is the interpreter's."""
    with mock.patch.object(program_mod, "build", lambda plan, *threads: None):
        return fn()


def tower_model(average="mul"):
    """Two towers on /cpu:0 and /cpu:1 sharing a 2-layer net on /cpu:0, gradients averaged."""
    rng = np.random.default_rng(1)
    with tf.device("/cpu:0"):
        w0 = tf.Variable(rng.standard_normal((12, 16)).astype(np.float32), name="w0")
        w1 = tf.Variable(rng.standard_normal((16, 10)).astype(np.float32), name="w1")
    opt = tf.train.MomentumOptimizer(0.05, 0.9)
    feeds, grads = {}, []
    for t in range(2):
        with tf.device(f"/cpu:{t}"), tf.name_scope(f"tower_{t}"):
            # a few rows per tower, as in real towers: the operands are smaller than the sums
            x = tf.placeholder(tf.float32, [2, 12], name="x")
            y = tf.placeholder(tf.float32, [2, 10], name="y")
            loss = tf.reduce_mean(tf.square(tf.matmul(tf.nn.relu(tf.matmul(x, w0)), w1) - y))
            grads.append(opt.compute_gradients(loss, [w0, w1]))
            feeds[x] = rng.standard_normal((2, 12)).astype(np.float32)
            feeds[y] = rng.standard_normal((2, 10)).astype(np.float32)
    with tf.device("/cpu:0"):
        averaged = []
        for (g0, v), (g1, _) in zip(*grads):
            if average == "concat-mean":  # cifar10_multi_gpu's average_gradients
                mean = tf.reduce_mean(tf.concat([tf.expand_dims(g0, 0), tf.expand_dims(g1, 0)], axis=0), 0)
            elif average == "stack-mean":
                mean = tf.reduce_mean(tf.stack([g0, g1]), axis=0)
            else:
                total = tf.add_n([g0, g1])
                mean = total * 0.5 if average == "mul" else total / 2.0
            averaged.append((mean, v))
        train = opt.apply_gradients(averaged)
    return (w0, w1), train, feeds


ROOTS = {"mul": ("mul", "mul_1"), "div": ("truediv", "truediv_1"), "concat-mean": ("Mean", "Mean_1"),
         "stack-mean": ("Mean", "Mean_1")}


@pytest.mark.parametrize("average", list(ROOTS))
def test_two_towers_share_each_weight_product_and_sum_their_gradients_in_one(average):
    def steps():
        with tf.Graph().as_default():
            weights, train, feed = tower_model(average)
            sess = tf.Session(config=tf.ConfigProto(device_count={"CPU": 2}))
            sess.run(tf.global_variables_initializer())
            for _ in range(4):  # runs 2-4 are the compiled program's
                sess.run(train, feed)
            program = sess.compiled_program(sess.last_plan)
            return sess.run(weights), program

    merged, program = steps()
    plain, _ = interpreted(steps)
    for a, b in zip(merged, plain):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)
    first, second = ROOTS[average]
    assert merges_of(program) == sorted([
        ("Stacked", ("tower_0/MatMul", "tower_1/MatMul"), "tower_1/MatMul"),  # x @ w0, both towers
        ("Stacked", ("tower_0/MatMul_1", "tower_1/MatMul_1"), "tower_1/MatMul_1"),  # h @ w1
        ("Stacked", ("tower_0/gradients/tower_0/MatMul_1_grad/MatMul",  # dy @ w1ᵀ
                     "tower_1/gradients/tower_1/MatMul_1_grad/MatMul"), "tower_1/gradients/tower_1/MatMul_1_grad/MatMul"),
        ("Stacked", ("tower_0/gradients/tower_0/MatMul_grad/MatMul",  # dh @ w0ᵀ (the tuple's control
                     "tower_1/gradients/tower_1/MatMul_grad/MatMul"),  # edges keep it, as in TF)
         "tower_1/gradients/tower_1/MatMul_grad/MatMul"),
        ("Summed", ("tower_0/gradients/tower_0/MatMul_1_grad/MatMul_1",  # hᵀ dy, summed, averaged
                    "tower_1/gradients/tower_1/MatMul_1_grad/MatMul_1"), second),
        ("Summed", ("tower_0/gradients/tower_0/MatMul_grad/MatMul_1",
                    "tower_1/gradients/tower_1/MatMul_grad/MatMul_1"), first),
    ])


@pytest.mark.parametrize("transpose_a", [False, True])
@pytest.mark.parametrize("transpose_b", [False, True])
@pytest.mark.parametrize("scale", ["none", "mul", "scalar-first", "div"])
def test_merged_products_equal_numpy_for_every_transpose_and_scale(transpose_a, transpose_b, scale):
    rng = np.random.default_rng(2)

    def array(rows, cols, transposed):
        value = rng.standard_normal((rows, cols))
        return (value.T if transposed else value).copy()

    w = array(5, 7, transpose_b)  # shared: (5, 7) as the product sees it
    xs = [array(n, 5, transpose_a) for n in (3, 4)]  # different row counts stack too
    pairs = [(array(9, k, transpose_a), array(k, 11, transpose_b)) for k in (1, 2)]  # summed: (9, 11)
    as_seen_a = [x.T if transpose_a else x for x in xs]
    shared = tf.constant(w)
    stacked = [tf.matmul(x, shared, transpose_a=transpose_a, transpose_b=transpose_b) for x in xs]
    total = tf.add_n([tf.matmul(a, b, transpose_a=transpose_a, transpose_b=transpose_b) for a, b in pairs])
    scaled = {"none": total, "mul": total * 0.25, "scalar-first": 3.0 * total, "div": total / 3.0}[scale]
    fetch = [tf.reduce_sum(tf.square(s)) for s in stacked] + [tf.identity(scaled)]
    sess = tf.Session()
    first, second, third = [sess.run(fetch) for _ in range(3)]
    w_seen = w.T if transpose_b else w
    want_total = sum((a.T if transpose_a else a) @ (b.T if transpose_b else b) for a, b in pairs)
    want_total = {"none": want_total, "mul": want_total * 0.25, "scalar-first": 3.0 * want_total,
                  "div": want_total / 3.0}[scale]
    want = [np.sum(np.square(a @ w_seen)) for a in as_seen_a] + [want_total]
    for got in (first, second, third):
        for g, v in zip(got, want):
            np.testing.assert_allclose(g, v, rtol=1e-10)
    kinds = [kind for kind, _, _ in merges_of(sess.compiled_program(sess.last_plan))]
    assert sorted(kinds) == ["Stacked", "Summed"]


def test_a_product_that_depends_on_another_through_the_shared_weight_is_not_stacked_with_it():
    x = tf.placeholder(tf.float32, [2, 4])
    w = tf.constant(np.arange(16, dtype=np.float32).reshape(4, 4) / 16)
    h = tf.matmul(tf.tanh(tf.matmul(x, w)), w)  # a shared-weight chain: the second needs the first
    out = tf.matmul(x, w) + h  # a third product, independent of both
    sess = tf.Session()
    feed = {x: np.ones((2, 4), np.float32)}
    got = [sess.run(out, feed) for _ in range(3)]
    xw = np.ones((2, 4)) @ (np.arange(16).reshape(4, 4) / 16)
    for g in got:
        np.testing.assert_allclose(g, xw + np.tanh(xw) @ (np.arange(16).reshape(4, 4) / 16), rtol=1e-6)
    for _, names, _ in merges_of(sess.compiled_program(sess.last_plan)):  # the independent ones may share, never the dependent pair
        assert not {"MatMul", "MatMul_1"} <= set(names)


def test_no_products_merge_across_a_write_to_the_weight_they_read():
    v = tf.Variable(np.eye(3, dtype=np.float32), name="v")
    x1 = tf.placeholder(tf.float32, [2, 3])
    x2 = tf.placeholder(tf.float32, [2, 3])
    y1 = tf.matmul(x1, v)
    with tf.control_dependencies([y1]):
        bump = v.assign_add(np.eye(3, dtype=np.float32))
    with tf.control_dependencies([bump]):
        y2 = tf.matmul(x2, v)  # sees v after the write: 2 * eye, then 3 * eye, ...
    sess = tf.Session()
    sess.run(tf.global_variables_initializer())
    feed = {x1: np.ones((2, 3), np.float32), x2: np.ones((2, 3), np.float32)}
    for k in range(1, 4):
        got1, got2 = sess.run([y1, y2], feed)
        np.testing.assert_array_equal(got1, np.full((2, 3), k))
        np.testing.assert_array_equal(got2, np.full((2, 3), k + 1))
    assert merges_of(sess.compiled_program(sess.last_plan)) == []


def test_a_fetched_gradient_product_is_computed_on_its_own():
    def run():
        with tf.Graph().as_default():
            weights, train, feed = tower_model()
            tower_grad = tf.get_default_graph().get_tensor_by_name(
                "tower_0/gradients/tower_0/MatMul_1_grad/MatMul_1:0")
            sess = tf.Session(config=tf.ConfigProto(device_count={"CPU": 2}))
            sess.run(tf.global_variables_initializer())
            got = [sess.run([train, tower_grad], feed)[1] for _ in range(3)]
            return got, sess.compiled_program(sess.last_plan)

    merged, program = run()
    plain, _ = interpreted(run)
    for a, b in zip(merged, plain):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)
    summed = [names for kind, names, _ in merges_of(program) if kind == "Summed"]
    assert summed == [("tower_0/gradients/tower_0/MatMul_grad/MatMul_1",
                       "tower_1/gradients/tower_1/MatMul_grad/MatMul_1")]


def test_no_merge_where_joining_the_operands_costs_more_than_the_sum_saves():
    a = [tf.constant(np.ones((3, 40))) for _ in range(2)]  # long inner dimension, small (3, 3) sum
    b = [tf.constant(np.ones((40, 3))) for _ in range(2)]
    total = tf.add_n([tf.matmul(x, y) for x, y in zip(a, b)])
    sess = tf.Session()
    for _ in range(3):
        np.testing.assert_array_equal(sess.run(total), np.full((3, 3), 80.0))
    assert merges_of(sess.compiled_program(sess.last_plan)) == []
