# Ported from TensorFlow's tensorflow/python/framework/ops_test.py
# (Copyright 2015 The TensorFlow Authors; Apache License 2.0), to run against `import devlab as tf`:
# the tests about devices, device functions, colocation and control dependencies (OperationTest
# and CreateOpTest/ApplyOpTest device cases, DeviceTest, MultithreadedGraphStateTest,
# ControlDependenciesTest, DeviceStackTest, ColocationGroupTest).
#
# Adaptations: TF builds its unregistered test ops ("FloatOutput", ...) with Graph.create_op;
# devlab's Graph.create_op takes the same (op_type, inputs, dtypes, name=...) and, like TF, does
# not look the type up. The optional `input_types` positional (None in every call) is left out.
# `ops.Operation(ops._NodeDef(...), g)` becomes `g.create_op(...)`. Text-proto comparisons of
# `as_graph_def()` become `assert_graph_nodes` with the same names, ops, devices and attrs, and
# the "ops_test.py" filename checks name this file. Left out: see README.md.
import os
import re
import threading

import pytest

import devlab as tf
from devlab.framework import device_spec as pydev
from devlab.framework import dtypes

from .tf_test_util import assert_device_equal, assert_graph_nodes, assert_items_equal

THIS_FILE = os.path.basename(__file__)


def _apply_op(g, *args, **kwargs):
    op = g.create_op(*args, **kwargs)
    if len(op.outputs) == 1:
        return op.outputs[0]
    else:
        return op.outputs


def _node(node_def):
    return dict(name=node_def.name, op=node_def.op, device=node_def.device, input=list(node_def.input))


# -- OperationTest ----------------------------------------------------------------------------


def test_operation_device_object():
    op = tf.Graph().create_op("None", [], [], name="myop")
    op._set_device("/job:goo/device:GPU:0")
    assert _node(op.node_def) == dict(name="myop", op="None", device="/job:goo/device:GPU:0", input=[])
    op = tf.Graph().create_op("None", [], [], name="op2")
    op._set_device(pydev.DeviceSpec(job="muu", device_type="CPU", device_index=0))
    assert _node(op.node_def) == dict(name="op2", op="None", device="/job:muu/device:CPU:0", input=[])


# -- CreateOpTest / ApplyOpTest ---------------------------------------------------------------


def test_create_op_node_def_args():
    g = tf.Graph()
    op1 = g.create_op("FloatOutput", [], [dtypes.float32], name="myop1")
    with g.device("/device:GPU:0"):
        op2 = g.create_op("FloatOutputStringOutput", [], [dtypes.float32, dtypes.string], name="myop2")
    op3 = g.create_op("Foo3", [list(op1.values())[0], list(op2.values())[1], list(op2.values())[0]],
                      [dtypes.float32, dtypes.int32], name="myop3")
    assert_device_equal(None, op1.device)
    assert_device_equal("/device:GPU:0", op2.device)
    assert_device_equal(None, op3.device)
    assert _node(op1.node_def) == dict(name="myop1", op="FloatOutput", device="", input=[])
    assert _node(op2.node_def) == dict(name="myop2", op="FloatOutputStringOutput", device="/device:GPU:0",
                                       input=[])
    assert _node(op3.node_def) == dict(name="myop3", op="Foo3", device="",
                                       input=["myop1", "myop2:1", "myop2"])


def test_apply_op_node_def_args():
    g = tf.Graph()
    t1 = _apply_op(g, "FloatOutput", [], [dtypes.float32], name="myop1")
    with g.device("/device:GPU:0"):
        t2 = _apply_op(g, "TwoIntOutputs", [], [dtypes.int32, dtypes.int32], name="myop2")
    t3 = _apply_op(g, "Foo1", [t1, t2[1], t2[0]], [dtypes.float32, dtypes.int32], name="myop3")
    assert isinstance(t1, tf.Tensor)
    assert isinstance(t2, list)
    assert isinstance(t3, list)
    assert isinstance(t3[0], tf.Tensor)
    assert "myop1" == t1._as_node_def_input()
    assert "myop2" == t2[0]._as_node_def_input()
    assert "myop2:1" == t2[1]._as_node_def_input()
    assert "myop3" == t3[0]._as_node_def_input()
    # Validate that we got the right ops as well
    assert _node(t1.op.node_def) == dict(name="myop1", op="FloatOutput", device="", input=[])
    assert _node(t2[0].op.node_def) == dict(name="myop2", op="TwoIntOutputs", device="/device:GPU:0", input=[])
    assert _node(t3[0].op.node_def) == dict(name="myop3", op="Foo1", device="",
                                            input=["myop1", "myop2:1", "myop2"])


