"""Session.run: values, feeds, nested fetches, variables, errors that leave state alone, the
placement log, RunMetadata, plans and the stepper."""
import collections
import re

import numpy as np
import pytest

import devlab as tf


def test_nested_fetches_and_feeds():
    x = tf.placeholder(tf.float32, shape=[2], name="x")
    y = x * 2.0
    z = tf.reduce_sum(y)
    Pair = collections.namedtuple("Pair", "a b")
    with tf.Session() as s:
        out = s.run({"y": [y, (z,)], "p": Pair(y, z)}, feed_dict={x: [1.0, 2.0]})
        assert out["y"][0].tolist() == [2.0, 4.0] and out["y"][1][0] == 6.0
        assert isinstance(out["p"], Pair) and out["p"].b == 6.0
        assert s.run("mul:0", feed_dict={"x:0": [3.0, 3.0]}).tolist() == [6.0, 6.0]
        assert s.run(y, feed_dict={y: [7.0, 7.0]}).tolist() == [7.0, 7.0]  # any tensor can be fed


def test_missing_feed_and_bad_shape_use_tf_messages():
    x = tf.placeholder(tf.float32, shape=[2], name="x")
    y = x + 1.0
    with tf.Session() as s:
        with pytest.raises(tf.errors.InvalidArgumentError,
                           match=r"You must feed a value for placeholder tensor 'x' with dtype float and shape \[2\]"):
            s.run(y)
        with pytest.raises(ValueError, match=r"Cannot feed value of shape \(3,\) for Tensor x:0, which has shape \(2,\)$"):
            s.run(y, feed_dict={x: [1.0, 2.0, 3.0]})


def test_variables_live_in_the_session_and_uninitialised_reads_fail():
    v = tf.Variable([1.0, 2.0], name="v")
    inc = v.assign_add([1.0, 1.0])
    with tf.Session() as s:
        with pytest.raises(tf.errors.FailedPreconditionError, match="Attempting to use uninitialized value v"):
            s.run(v + 1.0)
        s.run(tf.global_variables_initializer())
        s.run(inc)
        assert s.run(v).tolist() == [2.0, 3.0]
    with tf.Session() as s2:  # each session has its own values
        s2.run(v.initializer)
        assert s2.run(v).tolist() == [1.0, 2.0]


def test_failed_run_leaves_variables_as_they_were():
    v = tf.Variable(1.0, name="v")
    x = tf.placeholder(tf.float32, shape=[None, None])
    up = v.assign_add(10.0)
    with tf.control_dependencies([up]):
        bad = tf.matmul(x, x) + v  # fails at run time on a non-square feed
    with tf.Session() as s:
        s.run(v.initializer)
        with pytest.raises(tf.errors.InvalidArgumentError, match=r"Matrix size-incompatible: In\[0\]: \[1,2\]"):
            s.run(bad, feed_dict={x: [[1.0, 2.0]]})
        assert s.run(v) == 1.0


def test_fetched_arrays_do_not_alias_session_state():
    v = tf.Variable([1.0, 2.0])
    with tf.Session() as s:
        s.run(v.initializer)
        got = s.run(v)
        got[0] = 100.0
        assert s.run(v).tolist() == [1.0, 2.0]


def test_log_device_placement_prints_mapping_and_lines_once(capsys):
    with tf.device("/cpu:0"):
        a = tf.constant([[1.0, 2.0]], name="a")
        b = tf.constant([[1.0], [2.0]], name="b")
    c = tf.matmul(a, b)
    with tf.Session(config=tf.ConfigProto(log_device_placement=True, device_count={"GPU": 1})) as s:
        s.run(c)
        s.run(c)
        records = list(s.placement_log)
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "Device mapping:"
    assert out[2:] == ["MatMul: (MatMul): /job:localhost/replica:0/task:0/device:GPU:0",
                       "a: (Const): /job:localhost/replica:0/task:0/device:CPU:0",
                       "b: (Const): /job:localhost/replica:0/task:0/device:CPU:0"]
    assert [r.op_name for r in records] == ["MatMul", "a", "b"]


def test_graph_growth_is_placed_and_logged_incrementally(capsys):
    a = tf.constant(1.0, name="a")
    with tf.Session(config=tf.ConfigProto(log_device_placement=True)) as s:
        s.run(a)
        b = tf.add(a, 1.0, name="b")
        assert s.run(b) == 2.0
    lines = [l for l in capsys.readouterr().out.splitlines() if ": (" in l]
    assert [l.split(":")[0] for l in lines] == ["a", "b", "b/y"]


