# Ported from TensorFlow's tensorflow/python/ops/gradients_test.py
# (Copyright 2015 The TensorFlow Authors; Apache License 2.0), to run against `import devlab as tf`:
# the GradientsTest cases about colocation and devices, and the boundary tests beside them.
# `constant(1.0, shape=...)` is tf.constant; `self.evaluate` / `cached_session` use tf.Session.
# testColocateGradientsWithGateGradients is skipped in TF without a GPU; devlab always has a
# simulated one, so it runs here. The rest of the file is not about placement (README.md).
import devlab as tf


def test_colocate_gradients():
    with tf.Graph().as_default() as g:
        w = tf.constant(1.0, shape=[1, 1])
        x = tf.constant(1.0, shape=[1, 2])
        with g.device("/device:GPU:0"):
            wx = tf.matmul(w, x)
        gw = tf.gradients(wx, [w], colocate_gradients_with_ops=True)[0]
    assert gw.op.colocation_groups() == wx.op.colocation_groups()


def test_colocate_gradients_with_aggregation():
    with tf.Graph().as_default() as g:
        with g.device("/device:GPU:1"):
            w = tf.constant(1.0, shape=[1, 1])
        x = tf.constant(1.0, shape=[1, 2])
        y = tf.constant(1.0, shape=[1, 2])
        wx = tf.matmul(w, x)
        wy = tf.matmul(w, y)
        with g.device("/device:GPU:0"):
            z = wx + wy

        gw1 = tf.gradients(z, [w], colocate_gradients_with_ops=True)[0]
        assert gw1.op.colocation_groups() == wx.op.colocation_groups()

        gw2 = tf.gradients(z, [w], colocate_gradients_with_ops=False)[0]
        assert wx.op.colocation_groups() != gw2.op.colocation_groups()


def test_colocate_gradients_with_aggregation_in_multiple_devices():
    with tf.Graph().as_default() as g:
        with g.device("/device:GPU:1"):
            w = tf.constant(1.0, shape=[1, 1])
        x = tf.constant(1.0, shape=[1, 2])
        y = tf.constant(1.0, shape=[1, 2])
        with g.device("/task:1"):
            wx = tf.matmul(w, x)
        with g.device("/task:2"):
            wy = tf.matmul(w, y)
        with g.device("/device:GPU:0"):
            z = wx + wy

        gw1 = tf.gradients(z, [w], colocate_gradients_with_ops=True)[0]
        assert gw1.op.colocation_groups() == w.op.colocation_groups()

        gw2 = tf.gradients(z, [w], colocate_gradients_with_ops=False)[0]
        assert w.op.colocation_groups() != gw2.op.colocation_groups()


def test_colocate_gradients_with_gate_gradients():
    with tf.Graph().as_default() as g:
        with g.device("/device:CPU:0"):
            x = tf.constant(1.0, shape=[1, 1])
            y = tf.constant(1.0, shape=[1, 1])
            s = x + y
        with g.device("/device:GPU:0"):
            z = tf.reduce_sum(s)

        gz_x = tf.gradients(z, [x], colocate_gradients_with_ops=True, gate_gradients=True)[0]

        # Make sure the placer doesn't complain.
        with tf.Session(config=tf.ConfigProto(device_count={"GPU": 1})) as sess:
            sess.run(gz_x)


def test_boundary_stop():
    # Test that we don't differentiate 'x'. The gradient function for 'x' is
    # set explicitly to None so we will get an exception if the gradient code
    # tries to differentiate 'x'.
    with tf.Graph().as_default():
        c = tf.constant(1.0)
        x = tf.identity(c)
        y = x + 1.0
        z = y + 1
        grads = tf.gradients(z, [x])
        assert all(x is not None for x in grads)


def test_boundary_continue():
    # Test that we differentiate both 'x' and 'y' correctly when x is a
    # predecessor of y.
    with tf.Session():
        x = tf.constant(1.0)
        y = x * 2.0
        z = y * 3.0
        grads = tf.gradients(z, [x, y])
        assert all(x is not None for x in grads)
        assert 6.0 == grads[0].eval()
