"""SparseTensor in graph mode: the graphs, placements, values (with their Python types) and errors
TensorFlow 2.21 recorded for the same programs (tests/cases/sparse_tensor_cases.py;
tools/record_cases.py sparse_tensor records them), and what holds whatever the program: a fetched
SparseTensor is a SparseTensorValue, a feed takes a value or a tuple, gradients match finite
differences, a refused argument says so by name."""
import pathlib
import sys

import numpy as np
import pytest

import devlab as tf

sys.path.insert(0, str(pathlib.Path(__file__).parent / "cases"))
from recorded import compare, load  # noqa: E402

CASES, RECORDED = load("sparse_tensor", "tf_sparse_tensor.json")


@pytest.mark.parametrize("name", sorted(CASES))
def test_graph_placement_values_and_errors_match_tensorflow(name):
    compare(tf, CASES[name], RECORDED[name])


def _random_sparse(rng, shape, n):
    flat = np.sort(rng.choice(int(np.prod(shape)), n, replace=False))
    return np.stack(np.unravel_index(flat, shape), 1).astype(np.int64), rng.standard_normal(n).astype(np.float32)


@pytest.mark.parametrize("seed", range(5))
def test_sparse_ops_agree_with_their_dense_meaning(seed):
    """Whatever the entries: each op on the SparseTensor equals the same numpy on its dense form."""
    rng = np.random.RandomState(seed)
    shape = (4, 5)
    ind, val = _random_sparse(rng, shape, 7)
    dense = np.zeros(shape, np.float32)
    dense[tuple(ind.T)] = val
    b = rng.standard_normal((5, 3)).astype(np.float32)
    with tf.Graph().as_default():
        sp = tf.sparse_placeholder(tf.float32, shape=shape)
        d = tf.placeholder(tf.float32, shape)
        fetches = [tf.sparse_tensor_to_dense(sp), tf.sparse_tensor_dense_matmul(sp, b),
                   tf.sparse_reduce_sum(sp, 1), tf.sparse_add(sp, d),
                   tf.sparse_tensor_to_dense(tf.sparse_reshape(sp, [5, 4])),
                   tf.sparse_tensor_to_dense(tf.sparse_add(sp, sp))]
        with tf.Session() as sess:
            got = sess.run(fetches, {sp: (ind, val, shape), d: dense})
    want = [dense, dense @ b, dense.sum(1), 2 * dense, dense.reshape(5, 4), 2 * dense]
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-6)


def _numeric_grad(f, x, eps=1e-3):
    g = np.zeros_like(x)
    for i in range(x.size):
        up, down = x.copy(), x.copy()
        up.flat[i] += eps
        down.flat[i] -= eps
        g.flat[i] = (f(up) - f(down)) / (2 * eps)
    return g


@pytest.mark.parametrize("build", ["matmul", "softmax", "reduce_sum", "fill_empty_rows", "add", "reorder",
                                   "mul_dense", "div_dense", "add_dense", "segment_sum", "segment_mean",
                                   "segment_sqrt_n", "segment_sum_dense"])