# -- DeviceTest ---------------------------------------------------------------------------------


class TestDevice:

    def test_no_device(self):
        g = tf.Graph()
        op = g.create_op("FloatOutput", [], [dtypes.float32])
        assert_device_equal(None, op.device)
        assert_graph_nodes(g, [dict(name="FloatOutput", op="FloatOutput")])

    def test_device_partial_string(self):
        g = tf.Graph()
        with g.device("/job:worker/replica:2"):
            g.create_op("FloatOutput", [], [dtypes.float32])
        assert_graph_nodes(g, [dict(name="FloatOutput", op="FloatOutput", device="/job:worker/replica:2")])

    def test_device_full(self):
        g = tf.Graph()
        with g.device(pydev.DeviceSpec(job="worker", replica=2, task=0, device_type="CPU", device_index=3)):
            g.create_op("FloatOutput", [], [dtypes.float32])
        assert_graph_nodes(g, [dict(name="FloatOutput", op="FloatOutput",
                                    device="/job:worker/replica:2/task:0/device:CPU:3")])

    def test_nesting(self):
        g = tf.Graph()
        with g.device("/job:worker/replica:2"):
            g.create_op("FloatOutput", [], [dtypes.float32])
            with g.device("/job:worker/replica:3/task:0"):
                g.create_op("FloatOutput", [], [dtypes.float32])
            g.create_op("FloatOutput", [], [dtypes.float32])
        assert_graph_nodes(g, [
            dict(name="FloatOutput", op="FloatOutput", device="/job:worker/replica:2"),
            dict(name="FloatOutput_1", op="FloatOutput", device="/job:worker/replica:3/task:0"),
            dict(name="FloatOutput_2", op="FloatOutput", device="/job:worker/replica:2"),
        ])

    def test_nesting_string(self):
        g = tf.Graph()
        with g.device("/job:worker/replica:2"):
            g.create_op("FloatOutput", [], [dtypes.float32])
            with g.device("/job:worker/replica:3/task:0"):
                g.create_op("FloatOutput", [], [dtypes.float32])
            g.create_op("FloatOutput", [], [dtypes.float32])
        assert_graph_nodes(g, [
            dict(name="FloatOutput", op="FloatOutput", device="/job:worker/replica:2"),
            dict(name="FloatOutput_1", op="FloatOutput", device="/job:worker/replica:3/task:0"),
            dict(name="FloatOutput_2", op="FloatOutput", device="/job:worker/replica:2"),
        ])

    def test_nesting_override_gpu_cpu(self):
        g = tf.Graph()
        with g.device("/job:worker/replica:2/device:CPU:1"):
            g.create_op("FloatOutput", [], [dtypes.float32])
            with g.device("/job:worker/replica:2/device:GPU:2"):
                g.create_op("FloatOutput", [], [dtypes.float32])
            g.create_op("FloatOutput", [], [dtypes.float32])
        assert_graph_nodes(g, [
            dict(name="FloatOutput", op="FloatOutput", device="/job:worker/replica:2/device:CPU:1"),
            dict(name="FloatOutput_1", op="FloatOutput", device="/job:worker/replica:2/device:GPU:2"),
            dict(name="FloatOutput_2", op="FloatOutput", device="/job:worker/replica:2/device:CPU:1"),
        ])

    def test_nesting_with_merge_device_function(self):
        g = tf.Graph()

        with g.device(pydev.merge_device("/device:GPU:0")):
            g.create_op("FloatOutput", [], [dtypes.float32])
            with g.device(pydev.merge_device("/job:worker")):
                g.create_op("FloatOutput", [], [dtypes.float32])
                with g.device(pydev.merge_device("/device:CPU:0")):
                    g.create_op("FloatOutput", [], [dtypes.float32])
                    with g.device(pydev.merge_device("/job:ps")):
                        g.create_op("FloatOutput", [], [dtypes.float32])
                        with g.device(pydev.merge_device(None)):
                            g.create_op("FloatOutput", [], [dtypes.float32])

        assert_graph_nodes(g, [
            dict(name="FloatOutput", op="FloatOutput", device="/device:GPU:0"),
            dict(name="FloatOutput_1", op="FloatOutput", device="/job:worker/device:GPU:0"),
            dict(name="FloatOutput_2", op="FloatOutput", device="/job:worker/device:CPU:0"),
            dict(name="FloatOutput_3", op="FloatOutput", device="/job:ps/device:CPU:0"),
            dict(name="FloatOutput_4", op="FloatOutput", device="/job:ps/device:CPU:0"),
        ])

    def test_nesting_with_device_strings(self):
        g = tf.Graph()

        with g.device("/device:GPU:0"):
            g.create_op("FloatOutput", [], [dtypes.float32])
            with g.device("/job:worker"):
                g.create_op("FloatOutput", [], [dtypes.float32])
                with g.device("/device:CPU:0"):
                    g.create_op("FloatOutput", [], [dtypes.float32])
                    with g.device("/job:ps"):
                        g.create_op("FloatOutput", [], [dtypes.float32])
                        with g.device(""):
                            g.create_op("FloatOutput", [], [dtypes.float32])

        assert_graph_nodes(g, [
            dict(name="FloatOutput", op="FloatOutput", device="/device:GPU:0"),
            dict(name="FloatOutput_1", op="FloatOutput", device="/job:worker/device:GPU:0"),
            dict(name="FloatOutput_2", op="FloatOutput", device="/job:worker/device:CPU:0"),
            dict(name="FloatOutput_3", op="FloatOutput", device="/job:ps/device:CPU:0"),
            dict(name="FloatOutput_4", op="FloatOutput", device="/job:ps/device:CPU:0"),
        ])

    def test_nesting_with_device_string_wildcard(self):
        g = tf.Graph()

        with g.device("/device:GPU:7"):
            g.create_op("FloatOutput", [], [dtypes.float32])
            with g.device("/device:GPU:*"):
                g.create_op("FloatOutput", [], [dtypes.float32])

        with g.device("/device:CPU:*"):
            g.create_op("FloatOutput", [], [dtypes.float32])
            with g.device("/device:CPU:5"):
                g.create_op("FloatOutput", [], [dtypes.float32])

        assert_graph_nodes(g, [
            dict(name="FloatOutput", op="FloatOutput", device="/device:GPU:7"),
            dict(name="FloatOutput_1", op="FloatOutput", device="/device:GPU:7"),
            dict(name="FloatOutput_2", op="FloatOutput", device="/device:CPU:*"),
            dict(name="FloatOutput_3", op="FloatOutput", device="/device:CPU:5"),
        ])

    def test_nesting_error_graph(self):
        g = tf.Graph()
        scope = g.device("/device:GPU:8")
        scope.__enter__()
        with g.device("/device:GPU:9"):
            with pytest.raises(RuntimeError):
                scope.__exit__(None, None, None)

    def test_none_clears_default(self):
        g = tf.Graph()
        with g.device("/job:worker/replica:2/device:CPU:1"):
            g.create_op("FloatOutput", [], [dtypes.float32])
            with g.device(None):
                g.create_op("FloatOutput", [], [dtypes.float32])
            g.create_op("FloatOutput", [], [dtypes.float32])
        assert_graph_nodes(g, [
            dict(name="FloatOutput", op="FloatOutput", device="/job:worker/replica:2/device:CPU:1"),
            dict(name="FloatOutput_1", op="FloatOutput"),
            dict(name="FloatOutput_2", op="FloatOutput", device="/job:worker/replica:2/device:CPU:1"),
        ])

    def test_none_ignores_outer_device_function(self):
        g = tf.Graph()
        with g.device(lambda op: "/job:worker/replica:2/device:CPU:1"):
            g.create_op("FloatOutput", [], [dtypes.float32])
            with g.device(None):
                g.create_op("FloatOutput", [], [dtypes.float32])
            g.create_op("FloatOutput", [], [dtypes.float32])
        assert_graph_nodes(g, [
            dict(name="FloatOutput", op="FloatOutput", device="/job:worker/replica:2/device:CPU:1"),
            dict(name="FloatOutput_1", op="FloatOutput"),
            dict(name="FloatOutput_2", op="FloatOutput", device="/job:worker/replica:2/device:CPU:1"),
        ])

    def _overwriting_device_function(self, unused_op):
        # This device function unconditionally overwrites the device of ops.
        #
        # NOTE(mrry): Writing device functions like this is not
        # recommended. Instead, in most cases you should use
        # `pydev.merge_device("/job:ps")` or simply `"/job:ps"` as the
        # argument to `tf.device()` and the device component will be merged in.
        return "/job:overwrite"

    def test_overwriting_behavior(self):
        g = tf.Graph()
        with g.device(self._overwriting_device_function):
            g.create_op("FloatOutput", [], [dtypes.float32])
            with g.device("/job:ps"):  # Will be overwritten.
                g.create_op("FloatOutput", [], [dtypes.float32])
            with g.device(pydev.merge_device("/job:ps")):  # Will be overwritten.
                g.create_op("FloatOutput", [], [dtypes.float32])
            with g.device(None):  # Disables overwriting device function
                with g.device("/job:ps"):
                    g.create_op("FloatOutput", [], [dtypes.float32])
            with g.device(None):  # Disables overwriting device function
                with g.device(pydev.merge_device("/job:ps")):
                    g.create_op("FloatOutput", [], [dtypes.float32])
        assert_graph_nodes(g, [
            dict(name="FloatOutput", op="FloatOutput", device="/job:overwrite"),
            dict(name="FloatOutput_1", op="FloatOutput", device="/job:overwrite"),
            dict(name="FloatOutput_2", op="FloatOutput", device="/job:overwrite"),
            dict(name="FloatOutput_3", op="FloatOutput", device="/job:ps"),
            dict(name="FloatOutput_4", op="FloatOutput", device="/job:ps"),
        ])


