"""Large elementwise work split over the cores (devices/parallel.py): the optimizer updates and
the program's large fused chains compute exactly what one call computes, and a part's error
reaches the caller."""
import threading
from unittest import mock

import numpy as np
import pytest

import devlab as tf
from devlab.devices import parallel

BIG = [1024, 1024]  # 1M floats: split in parts of at least parallel.MIN_ELEMENTS


def test_split_cuts_only_the_arrays_of_the_shape_and_uses_every_core():
    a = np.arange(2 * parallel.MIN_ELEMENTS * 4, dtype=np.float64).reshape(64, -1)
    out = np.empty_like(a)
    seen = []

    def fn(x, scale, y):
        seen.append((x.size, threading.current_thread().name, np.shape(scale)))
        np.multiply(x, scale, out=y)

    parallel.split(fn, a.shape, a, np.float64(2.0), out)
    np.testing.assert_array_equal(out, a * 2.0)
    parts = min(parallel.cores(), 8)
    assert len(seen) == parts
    assert sum(size for size, _, _ in seen) == a.size
    assert all(shape == () for _, _, shape in seen)  # the scalar is passed whole
    assert threading.current_thread().name in {name for _, name, _ in seen}  # the caller takes parts too


def test_the_caller_takes_the_parts_no_helper_has_started():
    """When every helper thread is busy (on a loaded machine: not yet scheduled), the caller does
    all the parts itself rather than wait, and each part still runs exactly once."""
    pool = parallel._workers()
    release = threading.Event()
    blockers = [pool.submit(release.wait) for _ in range(pool._max_workers)]
    try:
        seen = []
        parallel.ranges(lambda lo, hi: seen.append((lo, hi, threading.current_thread().name)), 10)
        covered = sorted(i for lo, hi, _ in seen for i in range(lo, hi))
        assert covered == list(range(10))
        if parallel.cores() > 1:
            assert {name for _, _, name in seen} == {threading.current_thread().name}
            assert len(seen) > 1  # still in parts: a helper that frees up takes some
    finally:
        release.set()
        for b in blockers:
            b.result()


def test_ranges_that_call_blas_hold_it_to_one_thread_and_give_it_back():
    libraries = parallel._blas_libraries()
    if not libraries:
        pytest.skip("threadpoolctl is not installed: BLAS's threads cannot be limited")
    before = [c.get_num_threads() for c in libraries]
    during = []
    parallel.ranges(lambda lo, hi: during.append([c.get_num_threads() for c in libraries]), 4, blas=True)
    assert all(d == [1] * len(libraries) for d in during)
    assert [c.get_num_threads() for c in libraries] == before


def test_a_session_run_holds_blas_to_one_thread():
    """OpenBLAS's threads spin after each product and, on a busy machine, starve the ops after it
    (an LSTM step went from 0.6 s to 6 s): a run computes with BLAS on one thread and gives the
    threads back when it ends."""
    libraries = parallel._blas_libraries()
    if not libraries:
        pytest.skip("threadpoolctl is not installed: BLAS's threads cannot be limited")
    before = [c.get_num_threads() for c in libraries]
    seen = []
    g = tf.Graph()
    with g.as_default():
        x = tf.constant(np.ones((4, 4), np.float32))
        y = tf.py_func(lambda v: (seen.append([c.get_num_threads() for c in libraries]), v)[1], [x], tf.float32)
    with tf.Session(graph=g) as sess:
        np.testing.assert_array_equal(sess.run(tf.matmul(y, x)), np.full((4, 4), 4, np.float32))
    assert seen == [[1] * len(libraries)]
    assert [c.get_num_threads() for c in libraries] == before


def test_small_or_strided_arrays_run_in_one_call():
    calls = []
    small = np.ones(100, np.float32)
    parallel.split(lambda x: calls.append(x.shape), small.shape, small)
    strided = np.ones((2048, 1024), np.float32).T  # not C-contiguous: cannot be cut flat
    parallel.split(lambda x: calls.append(x.shape), strided.shape, strided)
    assert calls == [(100,), (1024, 2048)]


def test_an_error_in_any_part_reaches_the_caller():
    a = np.zeros(4 * parallel.MIN_ELEMENTS, np.float32)

    def fn(x):
        if x.any():
            raise ValueError("in a later part")

    a[-1] = 1  # only the last part sees it
    with pytest.raises(ValueError, match="in a later part"):
        parallel.split(fn, a.shape, a)