def test_gradients_of_the_values_match_finite_differences(build):
    ind = np.array([[0, 1], [1, 0], [1, 2], [3, 2]], np.int64)
    val0 = np.array([0.5, -1.0, 2.0, 0.25], np.float64)
    b = np.linspace(-1, 1, 6).reshape(3, 2)
    g = tf.Graph()
    with g.as_default():
        values = tf.placeholder(tf.float64, [4])
        sp = tf.SparseTensor(ind, values, [4, 3])
        out = {"matmul": lambda: tf.sparse_tensor_dense_matmul(sp, b),
               "softmax": lambda: tf.sparse_softmax(sp).values,
               "reduce_sum": lambda: tf.sparse_reduce_sum(sp, 1),
               "fill_empty_rows": lambda: tf.sparse_fill_empty_rows(sp, 0.0)[0].values,
               "add": lambda: tf.sparse_add(sp, tf.SparseTensor([[1, 0], [2, 2]], tf.constant([1.0, 3.0], tf.float64),
                                                                [4, 3])).values,
               "reorder": lambda: tf.sparse_reorder(tf.SparseTensor(ind[::-1], values, [4, 3])).values,
               "mul_dense": lambda: (sp * tf.constant(b.T[:1], tf.float64)).values,
               "div_dense": lambda: (sp / tf.constant(b.T[:1] + 2.0, tf.float64)).values,
               "add_dense": lambda: tf.sparse_add(sp, tf.constant(np.ones((4, 3)), tf.float64)),
               # the values as a table of 4 rows: rows picked by index, summed per segment
               "segment_sum": lambda: tf.sparse_segment_sum(tf.reshape(values, [4, 1]), [0, 2, 2, 3], [0, 0, 1, 2]),
               "segment_mean": lambda: tf.sparse_segment_mean(tf.reshape(values, [4, 1]), [1, 2, 3], [0, 0, 0]),
               "segment_sqrt_n": lambda: tf.sparse_segment_sqrt_n(tf.reshape(values, [4, 1]), [3, 0], [0, 1]),
               "segment_sum_dense": lambda: tf.segment_sum(values * 2.0, [0, 0, 1, 3])}[build]()
        weights = 0.5 + 0.25 * tf.cast(tf.reshape(tf.range(tf.size(out)), tf.shape(out)), tf.float64)
        loss = tf.reduce_sum(out * out * weights)
        grad = tf.gradients(loss, values)[0]
    with tf.Session(graph=g) as sess:
        got = sess.run(grad, {values: val0})
        want = _numeric_grad(lambda v: sess.run(loss, {values: v}), val0)
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-6)


def test_fetch_and_eval_give_a_sparse_tensor_value_and_a_feed_takes_either_form():
    with tf.Graph().as_default():
        ph = tf.sparse_placeholder(tf.float32, name="x")
        doubled = ph * 2.0
        with tf.Session() as sess:
            v = sess.run(doubled, {ph: tf.SparseTensorValue([[0, 0]], [1.5], [1, 1])})
            w = doubled.eval({ph: ([[0, 1]], [2.0], [1, 2])}, session=sess)
    assert type(v) is tf.SparseTensorValue and v.values.tolist() == [3.0] and v.dense_shape.tolist() == [1, 1]
    assert type(w) is tf.SparseTensorValue and w.indices.tolist() == [[0, 1]] and w.values.tolist() == [4.0]


def test_refused_arguments_name_themselves():
    with tf.Graph().as_default():
        sp = tf.SparseTensor([[0, 0]], [1.0], [2, 2])
        with pytest.raises(NotImplementedError, match="num_segments"):
            tf.sparse_segment_sum(tf.ones([2, 2]), [0, 1], [0, 0], num_segments=3)
        with pytest.raises(TypeError, match="Input must be a SparseTensor"):
            tf.sparse_softmax(tf.ones([2, 2]))
        # max_norm is built now: the row is clipped to norm 1 (TF 2.21: [[0.70710677, 0.70710677]])
        clipped = tf.nn.embedding_lookup_sparse(tf.ones([2, 2]), tf.SparseTensor([[0, 0]], tf.constant([1], tf.int64),
                                                                                  [1, 1]), None, max_norm=1.0)
        with tf.Session() as s:
            np.testing.assert_allclose(s.run(clipped), [[0.70710677, 0.70710677]], rtol=1e-6)



def test_embedding_lookup_sparse_clips_rows_to_max_norm():
    """max_norm clips each row looked up before combining (TF 2.21: [[0.6, 0.8], [0.3, 0.4]])."""
    with tf.Graph().as_default():
        params = tf.constant([[3.0, 4.0], [0.3, 0.4]])
        sp = tf.SparseTensor([[0, 0], [1, 0]], tf.constant([0, 1], tf.int64), [2, 1])
        r = tf.nn.embedding_lookup_sparse(params, sp, None, max_norm=1.0)
        safe = tf.nn.safe_embedding_lookup_sparse(params, sp, None, max_norm=1.0)
        with tf.Session() as sess:
            for got in sess.run([r, safe]):
                np.testing.assert_allclose(got, [[0.6, 0.8], [0.3, 0.4]], rtol=1e-6)
