"""``Saver.restore`` on checkpoints TensorFlow 2.21 wrote (tools/record_tf_checkpoint.py): its V2
format, one data shard and two, every dtype a variable has, and TF's errors for what does not fit."""
import json
import os
import shutil

import numpy as np
import pytest

import devlab as tf

DATA = os.path.join(os.path.dirname(__file__), "data", "tf_checkpoints")
with open(os.path.join(DATA, "values.json")) as f:
    RECORD = json.load(f)


def build():
    """TF's program, built by devlab: the variables the checkpoints hold, initialized otherwise."""
    env = {"tf": tf, "np": np}
    exec(RECORD["program"], env)  # noqa: S102 - the recorded program
    return env["VARIABLES"]


def expected(name):
    rec = RECORD["values"][name]
    if rec["dtype"] == "string":
        return np.array([bytes.fromhex(h) for h in rec["flat"]] + [None], dtype=object)[:-1].reshape(rec["shape"])
    return np.array(rec["flat"], dtype=rec["dtype"]).reshape(rec["shape"])


def session():
    """A session whose variables hold zeros (or empty strings), not what the checkpoints hold."""
    sess = tf.Session(config=tf.ConfigProto(device_count={"CPU": 2}))
    sess.run(tf.global_variables_initializer())
    sess.run([tf.assign(v, tf.zeros_like(v)) for v in tf.global_variables()])
    return sess


@pytest.mark.parametrize("prefix", ["model.ckpt", "sharded.ckpt"])
def test_restore_reads_every_variable_tensorflow_saved(prefix):
    variables = build()
    sess = session()
    assert not np.array_equal(sess.run(variables[0]), expected("dense/kernel"))  # changed only by the restore
    tf.train.Saver().restore(sess, os.path.join(DATA, prefix))
    for v in variables:
        value = sess.run(v)
        want = expected(v.op.name)
        assert value.dtype == want.dtype and value.shape == want.shape, v.op.name
        assert value.tolist() == want.tolist(), v.op.name


def test_latest_checkpoint_finds_tensorflows_and_the_restore_uses_it(tmp_path):
    for name in os.listdir(DATA):
        if name.startswith("model.ckpt"):
            shutil.copy(os.path.join(DATA, name), tmp_path / name)
    variables = build()
    sess = session()
    path = tf.train.latest_checkpoint(str(tmp_path))
    assert path == str(tmp_path / "model.ckpt")
    tf.train.Saver(variables[:2]).restore(sess, path)
    assert sess.run(variables[1]).tolist() == [0.25, -1.5]


def test_a_variable_of_another_dtype_or_shape_or_missing_is_tfs_error_and_changes_nothing():
    build()
    with tf.variable_scope("dense"):
        wrong_dtype = tf.get_variable("bias_as_double", initializer=np.zeros(2))
    sess = session()
    prefix = os.path.join(DATA, "model.ckpt")
    saver = tf.train.Saver({"dense/bias": wrong_dtype})
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match="tensor_name = dense/bias; expected dtype double does not equal original dtype float"):
        saver.restore(sess, prefix)
    with tf.variable_scope("other"):
        wrong_shape = tf.get_variable("k", initializer=np.zeros((2, 3), np.float32))
        absent = tf.get_variable("absent", initializer=np.ones(1, np.float32))
    sess.run(tf.global_variables_initializer())
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=r"Assign requires shapes of both tensors to match. lhs shape= \[2,3\] rhs shape= \[3,2\]"):
        tf.train.Saver({"dense/kernel": wrong_shape, "dense/bias": absent}).restore(sess, prefix)
    with pytest.raises(tf.errors.NotFoundError, match="Key other/absent not found in checkpoint"):
        tf.train.Saver([absent]).restore(sess, prefix)
    assert sess.run(absent).tolist() == [1.0]  # nothing restored by the failed calls


@pytest.mark.parametrize("damage", ["truncated index", "bad magic", "truncated data"])
def test_a_damaged_tensorflow_checkpoint_is_data_loss(tmp_path, damage):
    for name in os.listdir(DATA):
        if name.startswith("model.ckpt"):
            shutil.copy(os.path.join(DATA, name), tmp_path / name)
    index, data = tmp_path / "model.ckpt.index", tmp_path / "model.ckpt.data-00000-of-00001"
    if damage == "truncated index":
        index.write_bytes(index.read_bytes()[:100])
    elif damage == "bad magic":
        index.write_bytes(index.read_bytes()[:-1] + b"\x00")
    else:
        data.write_bytes(data.read_bytes()[:40])
    build()
    sess = session()
    with pytest.raises(tf.errors.DataLossError, match="Unable to read checkpoint .*model.ckpt.index"):
        tf.train.Saver().restore(sess, str(tmp_path / "model.ckpt"))


def test_a_partitioned_variable_from_a_tensorflow_checkpoint_is_one_line_naming_it():
    with tf.variable_scope("dense"):
        tf.get_variable("kernel", [3, 2], partitioner=tf.fixed_size_partitioner(2))
    sess = tf.Session()
    sess.run(tf.global_variables_initializer())
    with pytest.raises(NotImplementedError, match="dense/kernel is a partitioned variable, which devlab restores "
                                                  "from its own .npz checkpoints only"):
        tf.train.Saver().restore(sess, os.path.join(DATA, "model.ckpt"))
