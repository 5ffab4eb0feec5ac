"""Steps whose results nothing reads (runtime/unread.py): a compiled program leaves out the input
gradient of a convolution on fed images, as TensorFlow's graph optimizer does, and computes the
values of the interpreter; a fetched one is computed."""
import numpy as np

import devlab as tf

TRACED = tf.RunOptions(trace_level=tf.RunOptions.FULL_TRACE)


def conv_step():
    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.float32, [2, 6, 6, 3], name="x")
        w = tf.Variable(np.random.default_rng(0).uniform(-1, 1, (3, 3, 3, 4)).astype(np.float32), name="w")
        loss = tf.reduce_sum(tf.nn.relu(tf.nn.conv2d(x, w, [1, 1, 1, 1], "SAME")))
        train = tf.train.GradientDescentOptimizer(0.1).minimize(loss)
        dx = tf.gradients(loss, x)[0]
    feed = {x: np.random.default_rng(1).uniform(-1, 1, (2, 6, 6, 3)).astype(np.float32)}
    return g, w, loss, train, dx, feed


def test_the_input_gradient_nothing_reads_is_left_out_and_the_values_are_the_interpreters():
    got = {}
    for traced in (False, True):
        g, w, loss, train, _, feed = conv_step()
        sess = tf.Session(graph=g)
        sess.run(w.initializer)
        losses = [sess.run([loss, train], feed, options=TRACED if traced else None)[0] for _ in range(3)]
        plan = sess.last_plan
        got[traced] = (losses, sess.run(w))
        if not traced:
            program = sess.compiled_program(plan)
            names = {program.plan.steps[i].op.name for i in program.left_out}
            assert "gradients/Conv2D_grad/Conv2DBackpropInput" in names
            assert "Conv2DBackpropInput" not in program.source.split("def program")[1]
            assert "Conv2DBackpropFilter" in program.source
    np.testing.assert_allclose(got[False][0], got[True][0], rtol=1e-6)
    np.testing.assert_allclose(got[False][1], got[True][1], rtol=1e-6)


def test_a_fetched_input_gradient_is_computed():
    got = {}
    for traced in (False, True):
        g, w, loss, train, dx, feed = conv_step()
        sess = tf.Session(graph=g)
        sess.run(w.initializer)
        got[traced] = [sess.run([dx, train], feed, options=TRACED if traced else None)[0] for _ in range(2)]
        if not traced:  # the second run was the compiled program's
            program = sess.compiled_program(sess.last_plan)
            left_out = {program.plan.steps[i].op.name for i in program.left_out}
            assert dx.op.type == "Conv2DBackpropInput" and dx.op.name not in left_out
            assert "gradients/Conv2D_grad/Conv2DBackpropInput" in left_out  # the optimizer's own, unread
    assert np.abs(got[False][1]).sum() > 0
    np.testing.assert_allclose(got[False][1], got[True][1], rtol=1e-5, atol=1e-6)