# -- MultithreadedGraphStateTest ----------------------------------------------------------------


class _TestThread(threading.Thread):

    def __init__(self, graph, replica_id):
        super().__init__()
        self._graph = graph
        self._replica_id = replica_id
        # This thread sets this event when it mutated the graph.  The caller can
        # wait for that.
        self.has_mutated_graph = threading.Event()
        # This thread waits for when it should continue.  The caller can set this
        # event.
        self.should_continue = threading.Event()

    def run(self):
        # Mutate a graph's stack, then set `has_mutated_graph`, then wait for
        # `should_continue`, then add an op to the graph affected by the graph's
        # stack.
        raise NotImplementedError("must be implemented in descendants")


def _run_in_lockstep(threads):
    """TF's start/wait/continue/join sequence, with timeouts so that a thread that fails
    before it mutates the graph fails the test instead of hanging it."""
    for t in threads:
        t.start()
        assert t.has_mutated_graph.wait(timeout=10), "the thread failed before it mutated the graph"
        t.has_mutated_graph.clear()
    for t in threads:
        t.should_continue.set()
        t.join(timeout=10)


class TestMultithreadedGraphState:

    def test_device_function_stack(self):

        class DeviceSettingThread(_TestThread):

            def run(self):
                with g.device("/job:worker/replica:{}".format(self._replica_id)):
                    self.has_mutated_graph.set()
                    self.should_continue.wait()
                    self.should_continue.clear()
                    g.create_op("FloatOutput", [], [dtypes.float32], name="FloatOutput_{}".format(self._replica_id))

        g = tf.Graph()
        # If `switch_to_thread` isn't called, then device placement of the ops
        # below is not deterministic.
        g.switch_to_thread_local()
        _run_in_lockstep([DeviceSettingThread(g, i) for i in range(3)])

        assert_graph_nodes(g, [
            dict(name="FloatOutput_0", op="FloatOutput", device="/job:worker/replica:0"),
            dict(name="FloatOutput_1", op="FloatOutput", device="/job:worker/replica:1"),
            dict(name="FloatOutput_2", op="FloatOutput", device="/job:worker/replica:2"),
        ])

    def test_colocate_with(self):

        class ColocatingThread(_TestThread):

            def __init__(self, graph, replica_id, op_to_colocate_with):
                super().__init__(graph, replica_id)
                self._op_to_colocate_with = op_to_colocate_with

            def run(self):
                with g.colocate_with(self._op_to_colocate_with):
                    self.has_mutated_graph.set()
                    self.should_continue.wait()
                    self.should_continue.clear()
                    g.create_op("FloatOutput", [], [dtypes.float32], name="FloatOutput_{}".format(self._replica_id))

        g = tf.Graph()
        ops_to_colocate_with = []
        for i in range(3):
            with g.device("/job:worker/replica:{}".format(i)):
                ops_to_colocate_with.append(
                    g.create_op("FloatOutput", [], [dtypes.float32], name="ColocateWithMe_{}".format(i)))

        # If `switch_to_thread` isn't called, then `device` and `attr` values for
        # the ops below are not deterministic.
        g.switch_to_thread_local()
        _run_in_lockstep([ColocatingThread(g, i, ops_to_colocate_with[i]) for i in range(3)])

        assert_graph_nodes(g, [
            dict(name="ColocateWithMe_0", op="FloatOutput", device="/job:worker/replica:0"),
            dict(name="ColocateWithMe_1", op="FloatOutput", device="/job:worker/replica:1"),
            dict(name="ColocateWithMe_2", op="FloatOutput", device="/job:worker/replica:2"),
            dict(name="FloatOutput_0", op="FloatOutput", device="/job:worker/replica:0",
                 attr={"_class": [b"loc:@ColocateWithMe_0"]}),
            dict(name="FloatOutput_1", op="FloatOutput", device="/job:worker/replica:1",
                 attr={"_class": [b"loc:@ColocateWithMe_1"]}),
            dict(name="FloatOutput_2", op="FloatOutput", device="/job:worker/replica:2",
                 attr={"_class": [b"loc:@ColocateWithMe_2"]}),
        ])

    def test_control_dependencies(self):

        class DependingThread(_TestThread):

            def __init__(self, graph, replica_id, dependency_op):
                super().__init__(graph, replica_id)
                self._dependency_op = dependency_op

            def run(self):
                with g.control_dependencies([self._dependency_op]):
                    self.has_mutated_graph.set()
                    self.should_continue.wait()
                    self.should_continue.clear()
                    g.create_op("FloatOutput", [], [dtypes.float32], name="FloatOutput_{}".format(self._replica_id))

        g = tf.Graph()
        dependency_ops = []
        for i in range(3):
            dependency_ops.append(g.create_op("FloatOutput", [], [dtypes.float32], name="ColocateWithMe_{}".format(i)))

        # If `switch_to_thread` isn't called, then `input` values for the ops below
        # are not deterministic.
        g.switch_to_thread_local()
        _run_in_lockstep([DependingThread(g, i, dependency_ops[i]) for i in range(3)])

        assert_graph_nodes(g, [
            dict(name="ColocateWithMe_0", op="FloatOutput", attr={"_has_manual_control_dependencies": True}),
            dict(name="ColocateWithMe_1", op="FloatOutput", attr={"_has_manual_control_dependencies": True}),
            dict(name="ColocateWithMe_2", op="FloatOutput", attr={"_has_manual_control_dependencies": True}),
            dict(name="FloatOutput_0", op="FloatOutput", input=["^ColocateWithMe_0"]),
            dict(name="FloatOutput_1", op="FloatOutput", input=["^ColocateWithMe_1"]),
            dict(name="FloatOutput_2", op="FloatOutput", input=["^ColocateWithMe_2"]),
        ])

    def test_name_stack(self):

        class NameSettingThread(_TestThread):

            def run(self):
                with g.name_scope("foo"):
                    op1 = g.create_op("FloatOutput", [], [dtypes.float32])
                    self.has_mutated_graph.set()
                    self.should_continue.wait()
                    self.should_continue.clear()
                    op2 = g.create_op("FloatOutput", [], [dtypes.float32])
                    self.result = (op1, op2)

        g = tf.Graph()
        threads = [NameSettingThread(g, i) for i in range(3)]
        _run_in_lockstep(threads)

        suffixes = ["", "_1", "_2"]
        for t, s in zip(threads, suffixes):
            assert "foo" + s + "/FloatOutput" == t.result[0].name
            assert "foo" + s + "/FloatOutput_1" == t.result[1].name


