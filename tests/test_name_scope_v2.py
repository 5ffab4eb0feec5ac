"""TF 2.x's ``name_scope(name)`` (``ops.name_scope_v2``) in graph mode, and ``ops.get_name_scope``:
one scope object can be entered again, each time a fresh (uniquified) scope of the default graph."""
import pytest

import devlab as tf
from devlab.framework.scopes import get_name_scope, name_scope_v2


def test_name_scope_v2_is_reentrant():
    with tf.Graph().as_default():
        foo, bar = name_scope_v2("foo"), name_scope_v2("bar")
        with foo as scope:
            assert scope == "foo/"
            with foo as scope:
                assert scope == "foo/foo/"
            with bar as scope:
                assert (scope, get_name_scope()) == ("foo/bar/", "foo/bar")
                with foo as scope:
                    assert scope == "foo/bar/foo/"
        with bar as scope:
            assert scope == "bar/"
        with foo as scope:
            assert scope == "foo_1/" and tf.constant(1.0).name == "foo_1/Const:0"
        assert get_name_scope() == ""


def test_name_scope_v2_needs_a_string():
    with pytest.raises(ValueError, match="^name for name_scope must be a string.$"):
        name_scope_v2(None)


def test_graph_mode_keeps_building_in_the_default_graph():
    from devlab.framework.eager_context import graph_mode
    with tf.Graph().as_default() as g:
        with graph_mode():
            assert not tf.executing_eagerly()
            c = tf.constant(1.0)
        assert c.graph is g and tf.get_default_graph() is g
