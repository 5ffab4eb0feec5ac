"""The host scatter-add of whole rows (sparse updates, segment sums, an embedding's gradient) adds
every update, a row listed twice getting both, to the same floats as numpy's ``add.at``, which
adds them one by one in the order listed as TensorFlow's CPU scatter kernels do."""
import numpy as np

import devlab as tf
from devlab.ops.add_rows import add_rows


def test_repeated_rows_sum_like_add_at_in_the_order_listed():
    rng = np.random.default_rng(0)
    for trial in range(200):
        n, m = int(rng.integers(1, 12)), int(rng.integers(2, 40))
        rows = rng.integers(-n if trial % 4 == 0 else 0, n, m)  # repeats, and sometimes negative rows
        shape = (n,) + tuple(int(d) for d in rng.integers(1, 4, int(rng.integers(1, 3))))
        start = rng.standard_normal(shape).astype(np.float32) * 1e3
        values = rng.standard_normal((m,) + shape[1:]).astype(np.float32)
        expected, got = start.copy(), start.copy()
        np.add.at(expected, rows, values)
        add_rows(got, rows, values)
        np.testing.assert_array_equal(got, expected)


def test_scatter_sub_with_a_repeated_row_subtracts_both_updates():
    with tf.Graph().as_default():
        v = tf.Variable(np.arange(12, dtype=np.float32).reshape(4, 3))
        update = tf.scatter_sub(v, [2, 0, 2, 2], np.ones((4, 3), np.float32) * [[1], [10], [100], [1000]])
        with tf.Session() as sess:
            sess.run(v.initializer)
            out = sess.run(update)
    np.testing.assert_array_equal(out, [[-10, -9, -8], [3, 4, 5], [-1095, -1094, -1093], [9, 10, 11]])


def test_subtracted_rows_match_subtract_at_in_the_order_listed():
    rng = np.random.default_rng(1)
    for trial in range(100):
        n, m = int(rng.integers(1, 10)), int(rng.integers(2, 30))
        rows = rng.integers(-n if trial % 5 == 0 else 0, n, m).astype(np.int32)  # repeats, some negative
        start = rng.standard_normal((n, 3)).astype(np.float32) * 1e3
        values = rng.standard_normal((m, 3)).astype(np.float32)
        expected, got = start.copy(), start.copy()
        np.subtract.at(expected, rows, values)
        add_rows(got, rows, values, np.subtract)
        np.testing.assert_array_equal(got, expected)
