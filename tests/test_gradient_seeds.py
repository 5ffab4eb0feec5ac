"""tf.gradients' seeds and stops as TF 1.x builds them: a complex ``y`` needs ``grad_ys``, an
IndexedSlices ``grad_ys`` passes each part through its own Identity (indices first, TF's order),
and ``prevent_gradient`` runs as an identity whose gradient is TF's LookupError."""
import numpy as np
import pytest

import devlab as tf
from devlab.api.array_ops import prevent_gradient


def test_complex_y_must_set_grad_ys():
    with tf.Graph().as_default():
        c = tf.constant(7 + 3j, dtype=tf.complex64)
        with pytest.raises(TypeError, match=r"Gradients of complex tensors .* must set grad_ys \(y.dtype = complex64\)"):
            tf.gradients(tf.square(c), c)


def test_indexed_slices_grad_ys_pass_through_identity():
    with tf.Graph().as_default() as g:
        x = tf.placeholder(tf.float32)
        dy = tf.IndexedSlices(tf.placeholder(tf.float32), tf.placeholder(tf.int32))
        dx, = tf.gradients(tf.identity(x), x, grad_ys=dy)
        assert isinstance(dx, tf.IndexedSlices)
        assert [op.name for op in g.get_operations()][-2:] == ["gradients/grad_ys_0_indices",
                                                                "gradients/grad_ys_0_values"]
        with tf.Session() as sess:
            got = sess.run(dx, {x: [1.0], dy.indices: [0], dy.values: [2.0]})
    assert got.values.tolist() == [2.0] and got.indices.tolist() == [0]


def test_prevent_gradient():
    with tf.Graph().as_default():
        x = tf.constant([1.0, 2.0])
        y = prevent_gradient(x, message="no")
        assert (y.op.type, y.op.get_attr("message")) == ("PreventGradient", "no")
        with pytest.raises(LookupError, match="^Gradient explicitly disabled. Reason: no$"):
            tf.gradients(y, x)
        with tf.Session() as sess:
            assert sess.run(y).tolist() == [1.0, 2.0]


def test_gradient_ops_record_their_forward_op():
    with tf.Graph().as_default():
        inp, w = tf.constant(1.0, shape=[32, 100]), tf.constant(1.0, shape=[100, 10])
        xw = tf.matmul(inp, w, name="xw")
        w_grad = tf.gradients(tf.nn.bias_add(xw, tf.constant(1.0, shape=[10])), w)[0]
        assert (w_grad.op.type, w_grad.op._original_op) == ("MatMul", xw.op)
        assert xw.op._original_op is None and tf.constant(1.0).op._original_op is None


def test_grad_pass_through_an_assign():
    """An Assign has no gradient; wrapped in tf.grad_pass_through the gradient flows through it."""
    with tf.Graph().as_default():
        x = tf.get_variable("x", shape=(), initializer=tf.constant_initializer(1.0), use_resource=True)
        z = tf.get_variable("z", shape=(), initializer=tf.constant_initializer(3.0), use_resource=True)
        assert tf.gradients(tf.assign(x, z ** 2), z) == [None]
        y = tf.grad_pass_through(lambda v: tf.assign(x, v))(z ** 2)
        g, = tf.gradients(y, z)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            assert sess.run(g) == 6.0  # d(z**2)/dz at 3
            assert sess.run(y) == 9.0


def test_a_gradient_through_complex_values_is_refused_not_dropped():
    """TF differentiates complex tensors (its rules conjugate); devlab's rules are for real values,
    so a gradient path through a complex tensor is a one-line refusal, never a silent None."""
    with tf.Graph().as_default():
        c = tf.constant(np.array([1 + 2j, 3 - 1j], np.complex64))
        seed = tf.constant(np.array([1 + 0j, 1 + 0j], np.complex64))
        with pytest.raises(NotImplementedError, match="complex tensor 'Const:0'"):
            tf.gradients(tf.square(c), c, grad_ys=seed)
        x = tf.constant([1.0, 2.0])
        tf.cast(x, tf.complex64)  # a complex value off the path changes nothing
        assert tf.gradients(tf.square(x), x)[0] is not None
