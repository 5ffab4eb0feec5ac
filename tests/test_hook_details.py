"""Details of TF 2.21's hooks and session wrappers: StepCounterHook's warning about a global step
that does not move (logged the first 5 times), the merging of the hooks' RunOptions (tfdbg
watches included), the wrapped sessions' ``sess_str``, QueueRunnerDef round trips and
``tf.train.summary_iterator``."""
import numpy as np
import pytest

import devlab as tf
from devlab import tf_logging
from devlab.framework import errors
from devlab.runtime.protos import DebugOptions, DebugTensorWatch, RunOptions
from devlab.train import monitored_session


def test_step_counter_warns_of_a_still_global_step_with_log_first_n(monkeypatch):
    calls = []
    monkeypatch.setattr(tf_logging, "log_first_n", lambda *args: calls.append(args))
    with tf.Graph().as_default():
        tf.train.get_or_create_global_step()
        train_op = tf.constant(3)  # the global step never moves
        hook = tf.train.StepCounterHook(every_n_steps=1)
        hook.begin()
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            hooked = monitored_session._HookedSession(sess, [hook])
            for _ in range(3):
                hooked.run(train_op)
    # TF: log_first_n(WARN, "It seems that global step ... has not been increased...", 5, stale, last)
    assert len(calls) == 2 and all(c[0] == tf_logging.WARN and c[2] == 5 for c in calls)
    assert "global step (tf.train.get_global_step) has not been increased" in calls[0][1]


class _OptionsHook(tf.train.SessionRunHook):
    def __init__(self, options):
        self.options, self.seen = options, []

    def before_run(self, run_context):
        return tf.train.SessionRunArgs(None, options=self.options)

    def after_run(self, run_context, run_values):
        self.seen.append(run_values.options)


def test_hook_run_options_are_merged_as_tf():
    watch_a = DebugTensorWatch(node_name="a", output_slot=0, debug_ops=["DebugIdentity"], debug_urls=[])
    watch_b = DebugTensorWatch(node_name="b", output_slot=0, debug_ops=["DebugIdentity"], debug_urls=[])
    a = RunOptions(trace_level=2, timeout_in_ms=30000, output_partition_graphs=False)
    a.debug_options.debug_tensor_watch_opts.extend([watch_a])
    b = RunOptions(trace_level=3, timeout_in_ms=60000, output_partition_graphs=True,
                   report_tensor_allocations_upon_oom=True)
    b.debug_options.debug_tensor_watch_opts.extend([watch_b])
    with tf.Graph().as_default():
        c = tf.constant(42, name="c")
        hook_a, hook_b = _OptionsHook(a), _OptionsHook(b)
        with tf.train.MonitoredSession(hooks=[hook_a, hook_b]) as sess:
            assert sess.run(c) == 42
    # the larger number wins, a flag is set if either sets it, the watches are appended in order
    assert hook_b.seen == [RunOptions(trace_level=3, timeout_in_ms=60000, output_partition_graphs=True,
                                      debug_options=DebugOptions(debug_tensor_watch_opts=[watch_a, watch_b]),
                                      report_tensor_allocations_upon_oom=True)]
    assert RunOptions() != RunOptions(trace_level=1)


def test_a_debug_url_is_not_implemented():
    options = RunOptions()
    options.debug_options.debug_tensor_watch_opts.append(DebugTensorWatch(node_name="c", debug_urls=["file:///x"]))
    with tf.Graph().as_default():
        c = tf.constant(1, name="c")
        with tf.Session() as sess:
            with pytest.raises(NotImplementedError, match="debug_urls"):
                sess.run(c, options=options)


def test_wrapped_sessions_show_the_sessions_target():
    with tf.Graph().as_default():
        tf.constant(0.0)
        with tf.Session() as sess:
            wrapped = monitored_session._CoordinatedSession(monitored_session._WrappedSession(sess),
                                                            tf.train.Coordinator())
            assert wrapped.sess_str == sess.sess_str == b""


def test_queue_runner_def_round_trip():
    with tf.Graph().as_default():
        queue = tf.FIFOQueue(10, tf.float32, name="queue")
        enqueue, close, cancel = tf.no_op(name="enqueue"), tf.no_op(name="close"), tf.no_op(name="cancel")
        qr = tf.train.QueueRunner(queue, [enqueue], close, cancel,
                                  queue_closed_exception_types=(errors.OutOfRangeError, errors.CancelledError))
        proto = qr.to_proto()
        # TF's bytes for this QueueRunnerDef (error codes 11 and 1)
        assert proto.SerializeToString() == b"\n\x05queue\x12\x07enqueue\x1a\x05close\"\x06cancel*\x02\x0b\x01"
        back = tf.train.QueueRunner.from_proto(proto)
        assert (back.queue.name, back.enqueue_ops, back.close_op, back.cancel_op) == ("queue", [enqueue], close, cancel)
        assert back.queue_closed_exception_types == (errors.OutOfRangeError, errors.CancelledError)
        del proto.queue_closed_exception_types[:]  # a QueueRunnerDef from before the field: OutOfRangeError
        assert tf.train.QueueRunner.from_proto(proto).queue_closed_exception_types == (errors.OutOfRangeError,)
        assert qr.to_proto(export_scope="other") is None
        with pytest.raises(ValueError, match="queue_runner_def and queue are mutually exclusive."):
            tf.train.QueueRunner(queue, queue_runner_def=proto)


def test_error_codes_as_tf():
    assert errors.exception_type_from_error_code(11) is errors.OutOfRangeError
    assert errors.error_code_from_exception_type(errors.CancelledError) == 1
    with pytest.warns(UserWarning, match="Unknown class exception"):
        unknown = errors.error_code_from_exception_type(ValueError)
    assert isinstance(unknown, errors.UnknownError)  # TF returns (not raises) an UnknownError
    with pytest.raises(KeyError):
        errors.exception_type_from_error_code(0)


def test_summary_iterator_reads_back_what_a_file_writer_wrote(tmp_path):
    pytest.importorskip("tensorboard")
    writer = tf.summary.FileWriter(str(tmp_path))
    from devlab.framework.tf_protos import pb
    summary = pb().Summary(value=[pb().Summary.Value(tag="loss", simple_value=0.5)])
    writer.add_summary(summary, global_step=7)
    writer.close()
    import glob
    events = list(tf.train.summary_iterator(glob.glob(str(tmp_path / "events.*"))[0]))
    assert events[0].HasField("file_version")
    summaries = [e for e in events if e.HasField("summary")]
    assert [(e.step, e.summary.value[0].tag, e.summary.value[0].simple_value) for e in summaries] == [(7, "loss", 0.5)]


def test_a_run_error_is_raised_from_session_py_as_tf():
    import os
    import traceback
    with tf.Graph().as_default():
        assertion = tf.Assert(False, ["This should fail."])
        with tf.Session() as sess:
            wrapped = monitored_session._CoordinatedSession(sess, tf.train.Coordinator(clean_stop_exception_types=()))
            with pytest.raises(tf.errors.InvalidArgumentError) as e:
                wrapped.run([assertion])
    # TF's monitored_session_test: the innermost frame is session.py (the wrappers re-raise it unchanged)
    assert os.path.basename(traceback.extract_tb(e.value.__traceback__)[-1].filename) == "session.py"
    assert "assertion failed: [This should fail.]" in str(e.value)