# -- ControlDependenciesTest --------------------------------------------------------------------


class TestControlDependencies:

    def test_basic(self):
        g = tf.Graph()
        with g.as_default():
            a = tf.constant(1.0)
            b = tf.constant(1.0)
            with g.control_dependencies([a]):
                c = tf.constant(1.0)
                d = tf.identity(b)
                e = tf.identity(c)

        assert c.op.control_inputs == [a.op]
        assert d.op.control_inputs == [a.op]
        # e should be dominated by c.
        assert e.op.control_inputs == []

    def test_eager(self):
        # TF runs this in graph and eager modes; devlab is graph mode.
        def future():
            future.calls += 1
            return tf.constant(2.0)
        future.calls = 0

        g = tf.Graph()
        with g.as_default():
            a = tf.constant(1.0)
            b = future()
            with g.control_dependencies([a, b]):
                c = tf.constant(3.0)
        assert c.op.control_inputs == [a.op, b.op]
        assert future.calls == 1

    def test_basic_with_conversion(self):
        g = tf.Graph()
        a = _apply_op(g, "FloatOutput", [], [dtypes.float32])

        class ConvertibleObj(object):

            def _as_graph_element(self):
                return a

        with g.control_dependencies([ConvertibleObj()]):
            c = _apply_op(g, "FloatOutput", [], [dtypes.float32])

        assert c.op.control_inputs == [a.op]

    def test_nested(self):
        g = tf.Graph()
        a_1 = _apply_op(g, "FloatOutput", [], [dtypes.float32])
        a_2 = _apply_op(g, "FloatOutput", [], [dtypes.float32])
        a_3 = _apply_op(g, "FloatOutput", [], [dtypes.float32])
        a_4 = _apply_op(g, "FloatOutput", [], [dtypes.float32])

        with g.control_dependencies([a_1, a_2, a_3, a_4]):
            b_1 = _apply_op(g, "FloatOutput", [], [dtypes.float32])

        with g.control_dependencies([a_1]):
            with g.control_dependencies([a_2]):
                with g.control_dependencies([a_3]):
                    with g.control_dependencies([a_4]):
                        b_2 = _apply_op(g, "FloatOutput", [], [dtypes.float32])

        assert_items_equal([a_1.op, a_2.op, a_3.op, a_4.op], b_1.op.control_inputs)
        assert_items_equal(b_1.op.control_inputs, b_2.op.control_inputs)

    def test_clear(self):
        g = tf.Graph()
        a_1 = _apply_op(g, "FloatOutput", [], [dtypes.float32])
        a_2 = _apply_op(g, "FloatOutput", [], [dtypes.float32])
        a_3 = _apply_op(g, "FloatOutput", [], [dtypes.float32])
        a_4 = _apply_op(g, "FloatOutput", [], [dtypes.float32])

        with g.control_dependencies([a_1]):
            with g.control_dependencies([a_2]):
                with g.control_dependencies(None):
                    with g.control_dependencies([a_3]):
                        with g.control_dependencies([a_4]):
                            # deps [a_3, a_4]
                            b_3_4 = _apply_op(g, "FloatOutput", [], [dtypes.float32])
                        # deps = [a_3]
                        b_3 = _apply_op(g, "FloatOutput", [], [dtypes.float32])
                    # deps back to None
                    b_none = _apply_op(g, "FloatOutput", [], [dtypes.float32])
                # deps back to [a_1, a_2]
                b_1_2 = _apply_op(g, "FloatOutput", [], [dtypes.float32])
            # deps back to [a_1]
            b_1 = _apply_op(g, "FloatOutput", [], [dtypes.float32])
            with g.control_dependencies(None):
                # deps are None again
                b_none2 = _apply_op(g, "FloatOutput", [], [dtypes.float32])

        assert_items_equal([a_3.op, a_4.op], b_3_4.op.control_inputs)
        assert_items_equal([a_3.op], b_3.op.control_inputs)
        assert_items_equal([], b_none.op.control_inputs)
        assert_items_equal([a_1.op, a_2.op], b_1_2.op.control_inputs)
        assert_items_equal([a_1.op], b_1.op.control_inputs)
        assert_items_equal([], b_none2.op.control_inputs)

    def test_complex(self):
        g = tf.Graph()

        # Usage pattern:
        # * Nodes a_i are constants defined at the outermost scope, and are used
        #   as control inputs for the ith nested scope.
        # * Nodes b_i are defined as Mul(a_3, a_4) at each scope.
        # * Nodes c_i are defined as Mul(a_1, b_1) at each scope.
        # * Nodes d_i are defined as Mul(b_i, c_i) at each scope.
        # * Nodes e_i are defined as Mul(e_i-1, e_i-1) at each scope i > 1.

        a_1 = _apply_op(g, "FloatOutput", [], [dtypes.float32])
        a_2 = _apply_op(g, "FloatOutput", [], [dtypes.float32])
        a_3 = _apply_op(g, "FloatOutput", [], [dtypes.float32])
        a_4 = _apply_op(g, "FloatOutput", [], [dtypes.float32])

        two = "TwoFloatInputsFloatOutput"
        with g.control_dependencies([a_1]):
            b_1 = _apply_op(g, two, [a_3, a_4], [dtypes.float32])
            c_1 = _apply_op(g, two, [a_1, b_1], [dtypes.float32])
            d_1 = _apply_op(g, two, [b_1, c_1], [dtypes.float32])
            e_1 = _apply_op(g, "FloatOutput", [], [dtypes.float32])
            with g.control_dependencies([a_2]):
                b_2 = _apply_op(g, two, [a_3, a_4], [dtypes.float32])
                c_2 = _apply_op(g, two, [a_1, b_1], [dtypes.float32])
                d_2 = _apply_op(g, two, [b_2, c_2], [dtypes.float32])
                e_2 = _apply_op(g, two, [e_1, e_1], [dtypes.float32])
                with g.control_dependencies([a_3]):
                    b_3 = _apply_op(g, two, [a_3, a_4], [dtypes.float32])
                    c_3 = _apply_op(g, two, [a_1, b_1], [dtypes.float32])
                    d_3 = _apply_op(g, two, [b_3, c_3], [dtypes.float32])
                    e_3 = _apply_op(g, two, [e_2, e_2], [dtypes.float32])
                    with g.control_dependencies([a_4]):
                        b_4 = _apply_op(g, two, [a_3, a_4], [dtypes.float32])
                        c_4 = _apply_op(g, two, [a_1, b_1], [dtypes.float32])
                        d_4 = _apply_op(g, two, [b_4, c_4], [dtypes.float32])
                        e_4 = _apply_op(g, two, [e_3, e_3], [dtypes.float32])

        assert_items_equal([a_1.op], b_1.op.control_inputs)
        assert_items_equal([a_1.op, a_2.op], b_2.op.control_inputs)
        assert_items_equal([a_1.op, a_2.op], b_3.op.control_inputs)
        assert_items_equal([a_1.op, a_2.op], b_4.op.control_inputs)

        assert_items_equal([], c_1.op.control_inputs)
        assert_items_equal([a_2.op], c_2.op.control_inputs)
        assert_items_equal([a_2.op, a_3.op], c_3.op.control_inputs)
        assert_items_equal([a_2.op, a_3.op, a_4.op], c_4.op.control_inputs)

        assert_items_equal([], d_1.op.control_inputs)
        assert_items_equal([], d_2.op.control_inputs)
        assert_items_equal([], d_3.op.control_inputs)
        assert_items_equal([], d_4.op.control_inputs)

        assert_items_equal([a_1.op], e_1.op.control_inputs)
        assert_items_equal([a_2.op], e_2.op.control_inputs)
        assert_items_equal([a_3.op], e_3.op.control_inputs)
        assert_items_equal([a_4.op], e_4.op.control_inputs)

    def test_repeated_dependency(self):
        g = tf.Graph()
        a = g.create_op("TwoFloatOutputs", [], [dtypes.float32, dtypes.float32])
        a_0, a_1 = a.outputs
        with g.control_dependencies([a_0]):
            b = _apply_op(g, "FloatOutput", [], [dtypes.float32])
            with g.control_dependencies([a_1]):
                c = _apply_op(g, "FloatOutput", [], [dtypes.float32])

        assert b.op.control_inputs == [a]
        assert c.op.control_inputs == [a]

    def test_no_control_dependency_with_data_dependency(self):
        g = tf.Graph()
        a = _apply_op(g, "FloatOutput", [], [dtypes.float32])
        with g.control_dependencies([a]):
            b = _apply_op(g, "Identity", [a], [dtypes.float32])

        assert b.op.control_inputs == []


