"""``Graph._attr_scope`` (TF's private scope that stamps attrs on the ops built inside) and
``AttrValue`` protos handed to ``op._set_attr``. Expected answers are TensorFlow 2.21's
(``tf.compat.v1`` with v2 behaviour disabled), asked case by case."""
import pytest

import devlab as tf

A = pytest.importorskip("tensorboard.compat.proto.attr_value_pb2")


def test_scoped_attrs_reach_new_ops_as_python_values():
    g = tf.Graph()
    with g.as_default():
        scope = {"_A": A.AttrValue(s=b"foo"), "_n": A.AttrValue(i=3), "_t": A.AttrValue(type=1),
                 "_l": A.AttrValue(list=A.AttrValue.ListValue(i=[1, 2]))}
        with g._attr_scope(scope):
            a = tf.no_op()
            with g._attr_scope({"_A": lambda node_def: A.AttrValue(s=node_def.name.encode())}):
                b = tf.no_op(name="bee")
        c = tf.no_op()
    assert (a.get_attr("_A"), a.get_attr("_n"), a.get_attr("_t"), a.get_attr("_l")) == (b"foo", 3, tf.float32, [1, 2])
    assert b.get_attr("_A") == b"bee"
    with pytest.raises(ValueError):
        c.get_attr("_A")


def test_none_lifts_an_outer_scopes_attr_and_exit_restores_it():
    g = tf.Graph()
    with g.as_default():
        with g._attr_scope({"_A": A.AttrValue(s=b"foo")}):
            with g._attr_scope({"_A": None, "_B": A.AttrValue(s=b"bar")}):
                inner = tf.no_op()
            outer = tf.no_op()
    assert "_A" not in inner.attrs and inner.get_attr("_B") == b"bar"
    assert outer.get_attr("_A") == b"foo" and "_B" not in outer.attrs


def test_bad_attr_maps_raise_tf_type_errors():
    g = tf.Graph()
    with g.as_default():
        with pytest.raises(TypeError, match=r"^attr_map must be a dictionary mapping strings to AttrValue protocol "
                                            r"buffers or callables that emit AttrValue protocol buffers$"):
            with g._attr_scope({"_A": 3}):
                pass
        with pytest.raises(TypeError, match=r"^attr_map must be a dictionary mapping strings to AttrValue protocol "
                                            r"buffers$"):
            with g._attr_scope([]):
                pass
        with pytest.raises(KeyError):  # None lifts an attr; with nothing to lift TF raises KeyError
            with g._attr_scope({"_Z": None}):
                pass
        with pytest.raises(TypeError, match=r"^Callable for scope map key '_A' must return either None or an "
                                            r"AttrValue protocol buffer; but it returned: 3$"):
            with g._attr_scope({"_A": lambda node_def: 3}):
                tf.no_op()


def test_set_attr_keeps_an_attr_value_as_its_python_value():
    with tf.Graph().as_default():
        op = tf.no_op()
        op._set_attr("_s", A.AttrValue(list=A.AttrValue.ListValue(s=[b"loc:@x"])))
        op._set_attr("_b", A.AttrValue(b=False))
    assert op.get_attr("_s") == [b"loc:@x"] and op.get_attr("_b") is False
