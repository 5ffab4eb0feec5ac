"""Each seed's program (or its TF1 core, where the seed is Julia or prose) runs through devlab
with the placements and values the seed reports."""
import contextlib
import io

import numpy as np

import devlab as tf

LOCAL = "/job:localhost/replica:0/task:0/device:"


def test_seed000_colocate_with_answer():
    with tf.device("/cpu:0"):
        a = tf.constant(0.0, name="a")
    with tf.device("/gpu:0"):
        b = tf.constant(0.0, name="b")
        with tf.colocate_with(a):
            c = tf.constant(0.0, name="c")
        d = tf.constant(0.0, name="d")
    got = [(op.name, op.device) for op in tf.get_default_graph().get_operations()]
    assert got == [("a", "/device:CPU:0"), ("b", "/device:GPU:0"), ("c", "/device:CPU:0"), ("d", "/device:GPU:0")]
    with tf.Session(config=tf.ConfigProto(device_count={"GPU": 1})) as s:
        s.run([a, b, c, d])
        assert s.placement.device_of(c.op) is s.placement.device_of(a.op)


def test_seed001_assign_to_device_function():
    PS_OPS = ["Variable", "VariableV2", "AutoReloadVariable"]

    def assign_to_device(device, ps_device="/device:CPU:0"):
        def _assign(op):
            node_def = op if isinstance(op, tf.NodeDef) else op.node_def
            return ps_device if node_def.op in PS_OPS else device
        return _assign

    with tf.device(assign_to_device("/device:GPU:0")):
        a = tf.Variable(1.0)
        b = tf.sin(a)
    assert a.device == "/device:CPU:0" and b.device == "/device:GPU:0"
    with tf.device("/CPU:0"):
        c = tf.cos(b)
    with tf.Session(config=tf.ConfigProto(device_count={"GPU": 1})) as s:
        s.run(tf.global_variables_initializer())
        assert np.isclose(s.run(c), np.cos(np.sin(1.0)))
        assert s.placement.device_of(b.op).name == LOCAL + "GPU:0"


def test_seed002_device_scope_sets_matmul_device():
    with tf.device("/GPU:0"):
        result = tf.matmul(tf.ones([2, 2]), tf.ones([2, 2]))
    assert result.device == "/device:GPU:0"
    stack = tf.get_default_graph()._scopes.device_stack
    assert stack == []  # the with block pushed and popped its scope


def run_logged(fetch, config):
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf), tf.Session(config=config) as s:
        value = s.run(fetch)
    return value, buf.getvalue().splitlines()


def test_seed004_logs_cpu_constants_and_gpu_matmul():
    with tf.device("/cpu:0"):
        a = tf.constant([1.0, 2.0, 3.0, 4.0, 5.0, 6.0], shape=[2, 3], name="a")
        b = tf.constant([1.0, 2.0, 3.0, 4.0, 5.0, 6.0], shape=[3, 2], name="b")
    c = tf.matmul(a, b)
    value, log = run_logged(c, tf.ConfigProto(log_device_placement=True, device_count={"GPU": 1}))
    assert value.tolist() == [[22.0, 28.0], [49.0, 64.0]]
    assert log[-3:] == [f"MatMul: (MatMul): {LOCAL}GPU:0", f"a: (Const): {LOCAL}CPU:0", f"b: (Const): {LOCAL}CPU:0"]


def test_seed004_mixed_device_sum_on_four_gpus():
    c = []
    for d in ["/device:GPU:2", "/device:GPU:3"]:
        with tf.device(d):
            a = tf.constant([1.0, 2.0, 3.0, 4.0, 5.0, 6.0], shape=[2, 3])
            b = tf.constant([1.0, 2.0, 3.0, 4.0, 5.0, 6.0], shape=[3, 2])
            c.append(tf.matmul(a, b))
    with tf.device("/cpu:0"):
        total = tf.add_n(c)
    value, log = run_logged(total, tf.ConfigProto(log_device_placement=True, device_count={"GPU": 4}))
    assert value.tolist() == [[44.0, 56.0], [98.0, 128.0]]
    assert log[0] == "Device mapping:" and len([l for l in log if " -> device: " in l]) == 4
    assert f"MatMul_1: (MatMul): {LOCAL}GPU:3" in log and f"AddN: (AddN): {LOCAL}CPU:0" in log


def test_seed004_unknown_cpu_device_error():
    with tf.device("/device:CPU:1"):
        v = tf.Variable(1.0, name="v")
        w = tf.assign(v, 2.0)
    try:
        tf.Session().run(w)
    except tf.errors.InvalidArgumentError as e:
        assert "was explicitly assigned to /device:CPU:1 but available devices are [ " \
               "/job:localhost/replica:0/task:0/device:CPU:0 ]" in str(e)
    else:
        raise AssertionError("placing on a missing CPU:1 must fail")


def test_seed004_device_count_creates_three_cpus_and_two_gpus():
    config = tf.ConfigProto(device_count={"CPU": 3, "GPU": 2})
    with tf.Session(config=config) as s:
        names = [d.name[len(LOCAL):] for d in s.list_devices()]
    assert sorted(names) == ["CPU:0", "CPU:1", "CPU:2", "GPU:0", "GPU:1"]
