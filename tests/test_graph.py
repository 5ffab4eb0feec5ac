"""Graph construction: names, scopes, device functions, colocation, control deps, collections."""
import pytest

import devlab as tf


def names():
    return [op.name for op in tf.get_default_graph().get_operations()]


def test_name_uniquification_and_scopes():
    tf.constant(1.0)
    tf.constant(2.0)
    with tf.name_scope("layer"):
        tf.constant(1.0, name="a")
    with tf.name_scope("layer"):
        tf.constant(1.0, name="a")
    assert names() == ["Const", "Const_1", "layer/a", "layer_1/a"]


def test_names_are_case_insensitively_unique():
    tf.constant(1.0, name="A")
    tf.constant(1.0, name="a")
    assert names() == ["A", "a_1"]


def test_variable_builds_tf_ops_and_colocates_its_writers():
    v = tf.Variable(1.0, name="v")
    assert [(op.name, op.type) for op in tf.get_default_graph().get_operations()] == [
        ("v/initial_value", "Const"), ("v", "VariableV2"), ("v/Assign", "Assign"), ("v/read", "Identity")]
    assert v.op.outputs[0].dtype == tf.float32._as_ref
    g = tf.get_default_graph()
    assert g.get_operation_by_name("v/Assign").colocation_groups() == [b"loc:@v"]
    assert g.get_operation_by_name("v/read").colocation_groups() == [b"loc:@v"]
    add = v.assign_add(2.0)
    assert add.op.colocation_groups() == [b"loc:@v"]
    assert v in tf.global_variables() and v in tf.trainable_variables()


def test_math_op_names_follow_tf():
    a = tf.constant(1.0, name="a")
    b = tf.add(a, 2.0, name="b")
    c = a + 1.0
    d = tf.matmul(tf.ones([2, 2]), tf.ones([2, 2]))
    assert [b.op.name, b.op.type, b.op.inputs[1].op.name] == ["b", "AddV2", "b/y"]
    assert [c.op.name, c.op.inputs[1].op.name] == ["add", "add/y"]
    assert d.op.name == "MatMul" and d.shape.as_list() == [2, 2]


def test_shape_errors_use_tf_words_and_name_the_line():
    a = tf.constant([[1.0, 2.0, 3.0]])
    with pytest.raises(ValueError) as e:
        tf.matmul(a, a)
    msg = str(e.value)
    assert msg.startswith("Dimensions must be equal, but are 3 and 1 for '{{node MatMul}} = MatMul")
    assert "with input shapes: [1,3], [1,3]" in msg and "test_graph.py" in msg
    assert names() == ["Const"]  # the failed op was not added


def test_dtype_mismatch_is_tf_type_error():
    with pytest.raises(TypeError, match="Input 'y' of 'AddV2' Op has type int32 that does not match type float32"):
        tf.add(tf.constant(1.0), tf.constant(1))


def test_device_none_clears_enclosing_scopes_and_empty_string_does_not():
    with tf.device("/cpu:1"):
        with tf.device(None):
            a = tf.constant(1.0)
        with tf.device(""):
            b = tf.constant(1.0)
        with tf.device(lambda op: "/job:x"):
            with tf.device(None):
                c = tf.constant(1.0)
    assert (a.device, b.device, c.device) == ("", "/device:CPU:1", "")


def test_device_function_sees_op_and_may_not_return_none():
    with tf.device(lambda op: "/device:GPU:0" if op.type == "MatMul" else "/cpu:0"):
        m = tf.matmul(tf.ones([1, 1]), tf.ones([1, 1]))
    assert m.device == "/device:GPU:0" and m.op.inputs[0].device == "/cpu:0"
    with tf.device(lambda op: None):
        with pytest.raises(TypeError, match="Expected binary or unicode string, got None"):
            tf.constant(1.0)


def test_function_outside_overrides_inner_string():
    with tf.device(lambda op: "/job:overwrite"):
        with tf.device("/job:ps"):
            a = tf.constant(1.0)
    assert a.device == "/job:overwrite"


def test_device_assignments_record_scopes_and_lines():
    def device_func(op):
        return "/cpu:0"
    with tf.device("/cpu"):
        with tf.device("/cpu:0"):
            a = tf.constant(1.0)
    with tf.device(device_func):
        b = tf.constant(1.0)
    assert [t.obj for t in a.op._device_assignments] == ["/cpu:0", "/cpu"]  # as written, as in TF
    assert all(t.filename.endswith("test_graph.py") for t in a.op._device_assignments)
    assert b.op._device_assignments[0].obj.startswith("device_func<")
    assert tf.constant(1.0).op._device_assignments == []