def train_values(optimizer, steps=3):
    """Variables after a few steps of two towers' averaged gradients (a large fused AddN * 0.5)."""
    g = tf.Graph()
    with g.as_default():
        w = tf.Variable(tf.random_normal(BIG, seed=1), name="w")
        grads = []
        for t in range(2):
            with tf.device(f"/cpu:{t}"):
                x = tf.constant(np.linspace(-1, 1, BIG[0] * 4, dtype=np.float32).reshape(4, BIG[0]) * (t + 1))
                loss = tf.reduce_mean(tf.square(tf.matmul(x, w)))
                grads.append(tf.gradients(loss, [w])[0])
        avg = tf.add_n(grads) * 0.5
        train = optimizer.apply_gradients([(avg, w)])
        init = tf.global_variables_initializer()
    sess = tf.Session(graph=g, config=tf.ConfigProto(device_count={"CPU": 2}))
    sess.run(init)
    for _ in range(steps):
        sess.run(train)
    return {v.op.name: sess.run(v) for v in g.get_collection(tf.GraphKeys.GLOBAL_VARIABLES)}


@pytest.mark.parametrize("make", [
    lambda: tf.train.GradientDescentOptimizer(0.1),
    lambda: tf.train.MomentumOptimizer(0.1, 0.9),
    lambda: tf.train.MomentumOptimizer(0.1, 0.9, use_nesterov=True),
    lambda: tf.train.AdamOptimizer(0.01),
], ids=["sgd", "momentum", "nesterov", "adam"])
def test_split_updates_match_one_call_bit_for_bit(make):
    split = train_values(make())
    with mock.patch.object(parallel, "MIN_ELEMENTS", 1 << 40):  # nothing is split
        whole = train_values(make())
    assert split.keys() == whole.keys()
    for name in split:
        np.testing.assert_array_equal(split[name], whole[name], err_msg=name)
    assert not np.array_equal(split["w"], train_values(make(), steps=0)["w"])  # it did train


def test_a_large_fused_chain_runs_in_parts_and_matches_numpy():
    a = np.random.default_rng(0).standard_normal(BIG).astype(np.float32)
    b = np.random.default_rng(1).standard_normal(BIG).astype(np.float32)
    pa, pb = tf.placeholder(tf.float32, BIG), tf.placeholder(tf.float32, BIG)
    chain = tf.abs((tf.add_n([pa, pb, pa]) * 0.5 - pb) * (pa + pb)) + 1.0
    out = tf.reduce_sum(chain, axis=0)  # the chain's own array is not fetched: it has a planned buffer
    sess = tf.Session()
    calls = []
    real = parallel.split

    def counting(fn, shape, *args):
        calls.append(shape)
        return real(fn, shape, *args)

    with mock.patch.object(parallel, "split", counting):
        got = [sess.run(out, {pa: a, pb: b}) for _ in range(3)]  # the later runs are compiled
    want = (np.abs((((a + b) + a) * np.float32(0.5) - b) * (a + b)) + np.float32(1.0)).sum(axis=0)
    for value in got:
        np.testing.assert_array_equal(value, want)
    assert calls == [tuple(BIG)] * 2  # the two compiled runs, one call each


@pytest.mark.parametrize("shape_a,shape_b,transpose", [
    ((16, 2560), (2560, 2560), None),    # a batch through a wide layer: split by columns
    ((2560, 16), (16, 2048), "a"),        # a weight gradient, x^T @ dy: split by rows
    ((32, 1024), (1024, 3072), "b"),      # dy @ W^T
])
def test_large_products_are_split_and_blas_gets_its_threads_back(shape_a, shape_b, transpose):
    rng = np.random.default_rng(0)
    a = rng.standard_normal(shape_a[::-1] if transpose == "a" else shape_a).astype(np.float32)
    b = rng.standard_normal(shape_b[::-1] if transpose == "b" else shape_b).astype(np.float32)
    a, b = (a.T if transpose == "a" else a), (b.T if transpose == "b" else b)
    libraries = parallel._blas_libraries()
    before = [c.get_num_threads() for c in libraries]
    parts = []
    real = parallel._run
    with mock.patch.object(parallel, "_run", lambda part, n: (parts.append(n), real(part, n))):
        got = parallel.matmul(a, b)
    np.testing.assert_allclose(got, np.matmul(a, b), rtol=1e-5, atol=1e-4)
    assert [c.get_num_threads() for c in libraries] == before
    assert parts == ([min(parallel.cores(), 8)] if libraries and parallel.cores() > 1 else [])


def test_products_stay_whole_without_threadpoolctl_or_when_small():
    a = np.ones((16, 2560), np.float32)
    b = np.ones((2560, 2560), np.float32)
    with mock.patch.object(parallel, "_blas_libraries", lambda: ()), \
            mock.patch.object(parallel, "_run", side_effect=AssertionError("split")):
        np.testing.assert_array_equal(parallel.matmul(a, b), np.full((16, 2560), 2560, np.float32))
        parallel.matmul(np.ones((4, 4), np.float32), np.ones((4, 4), np.float32))
        parallel.matmul(np.ones((16, 2560), np.int32), np.ones((2560, 2560), np.int32))  # no BLAS for ints


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32])
def test_an_outer_product_is_each_pair_multiplied_as_matmul_gives_it(dtype):
    rng = np.random.default_rng(0)
    a = (rng.standard_normal((128, 1)) * 100).astype(dtype)
    b = (rng.standard_normal((1, 96)) * 100).astype(dtype)
    np.testing.assert_array_equal(parallel.matmul(a, b), np.matmul(a, b))
    out = np.empty((128, 96), dtype)
    assert parallel.matmul(a, b, out) is out and np.array_equal(out, np.matmul(a, b))
    with pytest.raises(ValueError):
        parallel.matmul(a, b.T)  # numpy's own error for mismatched dims