# -- DeviceStackTest ----------------------------------------------------------------------------


class TestDeviceStack:

    def test_basic_device_assignment_metadata(self):

        def device_func(unused_op):
            return "/cpu:*"

        const_zero = tf.constant([0.0], name="zero")
        with tf.device("/cpu"):
            const_one = tf.constant([1.0], name="one")
            with tf.device("/cpu:0"):
                const_two = tf.constant([2.0], name="two")
        with tf.device(device_func):
            const_three = tf.constant(3.0, name="three")

        assert 0 == len(const_zero.op._device_assignments)

        one_list = const_one.op._device_assignments
        assert 1 == len(one_list)
        assert "/cpu" == one_list[0].obj
        assert THIS_FILE == os.path.basename(one_list[0].filename)

        two_list = const_two.op._device_assignments
        assert 2 == len(two_list)
        devices = [t.obj for t in two_list]
        assert set(["/cpu", "/cpu:0"]) == set(devices)

        three_list = const_three.op._device_assignments
        assert 1 == len(three_list)
        func_description = three_list[0].obj
        expected_regex = r"device_func<.*" + re.escape(THIS_FILE) + r", [0-9]+"
        assert re.search(expected_regex, func_description)

    def test_device_assignment_metadata_for_graph_device_and_tf_device_functions(self):

        with tf.device("/cpu"):
            const_one = tf.constant([1.0], name="one")
        with tf.get_default_graph().device("/cpu"):
            const_two = tf.constant([2.0], name="two")

        one_metadata = const_one.op._device_assignments[0]
        two_metadata = const_two.op._device_assignments[0]

        # Verify both types of device assignment return the right stack info.
        assert re.search(THIS_FILE, os.path.basename(one_metadata.filename))
        assert one_metadata.filename == two_metadata.filename
        assert one_metadata.lineno + 2 == two_metadata.lineno


