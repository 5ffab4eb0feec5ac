"""The queue-based input pipeline (ops/input_kernels.py, api/parsing_ops.py, train/input.py)
against TF 2.21's recorded run of the same docker/mnist-style program
(tests/cases/input_pipeline_cases.py, tools/record_input_pipeline.py)."""
import json
import os
import sys

import numpy as np
import pytest

import devlab as tf

HERE = os.path.dirname(__file__)
sys.path.insert(0, os.path.join(HERE, "cases"))
import input_pipeline_cases as cases  # noqa: E402

with open(os.path.join(HERE, "data", "tf_input_pipeline.json")) as f:
    RECORDED = json.load(f)


def test_a_tfrecord_pipeline_trains_as_tensorflow(tmp_path):
    got, want = cases.run(tf, str(tmp_path)), RECORDED["mnist_style"]
    assert (got["steps"], got["end"]) == (want["steps"], want["end"]) == (18, "OutOfRangeError")
    for key in ("losses", "w", "b"):
        np.testing.assert_allclose(got[key], want[key], rtol=1e-5, atol=1e-6)


def test_parse_example_fills_defaults_and_checks_sizes():
    ex = tf.train.Example(features=tf.train.Features(feature={
        "x": tf.train.Feature(float_list=tf.train.FloatList(value=[1.0, 2.0]))})).SerializeToString()
    with tf.Graph().as_default():
        parsed = tf.parse_example([ex, ex], {"x": tf.FixedLenFeature([2], tf.float32),
                                             "y": tf.FixedLenFeature([], tf.int64, default_value=7)})
        wrong = tf.parse_single_example(ex, {"x": tf.FixedLenFeature([3], tf.float32)})
        missing = tf.parse_single_example(ex, {"z": tf.FixedLenFeature([], tf.int64)})
        with tf.Session() as sess:
            got = sess.run(parsed)
            assert got["x"].tolist() == [[1.0, 2.0], [1.0, 2.0]] and got["y"].tolist() == [7, 7]
            with pytest.raises(tf.errors.InvalidArgumentError, match="Values size: 2 but output shape: \\[3\\]"):
                sess.run(wrong)
            with pytest.raises(tf.errors.InvalidArgumentError, match="Feature: z \\(data type: int64\\) is required"):
                sess.run(missing)


def test_decode_raw_reads_little_and_big_endian():
    with tf.Graph().as_default():
        data = np.array([1, 2], np.int16).tobytes()
        little = tf.decode_raw(tf.constant([data]), tf.int16)
        big = tf.decode_raw(tf.constant([data]), tf.int16, little_endian=False)
        with tf.Session() as sess:
            assert sess.run(little).tolist() == [[1, 2]]
            assert sess.run(big).tolist() == [[256, 512]]


def test_what_devlab_cannot_do_is_refused_by_name():
    with tf.Graph().as_default():
        with pytest.raises(NotImplementedError, match="VarLenFeature"):
            tf.parse_single_example(tf.constant(b""), {"v": tf.VarLenFeature(tf.float32)})
        with pytest.raises(NotImplementedError, match="shuffle=True"):
            tf.train.string_input_producer(["a", "b"])