def test_a_split_product_in_a_training_step_matches_the_interpreter():
    """The compiled program's products go through the split kernel; the first (interpreted) run
    and the later ones give the same losses as numpy's own float64 arithmetic, closely."""
    x = np.random.default_rng(0).standard_normal((16, 2048)).astype(np.float32)
    w0 = np.random.default_rng(1).standard_normal((2048, 1024)).astype(np.float32) * 0.01
    g = tf.Graph()
    with g.as_default():
        w = tf.Variable(w0)
        loss = tf.reduce_sum(tf.square(tf.matmul(tf.constant(x), w)))
        train = tf.train.GradientDescentOptimizer(1e-4).minimize(loss)
    sess = tf.Session(graph=g)
    sess.run(w.initializer)
    ref_w = w0.astype(np.float64)
    for _ in range(3):
        got, _ = sess.run([loss, train])
        want = np.sum((x @ ref_w) ** 2)
        ref_w -= 1e-4 * (2 * x.T.astype(np.float64) @ (x @ ref_w))
        np.testing.assert_allclose(got, want, rtol=1e-4)


@pytest.mark.parametrize("rows", [8, 32])
def test_a_few_rows_times_a_large_matrix_runs_transposed_and_comes_back_in_rows(rows):
    rng = np.random.default_rng(3)
    a = rng.standard_normal((rows, 1024)).astype(np.float32)
    b = rng.standard_normal((1024, 2048)).astype(np.float32)
    assert parallel._few_rows(rows, 1024, 2048) and not parallel._few_rows(256, 1024, 2048)
    calls = []
    real = np.matmul
    with mock.patch.object(parallel.np, "matmul", lambda x, y, out=None: (calls.append(x.shape), real(x, y, out=out))[1]):
        got = parallel.matmul(a, b)
        out = np.empty((rows, 2048), np.float32)
        into = parallel.matmul(a, b, out)
    np.testing.assert_allclose(got, a @ b, rtol=1e-5, atol=1e-4)
    assert got.flags.c_contiguous and into is out
    np.testing.assert_array_equal(out, got)
    assert all(shape[1] == 1024 and shape[0] != rows for shape in calls)  # BLAS saw bᵀ (or its rows) first


@pytest.mark.parametrize("rows", [20, 64])
def test_a_few_rows_times_a_transposed_view_runs_swapped(rows):
    rng = np.random.default_rng(4)
    a = rng.standard_normal((rows, 1024)).astype(np.float32)
    w = rng.standard_normal((512, 1024)).astype(np.float32)  # an LSTM's kernel, read as wᵀ by its gradient
    calls = []
    real = np.matmul
    with mock.patch.object(parallel.np, "matmul", lambda x, y, out=None: (calls.append(x.shape), real(x, y, out=out))[1]):
        got = parallel.matmul(a, w.T)
        out = np.empty((rows, 512), np.float32)
        into = parallel.matmul(a, w.T, out)
        swapped = list(calls)
        parallel.matmul(rng.standard_normal((128, 1024)).astype(np.float32), w.T)  # many rows: as it is
    np.testing.assert_allclose(got, a @ w.T, rtol=1e-5, atol=1e-4)
    assert got.flags.c_contiguous and into is out
    np.testing.assert_array_equal(out, got)
    assert swapped and all(shape[0] != rows and shape[1] == 1024 for shape in swapped)  # w (or its rows) on the left
    assert all(shape[1] == 1024 and shape[0] <= 128 for shape in calls[len(swapped):])  # the 128 rows of a on the left


@pytest.mark.skipif(parallel.cores() < 2, reason="one core: every range is one call anyway")
def test_few_costly_parts_are_one_call_while_lanes_hold_every_worker():
    """A program's lanes side by side leave no worker to help: ``few`` work (OpenVINO models, each
    call costly) is then done in one call by the lane itself; other work keeps its parts, and
    ``few`` work with a worker free is split as before."""
    seen = {}

    def lane(name, few):
        calls = seen.setdefault(name, [])
        parallel.ranges(lambda lo, hi: calls.append((lo, hi)), 2, few=few)

    workers = parallel._workers()._max_workers
    assert parallel.side_by_side(lambda: lane("few", True), [lambda: None] * workers)
    assert parallel.side_by_side(lambda: lane("plain", False), [lambda: None] * workers)
    lane("alone", True)
    assert seen["few"] == [(0, 2)]
    assert sorted(seen["plain"]) == [(0, 1), (1, 2)]
    assert sorted(seen["alone"]) == [(0, 1), (1, 2)]
