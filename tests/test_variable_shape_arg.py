"""tf.Variable's ``shape`` argument (TF 1.x RefVariable): a given shape is the VariableV2's, and
the initializer's Assign checks the value against it (unless ``validate_shape=False``). TF builds
a partly known shape but its kernel fails at run time; devlab refuses it by name."""
import numpy as np
import pytest

import devlab as tf


def test_shape_is_the_variables():
    with tf.Graph().as_default():
        v = tf.Variable(tf.constant(100.0, shape=(5,)), shape=(5,))
        free = tf.Variable(tf.constant(1.0, shape=(2,)), shape=tf.TensorShape(None), validate_shape=False)
        assert v.shape.as_list() == [5] and v.op.get_attr("shape") == (5,)
        assert free.shape.rank is None and free.op.get_attr("shape") is None
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            np.testing.assert_array_equal(sess.run(v), np.full(5, 100.0))
            np.testing.assert_array_equal(sess.run(free), [1.0, 1.0])


def test_a_shape_the_value_does_not_have_is_a_value_error():
    with tf.Graph().as_default():
        with pytest.raises(ValueError, match="Dimension 0 in both shapes must be equal"):
            tf.Variable(tf.constant(100.0, shape=(5,)), shape=(3,))


def test_a_partly_known_shape_is_refused():
    with tf.Graph().as_default():
        with pytest.raises(NotImplementedError, match="`shape` argument of tf.Variable"):
            tf.Variable(tf.constant(1.0, shape=(2,)), shape=(None,), validate_shape=False)
