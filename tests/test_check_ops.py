"""``tf.assert_positive``/``tf.assert_less`` and ``tf.train.range_input_producer`` as TF 2.21 builds
and runs them (the messages are TF's, from the oracle), and queue runners surviving
``export_meta_graph``/``import_meta_graph`` (ptb_word_lm's reader needs both; its whole program is
tests/programs/p21_ptb_word_lm.py)."""
import pytest

import devlab as tf


def test_assert_positive_builds_tfs_ops():
    x = tf.constant(5)
    tf.assert_positive(x, message="epoch_size == 0, decrease batch_size or num_steps")
    names = [op.name for op in tf.get_default_graph().get_operations()]
    assert names == ["Const", "assert_positive/Const", "assert_positive/assert_less/Less",
                     "assert_positive/assert_less/Rank", "assert_positive/assert_less/range/start",
                     "assert_positive/assert_less/range/delta", "assert_positive/assert_less/range",
                     "assert_positive/assert_less/All", "assert_positive/assert_less/Assert/Const",
                     "assert_positive/assert_less/Assert/Const_1", "assert_positive/assert_less/Assert/Const_2",
                     "assert_positive/assert_less/Assert/Assert/data_0",
                     "assert_positive/assert_less/Assert/Assert/data_1",
                     "assert_positive/assert_less/Assert/Assert/data_2",
                     "assert_positive/assert_less/Assert/Assert"]


def test_failing_asserts_name_the_tensors_and_values_as_tf_does():
    y = tf.placeholder(tf.float32)
    b = tf.assert_positive(y)
    c = tf.assert_less(y, 3.0, message="m")
    with tf.Session() as sess:
        sess.run([b, c], {y: 1.5})
        with pytest.raises(tf.errors.InvalidArgumentError,
                           match=r"assertion failed: \[\] \[Condition x > 0 did not hold element-wise:\] "
                                 r"\[x \(Placeholder:0\) = \] \[-1\]"):
            sess.run(b, {y: -1.0})
        with pytest.raises(tf.errors.InvalidArgumentError,
                           match=r"assertion failed: \[m\] \[Condition x < y did not hold element-wise:\] "
                                 r"\[x \(Placeholder:0\) = \] \[4\] \[y \(assert_less/y:0\) = \] \[3\]"):
            sess.run(c, {y: 4.0})


def test_an_assert_known_false_while_building_fails_at_once():
    with pytest.raises(tf.errors.InvalidArgumentError) as e:
        tf.assert_positive(tf.constant(-1), message="static")
    assert str(e.value) == "static.  \nCondition x > 0 did not hold element-wise:\nx (Const:0) = \n-1"


def test_range_input_producer_counts_round_and_reports_how_full_it_is():
    i = tf.train.range_input_producer(3, shuffle=False).dequeue()
    summaries = tf.get_collection(tf.GraphKeys.SUMMARIES)
    assert [s.name for s in summaries] == ["input_producer/fraction_of_32_full:0"]
    with tf.Session() as sess:
        coord = tf.train.Coordinator()
        threads = tf.train.start_queue_runners(sess, coord)
        assert [int(sess.run(i)) for _ in range(5)] == [0, 1, 2, 0, 1]
        coord.request_stop()
        coord.join(threads)


def test_queue_runners_survive_a_meta_graph_file(tmp_path):
    path = str(tmp_path / "model.meta")
    with tf.Graph().as_default():
        tf.train.range_input_producer(4, shuffle=False).dequeue(name="next")
        tf.train.export_meta_graph(path)
    with tf.Graph().as_default():
        tf.train.import_meta_graph(path)
        (qr,) = tf.get_collection(tf.GraphKeys.QUEUE_RUNNERS)
        assert qr.name == "input_producer"
        assert [op.name for op in qr.enqueue_ops] == ["input_producer/input_producer_EnqueueMany"]
        assert (qr.close_op.name, qr.cancel_op.name) == ("input_producer/input_producer_Close",
                                                          "input_producer/input_producer_Close_1")
        with tf.Session() as sess:
            coord = tf.train.Coordinator()
            threads = tf.train.start_queue_runners(sess, coord)
            assert [int(sess.run("next:0")) for _ in range(5)] == [0, 1, 2, 3, 0]
            coord.request_stop()
            coord.join(threads)


def test_imported_meta_graph_gives_colocated_ops_their_groups_device():
    with tf.Graph().as_default():
        with tf.device("/cpu:0"):
            v = tf.get_variable("v", [2], initializer=tf.zeros_initializer())
        meta = tf.train.export_meta_graph()
        assert tf.get_default_graph().get_operation_by_name("v/Initializer/zeros").device == ""
    with tf.Graph().as_default() as g:
        tf.train.import_meta_graph(meta)
        assert g.get_operation_by_name("v/Initializer/zeros").device == "/device:CPU:0"
        assert g.get_operation_by_name("v").device == "/device:CPU:0"
