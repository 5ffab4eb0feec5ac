"""``tf.is_tensor`` and ``convert_to_tensor_or_composite``: which values are TensorFlow types, and a
user's ``CompositeTensor`` made by a registered conversion function. Expected answers are
TensorFlow 2.21's (``tf.compat.v1`` with v2 behaviour disabled), asked case by case."""
import numpy as np
import pytest

import devlab as tf
from devlab.framework.composite_tensor import CompositeTensor
from devlab.ops.build import convert_to_tensor_or_composite


class _Pair(CompositeTensor):
    def __init__(self, components):
        self.components = tuple(tf.convert_to_tensor(c) for c in components)


class _UserPair:
    def __init__(self, *components):
        self.components = components


tf.register_tensor_conversion_function(_UserPair, lambda value, *_, **__: _Pair(value.components))


def test_is_tensor_of_tf_values_and_others():
    with tf.Graph().as_default():
        x = tf.constant(1)
        assert [tf.is_tensor(v) for v in (x, tf.SparseTensor([[0]], [1], [2]), tf.Variable(1.0),
                                          tf.Variable(1.0, use_resource=True), tf.IndexedSlices(x, x))] == [True] * 5
        assert not tf.is_tensor(np.zeros(1)) and not tf.is_tensor([1]) and not tf.is_tensor(_Pair([1]))


def test_composites_pass_through_and_conversions_may_make_them():
    with tf.Graph().as_default():
        slices = tf.IndexedSlices(tf.constant([1.0]), tf.constant([0]))
        assert convert_to_tensor_or_composite(slices) is slices
        with pytest.raises(ValueError, match="^Tensor conversion dtype mismatch. Requested dtype is int32, Tensor has "
                                             "dtype float32: "):
            convert_to_tensor_or_composite(slices, dtype=tf.int32)
        pair = convert_to_tensor_or_composite(_UserPair(1, [2.0, 3.0]))
        assert isinstance(pair, _Pair) and [c.dtype for c in pair.components] == [tf.int32, tf.float32]
        t = convert_to_tensor_or_composite([1, 2])
        assert isinstance(t, tf.Tensor) and t.dtype == tf.int32
