"""``tf.scalar_mul`` as TF 2.21 builds it (facts from the oracle): a ``scalar`` Const and one raw
``Mul``; IndexedSlices stay IndexedSlices; a non-scalar is TF's ValueError."""
import numpy as np
import pytest

import devlab as tf


def test_scalar_mul_builds_one_mul_and_keeps_indexed_slices():
    x = tf.constant([1.0, 2.0])
    a = tf.scalar_mul(0.5, x)
    b = tf.scalar_mul(2.0, x, name="twice")
    v = tf.Variable([[1.0], [2.0], [3.0]])
    g = tf.gradients(tf.reduce_sum(tf.gather(v, [0, 2])), v)[0]
    c = tf.scalar_mul(3.0, g)
    assert [(t.op.name, t.op.type) for t in (a, b, c.values)] == [("Mul", "Mul"), ("twice", "Mul"), ("Mul_1", "Mul")]
    assert [t.op.inputs[0].op.name for t in (a, b, c.values)] == ["scalar", "scalar_1", "scalar_2"]
    assert isinstance(c, tf.IndexedSlices) and c.indices is g.indices
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        got = sess.run([a, b, c.values])
    np.testing.assert_allclose(got[0], [0.5, 1.0])
    np.testing.assert_allclose(got[1], [2.0, 4.0])
    np.testing.assert_allclose(got[2], [[3.0], [3.0]])


def test_a_non_scalar_is_refused_as_tf_refuses_it():
    with pytest.raises(ValueError, match=r"^The input scalar must be a 0-D value. Received shape \(2,\).$"):
        tf.scalar_mul([1.0, 2.0], tf.constant([1.0, 2.0]))
