"""tf.hessians and second derivatives through a strided slice (StridedSliceGrad's own gradient),
and tf.name_scope's checks on ``values`` and ``default_name``, as TF 1.x graph mode does them."""
import numpy as np
import pytest

import devlab as tf
from devlab.api.hessians import _hessian_vector_product


def test_hessian_of_a_quadratic_form_is_a_plus_a_transpose():
    rng = np.random.RandomState(0)
    a, x0 = rng.randn(4, 4).astype(np.float32), rng.randn(4).astype(np.float32)
    with tf.Graph().as_default():
        x, mat = tf.constant(x0), tf.constant(a)
        hess = tf.hessians(tf.reduce_sum(x[:, None] * mat * x[None, :]), x)
        assert len(hess) == 1
        with tf.Session() as sess:
            np.testing.assert_allclose(sess.run(hess[0]), a + a.T, rtol=1e-5, atol=1e-5)


def test_hessian_of_a_matrix_has_shape_x_shape_twice():
    with tf.Graph().as_default():
        x = tf.constant(np.arange(6, dtype=np.float32).reshape(2, 3))
        hess = tf.hessians(0.5 * tf.reduce_sum(x * x), [x])[0]
        with tf.Session() as sess:
            got = sess.run(hess)
    np.testing.assert_allclose(got, np.eye(6, dtype=np.float32).reshape(2, 3, 2, 3))


def test_second_derivative_through_a_slice():
    """d/dx of (d/dx sum(x[1:]**3)) picks the sliced elements again: 6 x there, 0 elsewhere."""
    with tf.Graph().as_default():
        x = tf.constant([1.0, 2.0, 3.0])
        g = tf.gradients(tf.reduce_sum(x[1:] ** 3), x)[0]
        gg = tf.gradients(g[2], x)[0]
        with tf.Session() as sess:
            np.testing.assert_allclose(sess.run(gg), [0.0, 0.0, 18.0])


def test_hessian_vector_product():
    a = np.array([[1.0, 2.0], [3.0, 4.0]], np.float32)
    with tf.Graph().as_default():
        x = tf.constant([1.0, -1.0])
        y = 0.5 * tf.reduce_sum(x[:, None] * tf.constant(a) * x[None, :])
        hv = _hessian_vector_product(y, [x], [tf.constant([1.0, 0.0])])
        with tf.Session() as sess:
            np.testing.assert_allclose(sess.run(hv[0]), 0.5 * (a + a.T) @ [1.0, 0.0])
        with pytest.raises(ValueError, match="xs and v must have the same length"):
            _hessian_vector_product(y, [x], [])


def test_name_scope_values_from_two_graphs_is_a_value_error():
    g0, g1 = tf.Graph(), tf.Graph()
    with g0.as_default():
        a = tf.constant(1.0)
    with g1.as_default():
        b = tf.constant(2.0)
    with pytest.raises(ValueError, match="must be from the same graph as"):
        with tf.name_scope("s", values=[a, b]):
            pass
    with tf.name_scope("s", values=[a]) as scope:
        assert scope == "s/" and tf.get_default_graph() is g0


def test_name_scope_default_name_must_be_a_string():
    with tf.Graph().as_default():
        a = tf.constant(1.0)
        with pytest.raises(TypeError, match="`default_name` type .* is not a string type. You likely meant "
                                            "to pass this into the `values` kwarg."):
            with tf.name_scope("s", [a]):
                pass
