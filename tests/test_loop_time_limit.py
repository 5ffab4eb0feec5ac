"""A while loop that never ends stops when the run's time limit passes (TF's
DeadlineExceededError, its control_flow_ops_py_test testWhileTimeOut): the interpreter checks
between iterations and so does the compiled program, and the session runs on afterwards."""
import pytest

import devlab as tf
from devlab.runtime.flow_program import FlowProgram


def test_an_endless_loop_stops_at_the_time_limit_interpreted():
    endless = tf.while_loop(lambda x: True, lambda x: tf.add(x, 1), [tf.constant(0)])
    sess = tf.Session()
    with pytest.raises(tf.errors.DeadlineExceededError, match="Timed out waiting for notification"):
        sess.run(endless, options=tf.RunOptions(timeout_in_ms=30))


def test_a_loop_past_the_time_limit_stops_in_the_compiled_program():
    limit = tf.placeholder(tf.int32, [])
    loop = tf.while_loop(lambda x: x < limit, lambda x: tf.add(x, 1), [tf.constant(0)])
    sess = tf.Session()
    assert [sess.run(loop, {limit: 7}) for _ in range(3)] == [7, 7, 7]
    assert isinstance(sess.compiled_program(sess.last_plan), FlowProgram)  # later runs are compiled
    assert "check_cancelled()" in sess.compiled_program(sess.last_plan).source
    with pytest.raises(tf.errors.DeadlineExceededError, match="Timed out waiting for notification"):
        sess.run(loop, {limit: 2 ** 31 - 1}, options=tf.RunOptions(timeout_in_ms=30))
    assert sess.run(loop, {limit: 5}, options=tf.RunOptions(timeout_in_ms=10000)) == 5


def test_the_session_config_limit_applies_too():
    endless = tf.while_loop(lambda x: True, lambda x: tf.add(x, 1), [tf.constant(0)])
    with tf.Session(config=tf.ConfigProto(operation_timeout_in_ms=30)) as sess:
        with pytest.raises(tf.errors.DeadlineExceededError):
            sess.run(endless)
