"""The nn and layers surface beyond what the recorded graphs check: dropout's statistics and its
training switch, TF's error texts for bad shapes and indices, zero_fraction, flatten of an
unknown batch."""
import numpy as np
import pytest

import devlab as tf


def test_dropout_zeroes_about_rate_and_scales_the_rest():
    x = tf.ones([200, 50])
    keep = tf.placeholder(tf.float32, [])
    for out, feed, rate in [(tf.nn.dropout(x, 0.8), {}, 0.2), (tf.nn.dropout(x, rate=0.3), {}, 0.3),
                            (tf.nn.dropout(x, keep_prob=keep), {keep: 0.5}, 0.5)]:
        got = tf.Session().run(out, feed)
        kept = got != 0
        assert abs(kept.mean() - (1 - rate)) < 0.03
        np.testing.assert_allclose(got[kept], 1 / (1 - rate), rtol=1e-6)
    assert tf.nn.dropout(x, rate=0.0) is x


def test_layers_dropout_training_flag_as_bool_or_tensor():
    x = tf.ones([100, 40])
    training = tf.placeholder(tf.bool, [])
    off = tf.layers.dropout(x, 0.5)
    switched = tf.layers.dropout(x, 0.5, training=training)
    with tf.Session() as s:
        np.testing.assert_array_equal(s.run(off), 1.0)
        np.testing.assert_array_equal(s.run(switched, {training: False}), 1.0)
        on = s.run(switched, {training: True})
    assert 0.4 < (on == 0).mean() < 0.6 and set(np.unique(on)) <= {0.0, 2.0}
    assert off.op.type == "Identity" and off.op.name == "dropout/Identity"


def test_zero_fraction_and_flatten_of_an_unknown_batch():
    x = tf.placeholder(tf.float32, [None, 2, 3])
    flat = tf.layers.flatten(x)
    zf = tf.nn.zero_fraction(tf.nn.relu(x))
    value = np.array([[[1, -1, 0], [2, 3, -4]]], np.float32)
    with tf.Session() as s:
        got_flat, got_zf = s.run([flat, zf], {x: value})
    assert flat.shape.as_list() == [None, 6] and got_flat.tolist() == [[1, -1, 0, 2, 3, -4]]
    assert got_zf == pytest.approx(0.5)


@pytest.mark.parametrize("build,message", [
    (lambda img: tf.nn.conv2d(img, tf.zeros([3, 3, 4, 4]), [1, 1, 1, 1], "SAME"),
     "Depth of input (3) is not a multiple of input depth of filter (4)"),
    (lambda img: tf.nn.conv2d(img, tf.zeros([9, 9, 3, 4]), [1, 1, 1, 1], "VALID"),
     "Negative dimension size caused by subtracting 9 from 8"),
    (lambda img: tf.nn.max_pool(img, [1, 9, 9, 1], [1, 1, 1, 1], "VALID"),
     "Negative dimension size caused by subtracting 9 from 8"),
    (lambda img: tf.nn.bias_add(img, tf.zeros([4])), "Dimensions must be equal, but are 3 and 4"),
    (lambda img: img[5], "slice index 5 of dimension 0 out of bounds."),
    (lambda img: img[:, :, :, :, 1], "Index out of range using input dim 4; input has only 4 dims"),
    (lambda img: tf.reshape(img, [5, -1]), "Dimension size must be evenly divisible by 5 but is 384"),
    (lambda img: tf.squeeze(img, [1]), "Can not squeeze dim[1], expected a dimension of 1, got 8"),
    (lambda img: tf.tile(img, [1, 2]), "Shape must be rank 4 but is rank 2"),
    (lambda img: tf.concat([img, tf.zeros([2, 8, 7, 3])], 3),
     "Dimension 2 in both shapes must be equal, but are 8 and 7. Shapes are [2,8,8] and [2,8,7]."),
])
def test_shape_errors_say_what_tensorflow_says(build, message):
    img = tf.placeholder(tf.float32, [2, 8, 8, 3], name="img")
    with pytest.raises(ValueError) as e:
        build(img)
    assert str(e.value).startswith(message)
    assert "test_nn_surface.py" in str(e.value)


def test_sparse_labels_out_of_range_fail_at_run_time_as_in_tensorflow():
    loss = tf.nn.sparse_softmax_cross_entropy_with_logits(labels=tf.constant([0, 5]), logits=tf.zeros([2, 3]))
    with pytest.raises(tf.errors.InvalidArgumentError, match="Received a label value of 5 which is outside the "
                                                             r"valid range of \[0, 3\)"):
        tf.Session().run(loss)
