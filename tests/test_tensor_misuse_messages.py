"""What TF 2.21's graph mode says when a symbolic tensor is misused: as a bool, iterated, asked for
a numpy method, an Operation converted to a tensor, and which mismatched dimension a broadcast
names first (TF checks from the left). Messages are TF 2.21's, printed by the oracle."""
import pytest

import devlab as tf
from devlab.framework.errors import OperatorNotAllowedInGraphError


def test_bool_and_iteration_are_not_allowed_in_graph_mode():
    with tf.Graph().as_default():
        t = tf.constant([1.0, 2.0])
        with pytest.raises(OperatorNotAllowedInGraphError,
                           match=r"^Using a symbolic `tf.Tensor` as a Python `bool` is not allowed. .*Graph mode"):
            bool(t)
        with pytest.raises(TypeError, match=r"^Iterating over a symbolic `tf.Tensor` is not allowed. .*Graph mode"):
            iter(t)


def test_numpy_methods_name_numpy_behaviour():
    with tf.Graph().as_default():
        t = tf.constant([1.0, 2.0])
        with pytest.raises(AttributeError, match="has no attribute 'T'. \n        If you are looking for "
                                                 "numpy-related methods"):
            t.T  # noqa: B018
        with pytest.raises(AttributeError, match="^'Tensor' object has no attribute 'foo'$"):
            t.foo  # noqa: B018
        assert not hasattr(t, "_as_graph_element")


def test_an_operation_is_not_converted():
    with tf.Graph().as_default():
        with pytest.raises(TypeError, match="^can't convert Operation 'NoOp' to Tensor$"):
            tf.convert_to_tensor(tf.no_op())


def test_broadcast_names_the_first_mismatch_from_the_left():
    with tf.Graph().as_default():
        with pytest.raises(ValueError, match=r"^Dimensions must be equal, but are 2 and 5 for '\{\{node add\}\} = "
                                             r"AddV2\[T=DT_FLOAT\]\(ones, ones_1\)' with input shapes: "
                                             r"\[1,2,3\], \[4,5,6\]."):
            tf.ones([1, 2, 3]) + tf.ones([4, 5, 6])
        assert (tf.ones([3, 1, 5]) + tf.ones([4, 1])).shape.as_list() == [3, 4, 5]


def test_an_object_with_tf_tensor_converts_itself():
    """TF 2.x's TensorProtocol: ``__tf_tensor__(dtype, name)`` gives the tensor."""
    class TensorCompatible:
        def __tf_tensor__(self, dtype=None, name=None):
            return tf.constant((1, 2, 3), dtype=dtype, name=name)

    with tf.Graph().as_default():
        t = tf.convert_to_tensor(TensorCompatible(), dtype=tf.int64, name="tc")
        assert (t.dtype, t.op.name) == (tf.int64, "tc")
        with tf.Session() as sess:
            assert sess.run(t).tolist() == [1, 2, 3]
