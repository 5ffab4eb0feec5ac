"""``tf.TensorSpec`` and ``tf.IndexedSlicesSpec``: construction, printing, equality,
compatibility and the component split. Expected answers are TensorFlow 2.21's (``tf.compat.v1``
with v2 behaviour disabled), asked case by case."""
import numpy as np
import pytest

import devlab as tf
from devlab.framework import tensor_spec as type_spec


def test_tensor_spec_prints_equals_and_checks_compatibility_as_tf():
    spec = tf.TensorSpec([None, 2], tf.int32, name="x")
    assert repr(spec) == str(spec) == "TensorSpec(shape=(?, 2), dtype=tf.int32, name='x')"
    assert spec != tf.TensorSpec([None, 2], tf.int32)  # the name counts for equality...
    assert spec.is_compatible_with(tf.TensorSpec([3, 2], tf.int32))  # ...not for compatibility
    assert not spec.is_compatible_with(tf.TensorSpec([3, 2]))
    assert not spec.is_compatible_with(tf.TensorSpec([3], tf.int32))
    assert repr(tf.TensorSpec.from_spec(spec, "y")) == "TensorSpec(shape=(?, 2), dtype=tf.int32, name='y')"
    assert hash(tf.TensorSpec(None)) == hash(tf.TensorSpec(None)) and tf.TensorSpec(None) == tf.TensorSpec(None)


def test_tensor_spec_of_a_tensor():
    with tf.Graph().as_default():
        p = tf.placeholder(tf.int32, [5, 2], name="p")
        assert repr(tf.TensorSpec.from_tensor(p)) == "TensorSpec(shape=(5, 2), dtype=tf.int32, name='p')"
        assert tf.TensorSpec([None, 2], tf.int32).is_compatible_with(p)
        assert repr(type_spec.from_value(p)) == "TensorSpec(shape=(5, 2), dtype=tf.int32, name=None)"
    assert repr(type_spec.from_value(np.zeros((2, 3)))) == "TensorSpec(shape=(2, 3), dtype=tf.float64, name=None)"
    with pytest.raises(ValueError, match=r"`tensor` should be a tf.Tensor, but got type <class 'numpy.ndarray'>\."):
        tf.TensorSpec.from_tensor(np.zeros(2))


def test_indexed_slices_spec_components():
    spec = tf.IndexedSlicesSpec([5, 10, 15], dense_shape_dtype=tf.int32, indices_shape=[20])
    assert repr(spec) == ("IndexedSlicesSpec(TensorShape([Dimension(5), Dimension(10), Dimension(15)]), tf.float32, "
                          "tf.int64, tf.int32, TensorShape([Dimension(20)]))")
    assert spec._component_specs == (tf.TensorSpec([20, 10, 15]), tf.TensorSpec([20], tf.int64),
                                     tf.TensorSpec([3], tf.int32))
    assert spec == tf.IndexedSlicesSpec([5, 10, 15], tf.float32, tf.int64, tf.int32, [20])
    assert tf.IndexedSlicesSpec([2]).is_compatible_with(tf.IndexedSlicesSpec([None]))
    assert not tf.IndexedSlicesSpec([2]).is_compatible_with(tf.IndexedSlicesSpec([3]))
    with pytest.raises(ValueError, match=r"^Shape \(1, 2\) must have rank 1$"):
        tf.IndexedSlicesSpec(indices_shape=[1, 2])


def test_indexed_slices_spec_from_numpy_components_is_a_value():
    value = tf.IndexedSlicesSpec(dense_shape_dtype=tf.int32)._from_components(
        (np.array([1.]), np.array([3]), np.array([100])))
    assert isinstance(value, tf.IndexedSlicesValue) and value.dense_shape.tolist() == [100]
    value = tf.IndexedSlicesSpec()._from_components((np.array([1.]), np.array([3])))
    assert isinstance(value, tf.IndexedSlicesValue) and value.dense_shape is None and value.indices.tolist() == [3]
    with tf.Graph().as_default():
        values, indices = tf.constant([1.0]), tf.constant([3], tf.int64)
        slices = tf.IndexedSlicesSpec()._from_components((values, indices))
        assert isinstance(slices, tf.IndexedSlices) and slices.values is values and slices.indices is indices
        assert tf.IndexedSlicesSpec()._to_components(slices) == (values, indices)
