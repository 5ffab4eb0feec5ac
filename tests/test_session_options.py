"""Session options and checks TF1 code meets: ``CallableOptions`` and ``_make_callable_from_options``,
``list_devices()``' ``_DeviceAttributes``, the inter-op thread pools of ``ConfigProto`` and
``RunOptions``, TF's check that a fed Python int survives conversion, targets without a session
factory, and op names given as bytes. Expected values and messages are TensorFlow 2.21's
(``tf.compat.v1`` with v2 behaviour disabled), asked case by case."""
import numpy as np
import pytest

import devlab as tf
from devlab.runtime.protos import CallableOptions
from devlab.runtime.session import _DeviceAttributes


def test_callable_from_options_feeds_fetches_and_runs_targets():
    with tf.Graph().as_default():
        ph = tf.placeholder(tf.float32)
        a = ph + 1.0
        v = tf.Variable(0.0)
        tf.assign_add(v, 1.0, name="inc")
        with tf.Session() as s:
            s.run(v.initializer)
            options = CallableOptions()
            options.feed.append(ph.name)
            options.fetch.append(a.name)
            options.target.append("inc")
            call = s._make_callable_from_options(options)
            result = call(np.float32(1))
            assert isinstance(result, list) and result == [2.0] and s.run(v) == 1.0
            with pytest.raises(tf.errors.InvalidArgumentError, match="^Expected 1 feed tensors, but got 0$"):
                call()
            options.run_options.trace_level = tf.RunOptions.FULL_TRACE
            metadata = tf.RunMetadata()
            assert s._make_callable_from_options(options)(np.float32(2), run_metadata=metadata) == [3.0]
            assert len(metadata.step_stats.dev_stats) > 0


def test_device_attributes_as_tf_prints_them():
    attrs = _DeviceAttributes("/job:worker/replica:0/task:3/cpu:1", "TYPE", 1337, 1000000)
    assert (attrs.name, attrs.device_type, attrs.memory_limit_bytes, attrs.incarnation) == (
        "/job:worker/replica:0/task:3/device:CPU:1", "TYPE", 1337, 1000000)
    assert str(attrs) == repr(attrs) == "_DeviceAttributes(/job:worker/replica:0/task:3/device:CPU:1, TYPE, 1337, 1000000)"
    with tf.Graph().as_default(), tf.Session() as s:
        (cpu,) = s.list_devices()
    assert (cpu.name, cpu.device_type, cpu.memory_limit_bytes) == ("/job:localhost/replica:0/task:0/device:CPU:0",
                                                                    "CPU", 268435456)


def test_inter_op_thread_pool_index_is_checked():
    config = tf.ConfigProto()
    config.session_inter_op_thread_pool.add().num_threads = 1
    with tf.Graph().as_default():
        x = tf.constant(1.0)
        with tf.Session(config=config) as s:
            assert s.run(x, options=tf.RunOptions(inter_op_thread_pool=0)) == 1.0
            assert s.run(x, options=tf.RunOptions(inter_op_thread_pool=-1)) == 1.0
            for bad in (1, -2):
                with pytest.raises(tf.errors.InvalidArgumentError, match=f"Invalid inter_op_thread_pool: {bad}$"):
                    s.run(x, options=tf.RunOptions(inter_op_thread_pool=bad))
        with tf.Session() as s:  # no pools configured: TF's one default pool
            with pytest.raises(tf.errors.InvalidArgumentError, match="Invalid inter_op_thread_pool: 1$"):
                s.run(x, options=tf.RunOptions(inter_op_thread_pool=1))


@pytest.mark.parametrize("dtype,value,shown", [(tf.string, 1, "<class 'object'>"),
                                               (tf.string, True, "<class 'object'>"),
                                               (tf.bool, 2, "<class 'numpy.bool'>"),
                                               (tf.uint8, 300, "<class 'numpy.uint8'>")])
def test_a_fed_python_int_must_survive_conversion(dtype, value, shown):
    with tf.Graph().as_default():
        a = tf.placeholder(dtype)
        with tf.Session() as s:
            with pytest.raises(TypeError, match=(rf"^Type of feed value {value} with type {type(value)} is not "
                                                 rf"compatible with Tensor type {shown}\. Try explicitly setting the "
                                                 r"type of the feed tensor to a larger type \(e\.g\. int64\)\.$")):
                s.run(a, {a: value})


def test_fed_ints_that_convert_exactly_run():
    with tf.Graph().as_default():
        b, f = tf.placeholder(tf.bool), tf.placeholder(tf.float32)
        with tf.Session() as s:
            assert s.run([b, f], {b: 1, f: 3}) == [True, 3.0]


def test_a_target_without_a_session_factory_is_not_found():
    with pytest.raises(tf.errors.NotFoundError, match="^No session factory registered for the given session "
                                                      'options: {target: "INVALID_TARGET"'):
        tf.Session("INVALID_TARGET")


def test_bytes_op_names_are_text():
    with tf.Graph().as_default():
        e = tf.constant(44.0, name=b"e")
        assert e.name == "e:0"
        with tf.Session() as s:
            assert s.run(b"e:0") == s.run("e:0") == 44.0


def test_optimizer_switches_reach_new_sessions_default_config(monkeypatch):
    from devlab.framework import optimizer_options
    monkeypatch.setattr(optimizer_options, "_options", {})
    optimizer_options.set_optimizer_experimental_options({"min_graph_nodes": -1, "constant_folding": False,
                                                          "bogus": 1})  # TF ignores a name it does not know
    assert optimizer_options.get_optimizer_experimental_options() == {
        "disable_model_pruning": False, "disable_meta_optimizer": False, "min_graph_nodes": -1,
        "constant_folding": False}
    with tf.Graph().as_default():
        rewrite = tf.Session()._config.graph_options.rewrite_options
        assert (rewrite.min_graph_nodes, rewrite.constant_folding) == (-1, 2)  # RewriterConfig.OFF
        assert tf.Session(config=tf.ConfigProto())._config.graph_options.rewrite_options.min_graph_nodes == 0
    with pytest.raises(NotImplementedError, match="auto_mixed_precision"):
        optimizer_options.set_optimizer_experimental_options({"auto_mixed_precision": True})