# -- ColocationGroupTest ------------------------------------------------------------------------


class TestColocationGroup:

    def test_basic(self):
        a = tf.constant([2.0], name="a")
        with tf.colocate_with(a.op):
            b = tf.constant(3.0)
        c = tf.constant(4.0)
        assert [b"loc:@a"] == a.op.colocation_groups()
        assert [b"loc:@a"] == b.op.colocation_groups()
        with pytest.raises(ValueError):
            c.op.get_attr("_class")

    def test_basic_colocation_metadata(self):
        const_two = tf.constant([2.0], name="two")
        with tf.colocate_with(const_two.op):
            const_three = tf.constant(3.0, name="three")
        locations_dict = const_three.op._colocation_dict
        assert "two" in locations_dict
        metadata = locations_dict["two"]
        assert metadata.obj is None
        # Check that this test's filename is recorded as the file containing the
        # colocation statement.
        assert THIS_FILE == os.path.basename(metadata.filename)

    def test_colocation_device_interaction(self):
        with tf.device("/cpu:0"):
            with tf.device("/device:GPU:0"):
                a = tf.constant([2.0], name="a")
            with tf.colocate_with(a.op):
                # 'b' is created in the scope of /cpu:0, but it is
                # colocated with 'a', which is on '/device:GPU:0'.  colocate_with
                # overrides devices because it is a stronger constraint.
                b = tf.constant(3.0)
        assert [b"loc:@a"] == b.op.colocation_groups()
        assert a.op.device == b.op.device

    def test_colocation_canonicalization(self):
        with tf.device("/device:GPU:0"):
            _ = tf.constant(2.0)
        with tf.device(lambda op: "/device:GPU:0"):
            b = tf.constant(3.0)
        with tf.get_default_graph().colocate_with(b):
            with tf.device("/device:GPU:0"):
                c = tf.constant(4.0)

        # A's device will be /device:GPU:0
        # B's device will be /device:GPU:0
        # C's device will be /device:GPU:0 because it
        # inherits B's device name, after canonicalizing the names.
        assert b.op.device == c.op.device

    def test_location_overrides(self):
        with tf.device("/cpu:0"):
            with tf.device("/device:GPU:0"):
                a = tf.constant([2.0], name="a")
                # Note that this colocation is "redundant", since we are
                # within the scope of "/device:GPU:0".  However, we would like to
                # preserve in the GraphDef that these two ops should be
                # colocated in a portable way.
                with tf.colocate_with(a.op):
                    b = tf.constant(3.0)
                c = tf.constant(4.0)
            d = tf.constant(5.0)

        assert [b"loc:@a"] == b.op.colocation_groups()
        assert "/device:GPU:0" == a.op.device
        assert a.op.device == b.op.device

        # Test that device function stack is restored.
        assert "/device:GPU:0" == c.op.device
        assert "/device:CPU:0" == d.op.device

    def test_nested_colocate_with(self):
        a = tf.constant([2.0], name="a")
        with tf.colocate_with(a.op):
            b = tf.constant(3.0)
            with tf.colocate_with(b.op):
                c = tf.constant(4.0)
        assert [b"loc:@a"] == b.op.colocation_groups()
        assert [b"loc:@a"] == c.op.colocation_groups()

    def test_multi_colocation_groups(self):
        a = tf.constant([2.0], name="a")
        b = tf.constant(3.0, name="b")
        with tf.colocate_with(a.op):
            with tf.colocate_with(b.op):
                c = tf.constant(4.0)
        assert set([b"loc:@a", b"loc:@b"]) == set(c.op.colocation_groups())

    def test_colocation_ignore_stack(self):
        a = tf.constant([2.0], name="a")
        b = tf.constant(3.0, name="b")
        with tf.colocate_with(a.op):
            with tf.colocate_with(b.op, ignore_existing=True):
                c = tf.constant(4.0)
        assert set([b"loc:@b"]) == set(c.op.colocation_groups())

    def test_colocate_with_reset(self):
        a = tf.constant([2.0], name="a")
        with tf.colocate_with(a.op):
            b = tf.constant(3.0, name="b")
            with tf.colocate_with(None, ignore_existing=True):
                c = tf.constant(4.0, name="c")
        assert [b"loc:@a"] == b.op.colocation_groups()
        assert [b"loc:@c"] == c.op.colocation_groups()

    def test_colocate_with_initial_none_then_nested(self):
        a = tf.constant([2.0], name="a")
        with tf.colocate_with(a.op):
            with tf.colocate_with(None, ignore_existing=True):
                b = tf.constant(3.0, name="b")
                with tf.colocate_with(b.op):
                    c = tf.constant(4.0, name="c")
        assert [b"loc:@b"] == b.op.colocation_groups()
        assert [b"loc:@b"] == c.op.colocation_groups()

    def test_colocate_variables(self):
        a = tf.Variable([2.0], name="a")
        with tf.colocate_with(a.op):
            b = tf.Variable([3.0], name="b")
        assert [b"loc:@a"] == b.op.colocation_groups()