def test_run_metadata_partition_graphs_and_step_stats():
    with tf.device("/gpu:0"):
        x = tf.constant(np.ones((4, 4), np.float32))
        y = tf.matmul(x, x)
    with tf.device("/cpu:0"):
        z = y + y  # one transfer of y, shared by both uses
    md = tf.RunMetadata()
    opts = tf.RunOptions(trace_level=tf.RunOptions.FULL_TRACE, output_partition_graphs=True)
    with tf.Session(config=tf.ConfigProto(device_count={"GPU": 1})) as s:
        s.run(z, options=opts, run_metadata=md)
    kinds = sorted(n.op for pg in md.partition_graphs for n in pg.node)
    assert kinds.count("_Send") == 1 and kinds.count("_Recv") == 1
    recv = next(n for pg in md.partition_graphs for n in pg.node if n.op == "_Recv")
    assert re.fullmatch(r"MatMul/_\d+", recv.name) and recv.attr["send_device"].endswith("GPU:0")
    devices = {d.device: d for d in md.step_stats.dev_stats}
    gpu = devices["/job:localhost/replica:0/task:0/device:GPU:0"]
    assert gpu.simulated and {n.node_name for n in gpu.node_stats} == {"Const", "MatMul"}
    matmul = next(n for n in gpu.node_stats if n.node_name == "MatMul")
    assert matmul.modelled_rel_micros > 0 and matmul.all_end_rel_micros >= 0


def test_plans_are_compiled_once_per_fetch_and_feed_set():
    x = tf.placeholder(tf.float32, [])
    y = x + 1.0
    with tf.Session() as s:
        s.run(y, {x: 1.0})
        plan = s.last_plan
        s.run(y, {x: 2.0})
        assert s.last_plan is plan
        s.run([y], {x: 2.0})
        assert s.last_plan is plan  # the same leaves, so the same plan
        s.run([y, x], {x: 2.0})
        assert s.last_plan is not plan


def test_stepper_walks_ops_and_transfers_and_goes_back():
    with tf.device("/gpu:0"):
        a = tf.constant(2.0, name="a")
        b = tf.square(a, name="b")
    with tf.device("/cpu:0"):
        c = tf.add(b, 1.0, name="c")
    with tf.Session(config=tf.ConfigProto(device_count={"GPU": 1})) as s:
        st = s.stepper(c)
        views = [st.next() for _ in range(len(st.steps))]
        assert st.next() is None
        kinds = [(v.kind, v.name) for v in views]
        assert ("op", "b") in kinds and any(k == "transfer" for k, _ in kinds)
        b_view = next(v for v in views if v.name == "b")
        assert b_view.inputs[0][1] == 2.0 and b_view.outputs[0][1] == 4.0 and b_view.device.endswith("GPU:0")
        assert "GPU" in str(b_view.reason)
        transfer = next(v for v in views if v.kind == "transfer")
        assert transfer.source_device.endswith("GPU:0") and transfer.device.endswith("CPU:0")
        st.back()
        assert st.position == len(st.steps) - 1
        assert st.finish() == 5.0


def test_stepper_commits_variable_writes_only_when_finished():
    v = tf.Variable(1.0)
    up = v.assign_add(1.0)
    with tf.Session() as s:
        s.run(v.initializer)
        st = s.stepper(up)
        st.run_to(len(st.steps))
        st.reset()
        assert s.run(v) == 1.0
        assert st.finish() == 2.0
        assert s.run(v) == 2.0


def test_cluster_tasks_are_simulated_devices():
    cluster = tf.train.ClusterSpec({"ps": ["ps0:2222"], "worker": ["w0:2222", "w1:2222"]})
    server = tf.train.Server(cluster, job_name="worker", task_index=0)
    with tf.device("/job:ps/task:0"):
        v = tf.Variable(1.0, name="v")
    y = v * 3.0
    with tf.Session(server.target) as s:
        s.run(v.initializer)
        assert s.run(y) == 3.0
        assert s.placement.device_of(v.op).name == "/job:ps/replica:0/task:0/device:CPU:0"
        assert s.placement.device_of(y.op).name == "/job:worker/replica:0/task:0/device:CPU:0"
