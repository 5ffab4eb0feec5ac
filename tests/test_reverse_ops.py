"""``tf.reverse_sequence``, ``tf.reverse`` and ``tf.nn.bidirectional_dynamic_rnn`` against what TF 2.21
gave for the same graph (values and messages copied from the oracle's run); the nmt GNMT encoder
that needs them is tests/programs/p24_nmt_gnmt_encoder.py."""
import numpy as np
import pytest

import devlab as tf


def _x():
    return tf.constant(np.arange(24, dtype=np.float32).reshape(2, 4, 3))


def test_reverse_sequence_reverse_and_the_gradient():
    x = _x()
    r = tf.reverse_sequence(x, [3, 1], seq_axis=1, batch_axis=0)
    r2 = tf.reverse(x, [1])
    g = tf.gradients(tf.reduce_sum(r * tf.constant(np.arange(24, dtype=np.float32).reshape(2, 4, 3))), x)[0]
    assert g.op.name == "gradients/ReverseSequence_grad/ReverseSequence"
    with tf.Session() as sess:
        got = [v.reshape(-1).tolist() for v in sess.run([r, r2, g])]
    first = [6, 7, 8, 3, 4, 5, 0, 1, 2] + list(range(9, 24))
    assert got[0] == first and got[2] == first
    assert got[1] == [9, 10, 11, 6, 7, 8, 3, 4, 5, 0, 1, 2, 21, 22, 23, 18, 19, 20, 15, 16, 17, 12, 13, 14]


def test_bidirectional_dynamic_rnn_values_and_scopes():
    x = _x()
    with tf.variable_scope("bi", initializer=tf.constant_initializer(0.1)):
        (of, ob), (sf, sb) = tf.nn.bidirectional_dynamic_rnn(
            tf.nn.rnn_cell.BasicRNNCell(2), tf.nn.rnn_cell.BasicRNNCell(2), x, sequence_length=[3, 1],
            dtype=tf.float32)
    with tf.variable_scope("bi2", initializer=tf.constant_initializer(0.1)):
        (_, ob2), _ = tf.nn.bidirectional_dynamic_rnn(
            tf.nn.rnn_cell.BasicRNNCell(2), tf.nn.rnn_cell.BasicRNNCell(2), x, dtype=tf.float32, time_major=True)
    assert sorted(op.name for op in tf.get_default_graph().get_operations() if "Reverse" in op.type) == [
        "bi/ReverseSequence", "bi/bidirectional_rnn/bw/ReverseSequence", "bi2/ReverseV2",
        "bi2/bidirectional_rnn/bw/ReverseV2"]
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        got = sess.run([of, ob, sf, sb, ob2])
    want = [[0.29131, 0.29131, 0.85058, 0.85058, 0.97888, 0.97888, 0, 0, 0.99918, 0.99918, 0, 0, 0, 0, 0, 0],
            [0.44369, 0.44369, 0.88407, 0.88407, 0.97045, 0.97045, 0, 0, 0.99918, 0.99918, 0, 0, 0, 0, 0, 0],
            [0.97888, 0.97888, 0.99918, 0.99918],
            [0.44369, 0.44369, 0.99918, 0.99918],
            [0.46199, 0.46199, 0.88535, 0.88535, 0.9801, 0.9801, 0.99668, 0.99668, 0.99918, 0.99918,
             0.99986, 0.99986, 0.99998, 0.99998, 1.0, 1.0]]
    for g, w in zip(got, want):
        np.testing.assert_allclose(g.reshape(-1), w, atol=1e-5)


def test_bad_lengths_fail_with_tfs_words():
    x = _x()
    with pytest.raises(ValueError, match=r"^Dimensions must be equal, but are 2 and 3 for '\{\{node ReverseSequence\}\}"):
        tf.reverse_sequence(x, [1, 2, 3], seq_axis=1)
    with pytest.raises(ValueError, match=r"^seq_dim must be < input rank: 3 vs. 3 for"):
        tf.reverse_sequence(x, [1, 2], seq_axis=3)
    with tf.Session() as sess, pytest.raises(tf.errors.InvalidArgumentError, match=r"seq_lens\(0\) > input.dims\(1\)"):
        sess.run(tf.reverse_sequence(x, [5, 1], seq_axis=1))
