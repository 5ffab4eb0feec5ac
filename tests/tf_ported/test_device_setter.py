# Ported from TensorFlow's tensorflow/python/training/device_setter_test.py
# (Copyright 2015 The TensorFlow Authors; Apache License 2.0), to run against `import devlab as tf`.
# Left out: testResource (resource variables); see README.md.
import devlab as tf

from .tf_test_util import assert_device_equal

_cluster_spec = tf.train.ClusterSpec({
    "ps": ["ps0:2222", "ps1:2222"],
    "worker": ["worker0:2222", "worker1:2222", "worker2:2222"]
})


def test_cpu_override():
    with tf.device(tf.train.replica_device_setter(cluster=_cluster_spec)):
        with tf.device("/cpu:0"):
            v = tf.Variable([1, 2])
        w = tf.Variable([2, 1])
        with tf.device("/cpu:0"):
            a = v + w
        assert_device_equal("/job:ps/task:0/cpu:0", v.device)
        assert_device_equal("/job:ps/task:0/cpu:0", v.initializer.device)
        assert_device_equal("/job:ps/task:1", w.device)
        assert_device_equal("/job:ps/task:1", w.initializer.device)
        assert_device_equal("/job:worker/cpu:0", a.device)


def test_ps2_tasks_with_cluster_spec_class():
    with tf.device(tf.train.replica_device_setter(cluster=_cluster_spec)):
        v = tf.Variable([1, 2])
        w = tf.Variable([2, 1])
        a = v + w
        assert_device_equal("/job:ps/task:0", v.device)
        assert_device_equal("/job:ps/task:0", v.initializer.device)
        assert_device_equal("/job:ps/task:1", w.device)
        assert_device_equal("/job:ps/task:1", w.initializer.device)
        assert_device_equal("/job:worker", a.device)


def test_ps2_tasks_pin_variable_to_job():
    with tf.device(tf.train.replica_device_setter(cluster=_cluster_spec)):
        v = tf.Variable([1, 2])
        with tf.device("/job:moon"):
            w = tf.Variable([2, 1])
            with tf.device("/job:ps"):  # Explicit PS job will get task set.
                x = tf.Variable([0, 1])
        a = v + w + x
        assert_device_equal("/job:ps/task:0", v.device)
        assert_device_equal("/job:ps/task:0", v.initializer.device)
        assert_device_equal("/job:moon", w.device)
        assert_device_equal("/job:moon", w.initializer.device)
        assert_device_equal("/job:ps/task:1", x.device)
        assert_device_equal("/job:ps/task:1", x.initializer.device)
        assert_device_equal("/job:worker", a.device)


def test_ps2_tasks_use_cpu_for_ps():
    with tf.device(tf.train.replica_device_setter(ps_tasks=1, ps_device="/cpu:0")):
        v = tf.Variable([1, 2])
        with tf.device("/job:moon"):
            w = tf.Variable([2, 1])
        a = v + w
        assert_device_equal("/cpu:0", v.device)
        assert_device_equal("/cpu:0", v.initializer.device)
        assert_device_equal("/job:moon/cpu:0", w.device)
        assert_device_equal("/job:moon/cpu:0", w.initializer.device)
        assert_device_equal("/job:worker", a.device)


def test_ps2_tasks_no_merging():
    with tf.device(tf.train.replica_device_setter(cluster=_cluster_spec, merge_devices=False)):
        v = tf.Variable([1, 2])
        with tf.device("/job:ps"):  # Won't assign task when merge_devices=False.
            w = tf.Variable([2, 1])
        a = v + w
        assert_device_equal("/job:ps/task:0", v.device)
        assert_device_equal("/job:ps/task:0", v.initializer.device)
        assert_device_equal("/job:ps", w.device)
        assert_device_equal("/job:ps", w.initializer.device)
        assert_device_equal("/job:worker", a.device)


def test_ps2_tasks_with_cluster_spec_dict():
    with tf.device(tf.train.replica_device_setter(cluster=_cluster_spec.as_dict())):
        v = tf.Variable([1, 2])
        w = tf.Variable([2, 1])
        a = v + w
        assert_device_equal("/job:ps/task:0", v.device)
        assert_device_equal("/job:ps/task:0", v.initializer.device)
        assert_device_equal("/job:ps/task:1", w.device)
        assert_device_equal("/job:ps/task:1", w.initializer.device)
        assert_device_equal("/job:worker", a.device)


def test_ps2_tasks_with_cluster_def():
    with tf.device(tf.train.replica_device_setter(cluster=_cluster_spec.as_cluster_def())):
        v = tf.Variable([1, 2])
        w = tf.Variable([2, 1])
        a = v + w
        assert_device_equal("/job:ps/task:0", v.device)
        assert_device_equal("/job:ps/task:0", v.initializer.device)
        assert_device_equal("/job:ps/task:1", w.device)
        assert_device_equal("/job:ps/task:1", w.initializer.device)
        assert_device_equal("/job:worker", a.device)


def test_ps2_tasks_with_device():
    cluster_spec = tf.train.ClusterSpec({
        "sun": ["sun0:2222", "sun1:2222", "sun2:2222"],
        "moon": ["moon0:2222", "moon1:2222"]
    })

    with tf.device(tf.train.replica_device_setter(ps_device="/job:moon", worker_device="/job:sun",
                                                  cluster=cluster_spec.as_cluster_def())):
        v = tf.Variable([1, 2])
        w = tf.Variable([2, 1])
        a = v + w
        assert_device_equal("/job:moon/task:0", v.device)
        assert_device_equal("/job:moon/task:0", v.initializer.device)
        assert_device_equal("/job:moon/task:1", w.device)
        assert_device_equal("/job:moon/task:1", w.initializer.device)
        assert_device_equal("/job:sun", a.device)


def test_ps2_tasks_with_cpu_constraint():
    cluster_spec = tf.train.ClusterSpec({
        "sun": ["sun0:2222", "sun1:2222", "sun2:2222"],
        "moon": ["moon0:2222", "moon1:2222"]
    })

    with tf.device(tf.train.replica_device_setter(ps_device="/job:moon/cpu:0", worker_device="/job:sun",
                                                  cluster=cluster_spec.as_cluster_def())):
        v = tf.Variable([1, 2])
        w = tf.Variable([2, 1])
        a = v + w
        assert_device_equal("/job:moon/task:0/cpu:0", v.device)
        assert_device_equal("/job:moon/task:0/cpu:0", v.initializer.device)
        assert_device_equal("/job:moon/task:1/cpu:0", w.device)
        assert_device_equal("/job:moon/task:1/cpu:0", w.initializer.device)
        assert_device_equal("/job:sun", a.device)
