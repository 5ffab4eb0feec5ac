"""Saver arguments as TF 2.21 honours them: ``reshape``, ``write_version=V1``,
``restore_sequentially`` (accepted, without effect: TF's bulk restore ignores it), ``file://``
paths and the name clash of a renamed PartitionedVariable."""
import os

import numpy as np
import pytest

import devlab as tf


def _save(path, value, **saver_args):
    with tf.Graph().as_default() as g:
        v = tf.Variable(value, name="v")
        saver = tf.train.Saver(**saver_args)
        with tf.Session() as sess:
            sess.run(v.initializer)
            saver.save(sess, path)
        return g, saver


def test_reshape_restores_through_a_reshape_as_tf(tmp_path):
    path = str(tmp_path / "m")
    _save(path, [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    with tf.Graph().as_default() as g:
        v = tf.Variable(np.zeros((3, 2), np.float32), name="v")
        saver = tf.train.Saver(reshape=True)
        # TF's graph: save/Reshape of the RestoreV2 output, then an Assign that does not check shapes
        ops = {op.name: op for op in g.get_operations()}
        assert [i.name for i in ops["save/Reshape"].inputs] == ["save/RestoreV2:0", "save/Reshape/shape:0"]
        assert [i.name for i in ops["save/Assign"].inputs] == ["v:0", "save/Reshape:0"]
        assert ops["save/Assign"].attrs["validate_shape"] is False
        with tf.Session() as sess:
            saver.restore(sess, path)
            assert sess.run(v).tolist() == [[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]  # TF's values
    with tf.Graph().as_default():
        tf.Variable(np.zeros((2, 2), np.float32), name="v")
        saver = tf.train.Saver(reshape=True)
        with tf.Session() as sess:
            with pytest.raises(tf.errors.InvalidArgumentError,
                               match="Input to reshape is a tensor with 6 values, but the requested shape has 4"):
                saver.restore(sess, path)
    with tf.Graph().as_default():  # without reshape: TF's Assign error
        tf.Variable(np.zeros((3, 2), np.float32), name="v")
        saver = tf.train.Saver()
        with tf.Session() as sess:
            with pytest.raises(tf.errors.InvalidArgumentError, match="Assign requires shapes of both tensors to match"):
                saver.restore(sess, path)


def test_write_version_v1_saves_with_save_slices(tmp_path):
    path = str(tmp_path / "m")
    g, saver = _save(path, [1.0, 2.0], write_version=tf.train.SaverDef.V1)
    save = g.get_operation_by_name("save/save")
    assert save.type == "SaveSlices" and saver.saver_def.version == 1  # TF's V1 graph and SaverDef
    assert [i.name for i in save.inputs] == ["save/Const:0", "save/save/tensor_names:0",
                                            "save/save/shapes_and_slices:0", "v:0"]
    with tf.Graph().as_default():
        v = tf.Variable([0.0, 0.0], name="v")
        saver = tf.train.Saver(restore_sequentially=True)
        with tf.Session() as sess:
            saver.restore(sess, path)
            assert sess.run(v).tolist() == [1.0, 2.0]
    with tf.Graph().as_default():
        tf.Variable(1.0, name="v")
        with pytest.raises(NotImplementedError, match="write_version"):
            tf.train.Saver(write_version=tf.train.SaverDef.V1, sharded=True)


def test_file_uri_and_unknown_scheme(tmp_path):
    path = "file://" + str(tmp_path / "uri")
    with tf.Graph().as_default():
        v = tf.Variable(10.0, name="v")
        saver = tf.train.Saver()
        with tf.Session() as sess:
            sess.run(v.initializer)
            assert saver.save(sess, path) == path  # TF returns the path as given
            sess.run(v.assign(0.0))
            saver.restore(sess, path)
            assert sess.run(v) == 10.0
            with pytest.raises(tf.errors.UnimplementedError, match="File system scheme 'gs' not implemented"):
                saver.save(sess, "gs://bucket/m")
    assert os.path.exists(str(tmp_path / "uri") + ".npz")


def test_renamed_partitioned_variable_clashes_by_its_name():
    with tf.Graph().as_default():
        partitioner = tf.fixed_size_partitioner(num_shards=2)
        p1 = tf.get_variable("p_v1", shape=[4, 5], partitioner=partitioner)
        p2 = tf.get_variable("p_v2", shape=[4, 5], partitioner=partitioner)
        tf.train.Saver([p1, p2])
        p2._name = "p_v1"
        with pytest.raises(ValueError, match="^At least two variables have the same name: p_v1$"):
            tf.train.Saver([p1, p2])


def test_write_string_to_file_round_trip(tmp_path):
    from devlab import file_io
    path = str(tmp_path / "f")
    file_io.write_string_to_file(path, "text")
    assert file_io.read_file_to_string(path) == "text"
    file_io.write_string_to_file(path, b"\x00b")
    assert file_io.read_file_to_string(path, binary_mode=True) == b"\x00b"


def test_checkpoint_state_file_as_tf(tmp_path):
    d = str(tmp_path)
    with tf.Graph().as_default():
        v = tf.Variable(1.0, name="v")
        saver = tf.train.Saver(max_to_keep=2)
        with tf.Session() as sess:
            sess.run(v.initializer)
            for step in range(3):
                saver.save(sess, os.path.join(d, "m"), global_step=step)
            # TF's file: the newest, then the kept ones oldest first (m-0 was deleted)
            assert open(os.path.join(d, "checkpoint")).read().splitlines() == [
                f'model_checkpoint_path: "{d}/m-2"', f'all_model_checkpoint_paths: "{d}/m-1"',
                f'all_model_checkpoint_paths: "{d}/m-2"']
            saver.save(sess, os.path.join(d, "n"), write_state=False)  # neither tracked nor in the file
            assert tf.train.latest_checkpoint(d) == os.path.join(d, "m-2")
            saver.save(sess, os.path.join(d, "k"), latest_filename="other")
            assert open(os.path.join(d, "other")).read().splitlines() == [
                f'model_checkpoint_path: "{d}/k"', f'all_model_checkpoint_paths: "{d}/m-2"',
                f'all_model_checkpoint_paths: "{d}/k"']
            assert not os.path.exists(os.path.join(d, "m-1.npz"))  # max_to_keep=2 counted m-1, m-2, k
            assert os.path.exists(os.path.join(d, "n.npz"))
    os.remove(os.path.join(d, "m-2.npz"))
    assert tf.train.latest_checkpoint(d) is None  # TF: the state file names a checkpoint that is gone


def test_write_graph_writes_a_saver_def_as_tf(tmp_path):
    with tf.Graph().as_default():
        tf.Variable(1.0, name="v")
        saver = tf.train.Saver()
        path = tf.train.write_graph(saver.as_saver_def(), str(tmp_path), "saver.pbtxt")
    assert open(path).read().splitlines() == [  # TF's text SaverDef
        'filename_tensor_name: "save/Const:0"', 'save_tensor_name: "save/control_dependency:0"',
        'restore_op_name: "save/restore_all"', "max_to_keep: 5", "keep_checkpoint_every_n_hours: 10000.0",
        "version: V2"]
