"""TF's ``math_ops._as_indexed_slices`` (a tensor as IndexedSlices of all its rows) and what
converts such slices back: an elementwise op and ``tf.stack``, which packs them one by one
(a list of IndexedSlices is not autopacked), as TF 1.x graph mode does."""
import numpy as np
import pytest

import devlab as tf
from devlab.api import math_ops


def test_as_indexed_slices_round_trips_through_ops():
    v = np.arange(24, dtype=np.float32).reshape(4, 3, 2)
    with tf.Graph().as_default():
        s = math_ops._as_indexed_slices(tf.constant(v))
        assert math_ops._as_indexed_slices(s) is s
        packed = tf.stack([s, math_ops._as_indexed_slices(tf.constant(2 * v))])
        assert (packed.op.type, packed.op.name) == ("Pack", "stack_1")  # TF's names: its shape probe is "stack"
        with tf.Session() as sess:
            dense, stacked, indices, shape = sess.run([math_ops.multiply(s, 1.0), packed, s.indices, s.dense_shape])
    np.testing.assert_array_equal(dense, v)
    np.testing.assert_array_equal(stacked, np.stack([v, 2 * v]))
    np.testing.assert_array_equal(indices, [0, 1, 2, 3])
    np.testing.assert_array_equal(shape, [4, 3, 2])


def test_as_indexed_slices_refuses_other_values():
    with pytest.raises(TypeError, match="Not a Tensor or IndexedSlices: <class 'list'>."):
        math_ops._as_indexed_slices([1.0])


def test_negation_and_static_shape():
    with tf.Graph().as_default():
        values, indices = tf.constant([2, 3, 5, 7], shape=[2, 2]), tf.constant([0, 2])
        x = -tf.IndexedSlices(values, indices)
        assert isinstance(x, tf.IndexedSlices) and x.indices is indices and x.values.op.type == "Neg"
        assert x.shape.rank is None  # no dense_shape: unknown, as TF's
        assert tf.IndexedSlices(values, indices, tf.constant([3, 2])).shape.as_list() == [3, 2]
        with tf.Session() as sess:
            assert sess.run(x.values).tolist() == [[-2, -3], [-5, -7]]