def test_colocation_nesting_and_ignore_existing():
    a, b = tf.constant(1.0, name="a"), tf.constant(1.0, name="b")
    with tf.colocate_with(a.op):
        c = tf.constant(1.0, name="c")
        with tf.colocate_with(b.op):
            d = tf.constant(1.0, name="d")
        with tf.colocate_with(b.op, ignore_existing=True):
            e = tf.constant(1.0, name="e")
        with tf.colocate_with(None, ignore_existing=True):
            f = tf.constant(1.0, name="f")
    with tf.colocate_with(c):
        g = tf.constant(1.0, name="g")
    assert c.op.colocation_groups() == [b"loc:@a"]
    assert d.op.colocation_groups() == [b"loc:@a", b"loc:@b"]
    assert e.op.colocation_groups() == [b"loc:@b"]
    assert f.op.colocation_groups() == [b"loc:@f"]
    assert g.op.colocation_groups() == [b"loc:@a"]
    with pytest.raises(ValueError, match="has no attr named '_class'"):
        a.op.get_attr("_class")
    assert c.op._colocation_dict["a"].obj is None


def test_colocate_with_none_needs_ignore_existing():
    with pytest.raises(ValueError, match="ignore_existing is not True"):
        with tf.colocate_with(None):
            pass


def test_colocation_beats_outer_and_inner_device_scopes():
    with tf.device("/cpu:0"):
        with tf.device("/device:GPU:0"):
            a = tf.constant(1.0)
        with tf.colocate_with(a):
            b = tf.constant(1.0)
            with tf.device("/cpu:0"):
                c = tf.constant(1.0)
    assert b.device == c.device == "/device:GPU:0"


def test_control_dependencies_skip_inputs_and_dominated_ops():
    a = tf.constant(1.0, name="a")
    with tf.control_dependencies([a]):
        b = tf.constant(2.0, name="b")
        c = tf.identity(b, name="c")
        d = tf.identity(a, name="d")
    assert b.op.control_inputs == [a.op]
    assert c.op.control_inputs == []  # b already waits for a
    assert d.op.control_inputs == []  # a is a data input
    with tf.control_dependencies([a]):
        with tf.control_dependencies(None):
            e = tf.constant(1.0)
    assert e.op.control_inputs == []


def test_group_puts_noop_on_common_device_or_splits_per_device():
    with tf.device("/cpu:0"):
        a, b = tf.constant(1.0), tf.constant(2.0)
    g1 = tf.group(a, b)
    assert g1.device == "/device:CPU:0" and set(g1.control_inputs) == {a.op, b.op}
    with tf.device("/gpu:0"):
        c = tf.constant(1.0)
    g2 = tf.group(a, c)
    assert g2.device == "" and len(g2.control_inputs) == 2
    assert {op.device for op in g2.control_inputs} == {"/device:CPU:0", "/device:GPU:0"}


def test_collections_and_node_def():
    a = tf.constant(1.0, name="a")
    tf.add_to_collection("mine", a)
    assert tf.get_collection("mine") == [a]
    with tf.device("/gpu:0"):
        b = tf.sin(a, name="b")
    nd = b.op.node_def
    assert isinstance(nd, tf.NodeDef) and (nd.name, nd.op, nd.device, nd.input) == ("b", "Sin", "/device:GPU:0", ["a"])


def test_get_variable_reuse_rules():
    with tf.variable_scope("layer"):
        w = tf.get_variable("w", [2, 3])
    with tf.variable_scope("layer", reuse=True):
        assert tf.get_variable("w") is w
    with pytest.raises(ValueError, match="already exists, disallowed"):
        with tf.variable_scope("layer"):
            tf.get_variable("w", [2, 3])
    with pytest.raises(ValueError, match="does not exist"):
        with tf.variable_scope("other", reuse=True):
            tf.get_variable("w", [1])
    assert w.op.name == "layer/w"
    init_ops = [op for op in tf.get_default_graph().get_operations() if op.name.startswith("layer/w/Initializer")]
    assert init_ops and all(op.colocation_groups() == [b"loc:@layer/w"] and op.device == "" for op in init_ops)


def test_building_10k_ops_keeps_every_name_unique():
    x = tf.constant(1.0)
    for _ in range(10_000):
        x = x + 1.0
    ops = tf.get_default_graph().get_operations()
    assert len({op.name for op in ops}) == len(ops) == 20_001


def test_reentered_root_variable_scope_keeps_the_tower_name_scope():
    """The multi-GPU tower idiom; names checked against TF 2.21."""
    x = tf.ones([2, 3])
    with tf.name_scope("tower_0"):
        with tf.variable_scope(tf.get_variable_scope()):
            y0 = tf.matmul(x, tf.get_variable("w", [3, 3]))
    with tf.name_scope("tower_1"):
        with tf.variable_scope(tf.get_variable_scope(), reuse=True):
            y1 = tf.matmul(x, tf.get_variable("w", [3, 3]))
    assert (y0.op.name, y1.op.name) == ("tower_0/MatMul", "tower_1/MatMul")
    assert [v.op.name for v in tf.global_variables()] == ["w"]
    with tf.variable_scope("foo") as vs:
        a = tf.sin(x)
    with tf.variable_scope(vs):
        b = tf.sin(x)
        assert tf.get_variable_scope().original_name_scope == "foo/"
    assert (a.op.name, b.op.name) == ("foo/Sin", "foo_1/Sin")


