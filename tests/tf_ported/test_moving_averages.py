# Ported from TensorFlow's tensorflow/python/training/moving_averages_test.py
# (Copyright 2015 The TensorFlow Authors; Apache License 2.0), to run against `import devlab as tf`.
# `moving_averages` is devlab.train.moving_averages (TF's module of the same name; only
# ExponentialMovingAverage is public in tf.train). `gen_state_ops.variable` builds a raw
# VariableV2 op, here with devlab's op builder. `self.cached_session()` / `self.evaluate` /
# `op.run()` use a tf.Session made default. Graph-mode branches only. Left out: README.md.
import pytest

import devlab as tf
from devlab.ops.build import apply_op_output
from devlab.train import moving_averages

from .tf_test_util import assert_all_close, assert_device_equal, assert_items_equal


@pytest.fixture
def sess():
    """``self.cached_session()``: a default session on the test's graph."""
    with tf.Session() as s:
        yield s


class TestMovingAverages:

    def test_assign_moving_average_without_zero_debias(self, sess):
        var = tf.Variable([10.0, 11.0])
        val = tf.constant([1.0, 2.0], tf.float32)
        decay = 0.25
        assign = moving_averages.assign_moving_average(var, val, decay, zero_debias=False)
        sess.run(tf.global_variables_initializer())
        assert_all_close([10.0, 11.0], sess.run(var))
        assign.op.run()
        assert_all_close([10.0 * 0.25 + 1.0 * (1.0 - 0.25), 11.0 * 0.25 + 2.0 * (1.0 - 0.25)], sess.run(var))

    def test_assign_moving_average(self, sess):
        var = tf.Variable([0.0, 0.0])
        val = tf.constant([1.0, 2.0], tf.float32)
        decay = 0.25
        assign = moving_averages.assign_moving_average(var, val, decay)
        sess.run(tf.global_variables_initializer())
        assert_all_close([0.0, 0.0], sess.run(var))
        assign.op.run()
        assert_all_close([1.0 * (1.0 - 0.25) / (1 - 0.25), 2.0 * (1.0 - 0.25) / (1 - 0.25)], sess.run(var))

    def test_assign_moving_average_new_naming_multiple_calls(self):
        with tf.variable_scope("scope1") as vs1:
            with tf.variable_scope("scope2"):
                var = tf.Variable(1.0, name="Var")
                moving_averages.assign_moving_average(var, 0.0, 0.99)
                moving_averages.assign_moving_average(var, 0.0, 0.99)
        expected_names = ["scope1/scope2/Var:0",
                          "scope1/scope2/scope1/scope2/Var/biased:0",
                          "scope1/scope2/scope1/scope2/Var/local_step:0",
                          "scope1/scope2/scope1/scope2/Var/biased_1:0",
                          "scope1/scope2/scope1/scope2/Var/local_step_1:0"]
        actual_names = [v.name for v in vs1.global_variables()]
        assert set(expected_names) == set(actual_names)

    def test_assign_moving_average_new_naming_multiple_calls_with_reuse(self):
        with tf.variable_scope("scope1") as vs1:
            var = tf.get_variable("Var", shape=[])
            moving_averages.assign_moving_average(var, 0.0, 0.99)
            moving_averages.assign_moving_average(var, 0.0, 0.99)
        with tf.variable_scope(vs1, reuse=True):
            var = tf.get_variable("Var", shape=[])
            moving_averages.assign_moving_average(var, 0.0, 0.99)
            moving_averages.assign_moving_average(var, 0.0, 0.99)

    def test_weighted_moving_average(self, sess):
        decay = 0.5
        weight = tf.placeholder(tf.float32, [])
        val = tf.placeholder(tf.float32, [])

        wma = moving_averages.weighted_moving_average(val, decay, weight)
        sess.run(tf.global_variables_initializer())

        # Get the first weighted moving average.
        val_1 = 3.0
        weight_1 = 4.0
        wma_array = sess.run(wma, feed_dict={val: val_1, weight: weight_1})
        numerator_1 = val_1 * weight_1 * (1.0 - decay)
        denominator_1 = weight_1 * (1.0 - decay)
        assert_all_close(numerator_1 / denominator_1, wma_array)

        # Get the second weighted moving average.
        val_2 = 11.0
        weight_2 = 22.0
        wma_array = sess.run(wma, feed_dict={val: val_2, weight: weight_2})
        numerator_2 = numerator_1 * decay + val_2 * weight_2 * (1.0 - decay)
        denominator_2 = denominator_1 * decay + weight_2 * (1.0 - decay)
        assert_all_close(numerator_2 / denominator_2, wma_array)


