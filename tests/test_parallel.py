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
    if parts > 1:
        assert len({name for _, name, _ in seen}) == parts  # one thread per part


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
