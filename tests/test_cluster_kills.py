"""Killing a task's process, or the Dask scheduler, in the middle of a run on ``devlab.cluster``.

TF's answer to a task that went away is ``UnavailableError`` within seconds; devlab's is the same
class, naming the task, within ``LIMIT`` seconds, with no variable changed on any task that
survived (the run is a transaction across tasks), and the process stays usable: the session runs
again once the task's worker is back (Dask's nanny restarts it, empty). Dask's own errors
(``CommClosedError``) never reach the user. Each test starts its own LocalCluster: the kills are
destructive.
"""
import os
import signal
import threading
import time

import numpy as np
import pytest

import devlab as tf

LIMIT = 10.0  # seconds from the kill to the error, as the issue asks
WORKER1 = "/job:worker/replica:0/task:1"
PS = "/job:ps/replica:0/task:0"


@pytest.fixture
def spec():
    pytest.importorskip("distributed")
    import devlab.cluster
    spec = devlab.cluster.local(ps=1, worker=2, dashboard=False, verbose=False)
    yield spec
    spec.close()


def pid_of(spec, name):
    import devlab.cluster
    return {info.name: info.pid for info in devlab.cluster.tasks(spec)}[name]


def kill_later(pid, seconds):
    """Kills ``pid`` after ``seconds`` (while the run waits on it); returns when it was killed."""
    killed = {}

    def kill():
        time.sleep(seconds)
        killed["at"] = time.monotonic()
        os.kill(pid, signal.SIGKILL)
    thread = threading.Thread(target=kill)
    thread.start()
    return thread, killed


def program():
    """Variables on the ps and on worker 0, a slow op on worker 1 and one on the ps, each run
    writing to both variables before it waits on the slow op."""
    with tf.device("/job:ps/task:0"):
        on_ps = tf.Variable([1.0, 2.0], name="on_ps")
    with tf.device("/job:worker/task:0"):
        on_w0 = tf.Variable(5.0, name="on_w0")
    writes = [on_ps.assign_add([1.0, 1.0]), on_w0.assign_add(1.0)]
    slow = {}
    for task in ("/job:worker/task:1", "/job:ps/task:0"):
        with tf.device(task), tf.control_dependencies(writes):
            slow[task] = tf.py_func(lambda: np.float32(time.sleep(3) or 1.0), [], tf.float32)
    return on_ps, on_w0, slow


def check_kill(spec, victim, slow_on):
    on_ps, on_w0, slow = program()
    sess = tf.Session(tf.train.Server(spec, job_name="worker", task_index=0).target)
    sess.run([on_ps.initializer, on_w0.initializer])
    thread, killed = kill_later(pid_of(spec, victim), 0.5)
    with pytest.raises(tf.errors.UnavailableError, match=victim) as caught:
        sess.run(slow[slow_on])
    took = time.monotonic() - killed["at"]
    thread.join()
    assert took < LIMIT, f"the run raised {took:.1f} s after the kill"
    assert "CommClosedError" not in str(caught.value)
    return sess, on_ps, on_w0


def test_a_worker_killed_mid_run_is_unavailable_and_no_variable_changed(spec):
    sess, on_ps, on_w0 = check_kill(spec, WORKER1, "/job:worker/task:1")
    np.testing.assert_array_equal(sess.run(on_ps), [1.0, 2.0])  # the surviving tasks kept their values
    assert sess.run(on_w0) == 5.0
    sess.run(on_w0.assign_add(1.0))  # and the session goes on
    assert sess.run(on_w0) == 6.0


def test_a_ps_killed_mid_run_is_unavailable_and_the_worker_kept_its_value(spec):
    sess, on_ps, on_w0 = check_kill(spec, PS, "/job:ps/task:0")
    assert sess.run(on_w0) == 5.0
    with pytest.raises(tf.errors.FailedPreconditionError, match="uninitialized value on_ps"):
        sess.run(on_ps)  # the restarted ps worker starts empty, as a restarted TF ps does
    sess.run(on_ps.initializer)
    np.testing.assert_array_equal(sess.run(on_ps), [1.0, 2.0])


def test_the_scheduler_gone_is_unavailable_and_a_new_cluster_runs(spec):
    import devlab.cluster
    with tf.device("/job:ps/task:0"):
        v = tf.Variable(3.0, name="v")
    bump = v.assign_add(1.0)
    target = tf.train.Server(spec, job_name="worker", task_index=0).target
    with tf.Session(target) as sess:
        sess.run(v.initializer)
        assert sess.run(bump) == 4.0
        backend = spec.backend
        backend.client.sync(backend.cluster.scheduler.close)  # the scheduler goes; its workers follow
        gone = time.monotonic()
        expected = 4.0
        with pytest.raises(tf.errors.UnavailableError) as caught:
            while time.monotonic() - gone < LIMIT + 5:
                expected += 1.0  # the workers may serve a run or two before they notice
                assert sess.run(bump) == expected
                time.sleep(0.1)
        assert time.monotonic() - gone < LIMIT
        assert "CommClosedError" not in str(caught.value)
    with tf.Graph().as_default():  # the process is usable: a new cluster runs
        again = devlab.cluster.local(ps=1, worker=1, dashboard=False, verbose=False)
        try:
            with tf.device("/job:ps/task:0"):
                w = tf.Variable(2.0, name="w")
            with tf.Session(tf.train.Server(again, job_name="worker", task_index=0).target) as sess:
                sess.run(w.initializer)
                assert sess.run(w * 3.0) == 6.0
        finally:
            again.close()
