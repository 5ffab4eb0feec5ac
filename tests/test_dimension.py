"""TF1's static shapes as TF1 code reads them: ``shape[i]`` is a ``Dimension`` (``.value``),
arithmetic and comparisons with an unknown dimension are unknown, and shapes built from
Dimensions work where TensorFlow takes them. Expected answers are TensorFlow 2.21's
(``tf.compat.v1`` with v2 behaviour disabled), asked case by case."""
import numpy as np
import pytest

import devlab as tf


def test_a_shape_gives_dimensions_with_values():
    x = tf.placeholder(tf.float32, [None, 3, 4])
    d = x.get_shape()[1]
    assert isinstance(d, tf.Dimension) and d.value == 3 and repr(d) == "Dimension(3)" and str(d) == "3"
    assert x.shape[0].value is None and str(x.shape[0]) == "?"
    assert [dim.value for dim in x.shape] == [None, 3, 4] and [dim.value for dim in x.shape.dims] == [None, 3, 4]
    assert x.shape[1:] == tf.TensorShape([3, 4]) and isinstance(x.shape[1:], tf.TensorShape)
    assert x.shape.as_list() == [None, 3, 4] and str(x.shape) == "(?, 3, 4)"
    assert repr(tf.TensorShape([2, None])) == "TensorShape([Dimension(2), Dimension(None)])"
    assert tf.TensorShape(None).dims is None and tf.TensorShape([None, 2])[0].value is None


def test_dimension_arithmetic_and_comparisons_follow_tensorflow():
    a, n = tf.Dimension(3), tf.Dimension(None)
    assert (a + 1).value == 4 and (1 + a).value == 4 and (3 - a).value == 0 and (a * a).value == 9
    assert (7 // a).value == 2 and (7 % a).value == 1 and (a * n).value is None and (n + 1).value is None
    assert a == 3 and a != 4 and a < 4 and (n == 3) is None and (n != 3) is None and (n < 4) is None
    assert int(a) == 3 and float(a) == 3.0 and list(range(a)) == [0, 1, 2] and np.zeros([a, 2]).shape == (3, 2)
    assert bool(a) and not bool(tf.Dimension(0)) and not bool(n)
    assert a.merge_with(n).value == 3 and a.is_compatible_with(n) and not a.is_compatible_with(4)
    assert tf.dimension_value(a) == 3 and tf.dimension_value(5) == 5
    with pytest.raises(TypeError, match="please use // instead"):
        a / 2  # noqa: B018 - the expression is the test
    with pytest.raises(TypeError, match="unhashable"):
        hash(a)
    with pytest.raises(ValueError, match=r"^Dimension -1 must be >= 0$"):
        tf.Dimension(-1)
    with pytest.raises(TypeError, match="Dimension value must be integer or None"):
        tf.Dimension(3.5)
    with pytest.raises(ValueError, match="Cannot merge|not compatible"):
        a.merge_with(4)


def test_dimensions_make_shapes_where_tensorflow_takes_them():
    x = tf.placeholder(tf.float32, [None, 3, 4], name="x")
    flat = tf.reshape(x, [-1, x.shape[1] * x.shape[2]])
    assert flat.shape.as_list() == [None, 12]
    assert tf.zeros([x.shape[1], 2]).shape.as_list() == [3, 2]
    assert tf.placeholder(tf.float32, x.shape).shape.as_list() == [None, 3, 4]
    assert tf.placeholder(tf.float32, [None, x.shape[2]]).shape.as_list() == [None, 4]
    assert tf.ones(x.shape[1:]).shape.as_list() == [3, 4]
    assert tf.get_variable("w", [x.shape[-1], 5]).shape.as_list() == [4, 5]
    assert tf.tile(x, [1, x.shape[1], 1]).shape.as_list() == [None, 9, 4]
    pieces = tf.split(x, x.shape[1], axis=1)
    assert len(pieces) == 3 and pieces[0].shape.as_list() == [None, 1, 4]
    with tf.Session() as s:
        out = s.run(flat, {x: np.arange(24, dtype=np.float32).reshape(2, 3, 4)})
    np.testing.assert_array_equal(out, np.arange(24).reshape(2, 12))


def test_what_tensorflow_refuses_it_refuses_with_its_words():
    x = tf.placeholder(tf.float32, [None, 3, 4])
    words = "to Tensor. Consider casting elements to a supported type."
    with pytest.raises(TypeError, match=r"^Failed to convert elements of 3 " + words):
        tf.constant(x.shape[1])
    with pytest.raises(TypeError, match=r"^Failed to convert elements of \[Dimension\(3\)\] " + words):
        tf.constant([x.shape[1]])
    with pytest.raises(TypeError, match=r"^Failed to convert elements of \[Dimension\(None\), -1\] " + words):
        tf.reshape(x, [x.shape[0], -1])
    with pytest.raises(ValueError, match=r"^Error converting shape to a TensorShape: Dimension -1 must be >= 0\.$"):
        tf.placeholder(tf.float32, [-1, 3])
    with pytest.raises(ValueError, match=r"^Dimension -1 must be >= 0$"):
        tf.TensorShape([-1, 3])
    with pytest.raises(ValueError, match=r"^Error converting shape to a TensorShape: Dimension -1 must be >= 0\.$"):
        tf.placeholder_with_default([[1.0]], [-1, 1])


def test_assert_same_rank_checks_known_ranks_only():
    tf.TensorShape([1, 2]).assert_same_rank([3, None])
    tf.TensorShape(None).assert_same_rank([1])
    with pytest.raises(ValueError, match=r"^Shapes \(1, 2\) and \(1,\) must have the same rank$"):
        tf.TensorShape([1, 2]).assert_same_rank([1])


def test_shape_to_and_from_tensor_shape_proto():
    pytest.importorskip("tensorboard")
    proto = tf.TensorShape([1, None]).as_proto()
    assert [d.size for d in proto.dim] == [1, -1] and not proto.unknown_rank
    assert tf.TensorShape(None).as_proto().unknown_rank
    assert tf.TensorShape(proto) == tf.TensorShape([1, None]) and tf.TensorShape(proto)[1].value is None
    assert tf.TensorShape(tf.TensorShape(None).as_proto()).dims is None


def test_trace_type_serializes_shapes_as_tf_does():
    from devlab.framework import trace_type
    # the bytes TF 2.21 writes (a TensorShapeProto in the SerializedTraceType's Any)
    want = {(1, 2, 3): b"\x12\x02\x08\x01\x12\x02\x08\x02\x12\x02\x08\x03", None: b"\x18\x01", (): b"",
            (None, 2): b"\x12\x0b\x08\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01\x12\x02\x08\x02"}
    for dims, value in want.items():
        shape = tf.TensorShape(dims)
        serialized = trace_type.serialize(shape)
        assert serialized.type_url == "type.googleapis.com/tensorflow.TensorShapeProto" and serialized.value == value
        assert trace_type.deserialize(serialized) == shape