def test_default_scope_names_restart_when_a_variable_scope_is_reentered():
    """Train and eval nets sharing weights: the second block's layers are dense, dense_1 again."""
    x = tf.ones([2, 3])
    with tf.variable_scope("net"):
        tf.layers.dense(x, 4)
        tf.layers.dense(x, 4)
    with tf.variable_scope("net", reuse=True):
        tf.layers.dense(x, 4)
        tf.layers.dense(x, 4)
    assert [v.op.name for v in tf.global_variables()] == [
        "net/dense/kernel", "net/dense/bias", "net/dense_1/kernel", "net/dense_1/bias"]
    with tf.variable_scope(None, default_name="blk"):
        with tf.variable_scope(None, default_name="sub") as s1:
            pass
        with tf.variable_scope(None, default_name="sub") as s2:
            pass
    with tf.variable_scope(None, default_name="blk") as b2:
        with tf.variable_scope(None, default_name="sub") as s3:
            pass
    assert (s1.name, s2.name, b2.name, s3.name) == ("blk/sub", "blk/sub_1", "blk_1", "blk_1/sub")


def test_a_variable_made_from_a_callable_carries_its_own_colocation_attr_as_in_tensorflow():
    """TF builds a callable initial value, and the variable op itself, in the attr scope
    ``_class: loc:@<variable>``; a variable from a tensor has no such attr (TF 2.21)."""
    v = tf.get_variable("w", [3], initializer=tf.ones_initializer())
    u = tf.Variable(tf.zeros([2]), name="u")
    with tf.colocate_with(v):
        s = tf.Variable(lambda: tf.zeros([3]), name="w_slot")
    assert v.op.get_attr("_class") == [b"loc:@w"]
    assert "_class" not in u.op.attrs
    assert s.op.get_attr("_class") == [b"loc:@w"]  # an enclosing colocate_with wins, as in TF


def test_init_scope_lifts_ops_out_of_function_graphs():
    # TF 2.21: into the innermost default graph not building a function, under the inner name
    # scope and device; with every graph building one, into the global default graph
    from devlab.framework import graph as graph_mod
    g0, g1 = tf.Graph(), tf.Graph()
    g1._building_function = True
    with g0.as_default():
        with tf.name_scope("outer"):
            with g1.as_default():
                with tf.name_scope("inner"), tf.device("/gpu:0"):
                    with graph_mod.init_scope():
                        c = tf.constant(1.0)
                        assert tf.get_default_graph() is g0
    assert c.graph is g0 and c.op.name == "inner/Const" and c.device == "/device:GPU:0"
    assert g1.get_operations() == [] and g1.building_function and not g0.building_function
    g = tf.Graph()
    g._building_function = True
    depth = len(graph_mod._default_graph_stack.stack)
    with g.as_default():
        assert len(graph_mod._default_graph_stack.stack) == depth + 1
        with graph_mod.init_scope():
            d = tf.constant(2.0)
            assert len(graph_mod._default_graph_stack.stack) == depth + 2
    assert d.graph is tf.get_default_graph() and d.graph is not g


def test_str_of_an_op_is_its_node_def_text():
    with tf.Graph().as_default():
        op = tf.no_op(name="op1")
    assert str(op) == str(op.node_def) == 'name: "op1"\nop: "NoOp"\n'


def test_consumers_lists_an_op_once_per_input_it_takes():
    # TF 2.21: tf.add(x, x) consumes x twice
    with tf.Graph().as_default():
        x = tf.constant(1)
        z = tf.add(x, x)
        w = tf.identity(x)
    assert x.consumers() == [z.op, z.op, w.op]


def test_rewiring_an_input_to_another_dtype_fails_every_run_until_undone():
    # TF 2.21: _update_input takes the tensor; each run of the graph then fails (op None)
    with tf.Graph().as_default():
        w, x, y = tf.constant(0), tf.constant(""), tf.constant(1)
        z = y + w
        other = y * 2
        with tf.Session() as s:
            assert s.run(z) == 1
            z.op._update_input(0, x)
            for fetch in (other, z):
                with pytest.raises(tf.errors.InvalidArgumentError) as caught:
                    s.run(fetch)
                assert str(caught.value) == ("Graph execution error:\n\nInput 0 of node add was passed string from "
                                             "Const_1:0 incompatible with expected int32.") and caught.value.op is None
            z.op._update_input(0, y)  # the same session runs the rewired graph
            assert s.run([z, other]) == [1, 2]
            z.op._update_input(1, y)
            assert s.run(z) == 2