def _repeat(value, dim):
    if dim == 1:
        return value
    return [value] * dim


class TestExponentialMovingAverage:

    def _check_decay(self, sess, ema, actual_decay, dim, dynamic_decay_value=None):

        def _scale(dk, steps):
            if ema._zero_debias:
                return 1 - dk**steps
            else:
                return 1

        tens = _repeat(10.0, dim)
        thirties = _repeat(30.0, dim)
        var0 = tf.Variable(tens, name="v0")
        var1 = tf.Variable(thirties, name="v1")
        sess.run(tf.global_variables_initializer())
        # Note that tensor2 is not a Variable but just a plain Tensor resulting
        # from the sum operation.
        tensor2 = var0 + var1
        if dynamic_decay_value is not None:
            sess.run(ema._decay.assign(dynamic_decay_value))
        update = ema.apply([var0, var1, tensor2])
        avg0 = ema.average(var0)
        avg1 = ema.average(var1)
        avg2 = ema.average(tensor2)

        assert_items_equal([var0, var1], tf.moving_average_variables())

        assert avg0 not in tf.trainable_variables()
        assert avg1 not in tf.trainable_variables()
        assert avg2 not in tf.trainable_variables()
        sess.run(tf.global_variables_initializer())
        if dynamic_decay_value is not None:
            sess.run(ema._decay.assign(dynamic_decay_value))

        assert "v0/ExponentialMovingAverage:0" == avg0.name
        assert "v1/ExponentialMovingAverage:0" == avg1.name
        assert "add/ExponentialMovingAverage:0" == avg2.name

        # Check initial values.
        assert_all_close(tens, sess.run(var0))
        assert_all_close(thirties, sess.run(var1))
        assert_all_close(_repeat(10.0 + 30.0, dim), sess.run(tensor2))

        # Check that averages are initialized correctly.
        assert_all_close(tens, sess.run(avg0))
        assert_all_close(thirties, sess.run(avg1))
        # Note that averages of Tensor's initialize to zeros_like since no value
        # of the Tensor is known because the Op has not been run (yet).
        assert_all_close(_repeat(0.0, dim), sess.run(avg2))

        # Update the averages and check.
        sess.run(update)
        dk = actual_decay

        expected = _repeat(10.0 * dk + 10.0 * (1 - dk), dim)
        assert_all_close(expected, sess.run(avg0))
        expected = _repeat(30.0 * dk + 30.0 * (1 - dk), dim)
        assert_all_close(expected, sess.run(avg1))
        expected = _repeat(0.0 * dk + (10.0 + 30.0) * (1 - dk) / _scale(dk, 1), dim)
        assert_all_close(expected, sess.run(avg2))

        # Again, update the averages and check.
        sess.run(update)
        expected = _repeat((10.0 * dk + 10.0 * (1 - dk)) * dk + 10.0 * (1 - dk), dim)
        assert_all_close(expected, sess.run(avg0))
        expected = _repeat((30.0 * dk + 30.0 * (1 - dk)) * dk + 30.0 * (1 - dk), dim)
        assert_all_close(expected, sess.run(avg1))
        expected = _repeat(((0.0 * dk + (10.0 + 30.0) * (1 - dk)) * dk + (10.0 + 30.0) * (1 - dk)) / _scale(dk, 2),
                           dim)
        assert_all_close(expected, sess.run(avg2))

    @pytest.mark.parametrize("dim", [1, 5], ids=["Scalar", "Vector"])
    @pytest.mark.parametrize("zero_debias", [False, True], ids=["", "Debias"])
    @pytest.mark.parametrize("dynamic", [False, True], ids=["", "DynamicDecay"])
    def test_average_variables_no_num_updates(self, sess, dim, zero_debias, dynamic):
        # testAverageVariablesNoNumUpdates_{Scalar,Vector}[_Debias][_DynamicDecay]
        if dynamic:
            decay_var = tf.Variable(0.75)
            ema = moving_averages.ExponentialMovingAverage(decay_var, zero_debias=zero_debias)
            self._check_decay(sess, ema, actual_decay=0.25, dim=dim, dynamic_decay_value=0.25)
        else:
            ema = moving_averages.ExponentialMovingAverage(0.25, zero_debias=zero_debias)
            self._check_decay(sess, ema, actual_decay=0.25, dim=dim)

    @pytest.mark.parametrize("dim", [1, 5], ids=["Scalar", "Vector"])
    @pytest.mark.parametrize("zero_debias", [False, True], ids=["", "Debias"])
    @pytest.mark.parametrize("dynamic", [False, True], ids=["", "DynamicDecay"])
    def test_average_variables_num_updates(self, sess, dim, zero_debias, dynamic):
        # testAverageVariablesNumUpdates_{Scalar,Vector}[_Debias][_DynamicDecay]
        # With num_updates 1, the decay applied is 0.1818
        if dynamic:
            decay_var = tf.Variable(0.75)
            ema = moving_averages.ExponentialMovingAverage(decay_var, num_updates=1, zero_debias=zero_debias)
            self._check_decay(sess, ema, actual_decay=0.181818, dim=dim, dynamic_decay_value=0.25)
        else:
            ema = moving_averages.ExponentialMovingAverage(0.25, num_updates=1, zero_debias=zero_debias)
            self._check_decay(sess, ema, actual_decay=0.181818, dim=dim)

    def test_average_variables_with_control_deps(self, sess):
        v0 = tf.Variable(0, name="v0")
        add_to_v0 = v0.assign_add(1)
        v1 = tf.Variable([10.0], name="v1")
        assign_to_v1 = v1.assign([20.0])
        ema = moving_averages.ExponentialMovingAverage(0.25)
        with tf.control_dependencies([add_to_v0]):
            ema_op = ema.apply([v1])
        # the moving average of v1 should not have any control inputs
        v1_avg = ema.average(v1)
        assert [] == v1_avg.initializer.control_inputs
        assert [] == v1_avg.value().op.control_inputs
        assert [] == v1_avg.value().op.control_inputs
        # We should be able to initialize v1_avg before v0.
        sess.run(v1_avg.initializer)
        sess.run(v0.initializer)
        assert [10.0] == sess.run(v1_avg)
        # running ema_op should add to v0 (in addition to updating v1_avg)
        sess.run(assign_to_v1)
        sess.run(ema_op)
        assert 1 == sess.run(v0)
        assert [17.5] == sess.run(v1_avg)

    def test_basic_eager(self, sess):
        # TF runs this in graph and eager modes; devlab is graph mode.
        v0 = tf.Variable(1.0, name="v0")
        v1 = tf.Variable(2.0, name="v1")

        ema = moving_averages.ExponentialMovingAverage(0.25, name="foo")
        op = ema.apply([v0, v1])
        if not tf.executing_eagerly():
            sess.run(tf.global_variables_initializer())
            sess.run(op)

        sess.run(v0.assign(2.0))
        sess.run(v1.assign(4.0))

        sess.run(ema.apply([v0, v1]))

        assert "foo" == ema.name
        assert "v0/foo" == ema.average_name(v0)
        assert "v1/foo" == ema.average_name(v1)
        assert sess.run(ema.average(v0)) == 1.75
        assert sess.run(ema.average(v1)) == 3.5

    @pytest.mark.parametrize("zero_debias", [True, False], ids=["", "NoDebias"])
    def test_average_variables_names(self, zero_debias):
        # averageVariablesNamesHelper: testAverageVariablesNames[NoDebias]
        v0 = tf.Variable(10.0, name="v0")
        v1 = tf.Variable(30.0, name="v1")
        # Add a non-trainable variable.
        v2 = tf.Variable(20.0, name="v2", trainable=False)
        tensor2 = v0 + v1
        ema = moving_averages.ExponentialMovingAverage(0.25, zero_debias=zero_debias, name="foo")
        assert "foo" == ema.name
        assert "v0/foo" == ema.average_name(v0)
        assert "v1/foo" == ema.average_name(v1)
        assert "add/foo" == ema.average_name(tensor2)
        ema.apply([v0, v1, tensor2])
        vars_to_restore = ema.variables_to_restore()
        # vars_to_restore should contain the following:
        # {v0/foo : v0,
        #  v1/foo : v1,
        #  add/foo : add/foo,
        #  v2 : v2}
        expected_names = [ema.average_name(v0), ema.average_name(v1), ema.average_name(tensor2), v2.op.name]
        if zero_debias:
            # vars_to_restore should also contain the following:
            #  {add/foo/biased: add/foo/biased,
            #  add/foo/local_step: add/foo/local_step}
            expected_names += [ema.average_name(tensor2) + "/biased", ema.average_name(tensor2) + "/local_step"]
        assert sorted(expected_names) == sorted(vars_to_restore.keys())
        assert ema.average(v0).op.name == ema.average_name(v0)
        assert ema.average(v1).op.name == ema.average_name(v1)
        assert ema.average(tensor2).op.name == ema.average_name(tensor2)

    @pytest.mark.parametrize("zero_debias", [True, False], ids=["", "NoDebias"])
    def test_average_variables_names_respect_scope(self, zero_debias):
        # averageVariablesNamesRespectScopeHelper: testAverageVariablesNamesRespectScope[NoDebias]
        # See discussion on #2740.
        with tf.variable_scope("scope1"):
            v0 = tf.Variable(10.0, name="v0")
            v1 = tf.Variable(30.0, name="v1")
            # Add a non-trainable variable.
            v2 = tf.Variable(20.0, name="v2", trainable=False)
            tensor2 = v0 + v1
        with tf.variable_scope("scope2"):
            ema = moving_averages.ExponentialMovingAverage(0.25, zero_debias=zero_debias, name="foo")
            assert "scope2/scope1/v0/foo" == ema.average_name(v0)
            assert "scope2/scope1/v1/foo" == ema.average_name(v1)
            assert "scope2/scope1/add/foo" == ema.average_name(tensor2)
            ema.apply([v0, v1, tensor2])
            vars_to_restore = ema.variables_to_restore()
            # `vars_to_restore` should contain the following:
            # {scope2/scope1/v0/foo : v0,
            #  scope2/scope1/v1/foo : v1,
            #  scope2/scope1/add/foo : add/foo,
            #  scope1/v2 : v2}
            expected_names = [ema.average_name(v0), ema.average_name(v1), ema.average_name(tensor2), v2.op.name]
            if zero_debias:
                # `vars_to_restore` should also contain the following:
                # {scope2/scope2/scope1/add/foo/biased: add/foo/biased,
                #  scope2/scope2/scope1/add/foo/local_step: add/foo/local_step}
                sc = "scope2/"
                expected_names += [sc + ema.average_name(tensor2) + "/biased",
                                   sc + ema.average_name(tensor2) + "/local_step"]

            assert sorted(expected_names) == sorted(vars_to_restore.keys())
            assert ema.average(v0).op.name == ema.average_name(v0)
            assert ema.average(v1).op.name == ema.average_name(v1)
            assert ema.average(tensor2).op.name == ema.average_name(tensor2)

    def test_subset_average_variables_names(self):
        v0 = tf.Variable(10.0, name="v0")
        v1 = tf.Variable(30.0, name="v1")
        # Add a non-trainable variable.
        v2 = tf.Variable(20.0, name="v2", trainable=False)
        tensor2 = v0 + v1
        ema = moving_averages.ExponentialMovingAverage(0.25, name="foo_avg")
        assert "v0/foo_avg" == ema.average_name(v0)
        assert "v1/foo_avg" == ema.average_name(v1)
        assert "add/foo_avg" == ema.average_name(tensor2)
        vars_to_restore = ema.variables_to_restore([v0, tensor2])
        # vars_to_restore should contain the following:
        # {v0/foo_avg : v0,
        #  add/foo_avg : add
        #  v1 : v1,
        #  v2 : v2}
        assert sorted(vars_to_restore.keys()) == sorted(
            [ema.average_name(v0), ema.average_name(tensor2), v1.op.name, v2.op.name])
        ema.apply([v0, v1, tensor2])
        assert ema.average(v0).op.name == ema.average_name(v0)
        assert ema.average(v1).op.name == ema.average_name(v1)
        assert ema.average(tensor2).op.name == ema.average_name(tensor2)

    def test_subset_average_variables_names_eager(self):
        # TF runs this in eager mode; in graph mode it builds the same names.
        v0 = tf.Variable(10.0, name="v0")
        v1 = tf.Variable(30.0, name="v1")
        # Add a non-trainable variable.
        v2 = tf.Variable(20.0, name="v2", trainable=False)
        ema = moving_averages.ExponentialMovingAverage(0.25, name="foo_avg")
        assert "v0/foo_avg" == ema.average_name(v0)
        assert "v1/foo_avg" == ema.average_name(v1)
        vars_to_restore = ema.variables_to_restore([v0, v1, v2])
        assert sorted(vars_to_restore.keys()) == sorted(
            [ema.average_name(v0), ema.average_name(v1), ema.average_name(v2)])
        ema.apply([v0, v1])
        assert ema.average(v0).name[:-len(":0")] == ema.average_name(v0)
        assert ema.average(v1).name[:-len(":0")] == ema.average_name(v1)

    def test_average_variables_device_assignment(self):
        with tf.device("/job:dev_v0"):
            v0 = tf.Variable(10.0, name="v0")
        with tf.device("/job:dev_v1"):
            # gen_state_ops.variable(shape=[1], dtype=dtypes.float32, name="v1", container="", shared_name="")
            v1 = apply_op_output("VariableV2", [], {"shape": None, "dtype": tf.float32, "container": "",
                                                    "shared_name": ""}, "v1")
            v1.set_shape([1])
        tensor2 = v0 + v1
        ema = moving_averages.ExponentialMovingAverage(0.25, name="foo_avg")
        with tf.device("/job:default"):
            ema.apply([v0, v1, tensor2])
        assert_device_equal("/job:dev_v0", ema.average(v0).device)
        assert_device_equal("/job:dev_v1", ema.average(v1).device)
        assert [b"loc:@v1"] == ema.average(v1).op.colocation_groups()
        assert_device_equal("/job:default", ema.average(tensor2).device)

    def _export_and_import_graph(self, graph):
        """Export and import graph into a new graph."""
        meta_graph = tf.train.export_meta_graph(graph=graph, collection_list=graph.get_all_collection_keys())
        graph_copy = tf.Graph()
        with graph_copy.as_default():
            _ = tf.train.import_meta_graph(meta_graph)
        return graph_copy

    def test_imported_graph_variables_to_restore(self):
        g = tf.Graph()
        with g.as_default():
            tf.Variable(10.0, name="v")
        g_copy = self._export_and_import_graph(g)
        with g_copy.as_default():
            ema = moving_averages.ExponentialMovingAverage(0.25, name="foo_avg")
            vars_to_restore = ema.variables_to_restore()
            assert len(vars_to_restore) == 1
            assert "v/foo_avg" in vars_to_restore
