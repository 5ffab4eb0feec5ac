"""An Operation's private edge API as TF's graph mode has it (TF's own tests and libraries use
it): ``_update_input``'s checks and messages, ``_remove_all_control_inputs`` and ``_control_outputs``."""
import pytest

import devlab as tf
from devlab.framework import errors


def test_update_input_rewires_and_checks():
    with tf.Graph().as_default() as g:
        x, y = tf.constant(1), tf.constant(2)
        z = x + y
        z.op._update_input(0, y)
        assert list(z.op.inputs) == [y, y]
        with tf.Session(graph=g) as sess:
            assert sess.run(z) == 4
        with pytest.raises(errors.OutOfRangeError, match=r"^Cannot update edge. Input index \[2\] is greater than "
                                                         r"the number of total inputs \[2\].$"):
            z.op._update_input(2, x)
        w = tf.constant(0, shape=[3, 1])
        with pytest.raises(errors.InvalidArgumentError,
                           match=r"^Cannot update edge, incompatible shapes: \[3,1\] and \[\].$"):
            z.op._update_input(0, w)
        assert list(z.op.inputs) == [y, y]  # nothing changed
        # another dtype is taken, as TF takes it; runs then fail (test_graph.py)
    with tf.Graph().as_default():
        other = tf.constant(1)
    with pytest.raises(ValueError, match="must be from the same graph as"):
        z.op._update_input(0, other)


def test_control_edges():
    with tf.Graph().as_default():
        a, c, d, e = tf.constant(1), tf.constant(3), tf.constant(4), tf.constant(5)
        with tf.control_dependencies([a, c]):
            f = d + e
        assert a.op._control_outputs[-1] is f.op and f.op.control_inputs == [a.op, c.op]
        f.op._remove_all_control_inputs()
        assert f.op.control_inputs == [] and f.op not in a.op._control_outputs
