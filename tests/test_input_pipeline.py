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
        with pytest.raises(NotImplementedError, match="cancel_op"):
            tf.train.input_producer(["a", "b"], cancel_op=tf.no_op())


def test_input_producer_reports_how_full_its_queue_is():
    with tf.Graph().as_default() as g:
        tf.train.input_producer(["a", "b"], shuffle=False, summary_name="full")
        summaries = [op for op in g.get_operations() if op.type == "ScalarSummary"]
        assert len(summaries) == 1 and summaries[0].name.endswith("full")


def test_shuffle_batch_gives_every_record_of_every_epoch_as_tensorflow(tmp_path):
    """The order is the queue's own (TF's generator is not reproduced, and in both the order also
    depends on when the enqueue thread runs), so what is compared is which records came out, how
    many batches, and how the input ended; and that the order is not the file's."""
    want = RECORDED["shuffled"]
    got = cases.shuffled(tf, str(tmp_path), seed=3)
    assert (got["steps"], got["end"], got["seen"]) == (want["steps"], want["end"], want["seen"])
    in_file = [tf.train.Example.FromString(r).features.feature["label"].int64_list.value[0]
               for r in tf.python_io.tf_record_iterator(str(tmp_path / "shuffled.tfrecords"))]
    assert [label for b in got["batches"] for label in b] != in_file * 2


def test_a_random_shuffle_queue_keeps_min_after_dequeue_until_closed():
    with tf.Graph().as_default():
        q = tf.RandomShuffleQueue(10, 3, [tf.int32], shapes=[[]], seed=1)
        fill, take, close = q.enqueue_many([[1, 2, 3, 4]]), q.dequeue(), q.close()
        with tf.Session() as sess:
            sess.run(fill)
            got = [sess.run(take)]  # 4 elements: one may go, 3 stay
            with pytest.raises(tf.errors.DeadlineExceededError):
                sess.run(take, options=tf.RunOptions(timeout_in_ms=100))
            sess.run(close)  # closed: the rest may go, then OutOfRangeError
            got += [sess.run(take) for _ in range(3)]
            assert sorted(got) == [1, 2, 3, 4]
            with pytest.raises(tf.errors.OutOfRangeError, match="RandomShuffleQueue '.*' is closed"):
                sess.run(take)


def test_batch_join_takes_every_record_from_several_readers(tmp_path):
    for key, shuffle in (("joined", False), ("shuffle_joined", True)):
        assert cases.joined(tf, str(tmp_path), shuffle=shuffle) == RECORDED[key], key


def test_batching_returns_the_form_it_was_given():
    """One tensor in a list comes back as a Tensor, several as a list, a dict as a dict (TF's
    ``_as_original_type``)."""
    with tf.Graph().as_default():
        x, y = tf.constant(1), tf.constant(2)
        assert isinstance(tf.train.batch([x], 2), tf.Tensor)
        assert isinstance(tf.train.batch([x, y], 2), list)
        assert isinstance(tf.train.batch_join([[x], [y]], 2), tf.Tensor)
        assert isinstance(tf.train.shuffle_batch([x], 2, 10, 1), tf.Tensor)
        assert sorted(tf.train.batch({"a": x, "b": y}, 2)) == ["a", "b"]


@pytest.mark.parametrize("build, error, words", [
    (lambda x, y: tf.train.shuffle_batch([tf.placeholder(tf.float32)], 2, 10, 1), ValueError,
     'Cannot infer Tensor\'s rank: Tensor("Placeholder:0", dtype=float32)'),
    (lambda x, y: tf.train.shuffle_batch([tf.placeholder(tf.float32, [None, 3])], 2, 10, 1), ValueError,
     "All shapes must be fully defined: [TensorShape([Dimension(None), Dimension(3)])]"),
    (lambda x, y: tf.train.batch([y[0]], 2, enqueue_many=True), ValueError, "Shape () must have rank at least 1"),
    (lambda x, y: tf.train.batch_join([[x[0]], [y]], 2), TypeError,
     "Expected types to be consistent: float32 vs. int32."),
    (lambda x, y: tf.train.batch_join([{"a": x[0]}, {"b": x[1]}], 2), ValueError,
     "All dictionaries in tensors_list must have the same keys"),
    (lambda x, y: tf.train.batch_join([[x], [tf.constant([[1., 2., 3.]])]], 2), ValueError,
     "Shapes (2, 2) and (1, 3) are not compatible"),
    (lambda x, y: tf.train.batch([], 2), ValueError, "Expected at least one tensor in batch()."),
    (lambda x, y: tf.train.shuffle_batch_join([], 2, 3, 1), ValueError, "Expected at least one set of tensors"),
])
def test_the_batchers_check_their_inputs_as_tensorflow(build, error, words):
    """Every batcher infers its queue's shapes and types as TF's ``_shapes``/``_dtypes`` do, with
    TF's errors (recorded from TF 2.21), and the queue insists the shapes are fully defined."""
    with tf.Graph().as_default():
        x, y = tf.constant([[1., 2.], [3., 4.]]), tf.constant([5, 6])
        with pytest.raises(error) as caught:
            build(x, y)
        assert str(caught.value) == words


def test_a_join_keeps_the_first_lists_shapes():
    """With ``enqueue_many``, each item's shape less its batch dimension, from the first list."""
    with tf.Graph().as_default():
        x = tf.constant([[1., 2.], [3., 4.]])
        out = tf.train.batch_join([[x], [tf.placeholder(tf.float32, [None, 2])]], 3, enqueue_many=True)
        assert out.shape.as_list() == [3, 2]


sys.path.insert(0, os.path.join(HERE, "cases"))
from recorded import compare, load  # noqa: E402

SHUFFLE_CASES, SHUFFLE_RECORDED = load("shuffle", "tf_shuffle.json")


@pytest.mark.parametrize("name", sorted(SHUFFLE_CASES))
def test_seeded_shuffles_and_matched_files_come_in_tensorflows_order(name):
    """TF's RandomShuffle draws from its Philox generator: with a seed, devlab's files and rows come
    in TF's order, epoch after epoch."""
    compare(tf, SHUFFLE_CASES[name], SHUFFLE_RECORDED[name])
