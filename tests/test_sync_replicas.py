"""SyncReplicasOptimizer runs as TensorFlow runs it: a chief in one process, its hook filling the
token queue and starting the queue runner that averages, applies and hands out the next tokens
(recorded by tools/record_sync_replicas_run.py). Its graph is checked against TF's in
tests/programs/p05_ps_worker_flags.py (variant worker0_sync)."""
import json
import os
import sys

import numpy as np
import pytest

import devlab as tf

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "cases"))
import sync_replicas_cases  # noqa: E402

with open(os.path.join(HERE, "data", "tf_sync_replicas_run.json")) as f:
    RECORDED = json.load(f)


def test_a_chief_trains_with_tokens_as_tensorflow_does():
    got = sync_replicas_cases.run(tf)
    want = RECORDED["one_replica"]
    assert got["tokens"] == want["tokens"]
    assert np.isclose(got["first_loss"], want["first_loss"]) and got["loss_fell"] == want["loss_fell"]


def test_the_chief_init_sets_every_accumulator_to_the_global_step():
    with tf.device("/cpu:0"):
        a = tf.Variable([1.0], name="a")
        b = tf.Variable([2.0], name="b")
        step = tf.train.get_or_create_global_step()
        opt = tf.train.SyncReplicasOptimizer(tf.train.GradientDescentOptimizer(1.0), replicas_to_aggregate=2)
        opt.minimize(tf.reduce_sum(a * b), global_step=step)
    types = [op.type for op in opt.chief_init_op.control_inputs]
    assert types.count("ResourceAccumulatorSetGlobalStep") == 2 and "Assign" in types
    assert tf.get_default_graph().get_operation_by_name("sync_token_q").type == "FIFOQueueV2"


def test_errors_are_tensorflows():
    opt = tf.train.SyncReplicasOptimizer(tf.train.GradientDescentOptimizer(1.0), replicas_to_aggregate=2)
    with pytest.raises(ValueError, match="Should be called after apply_gradients"):
        opt.get_chief_queue_runner()
    v = tf.Variable(1.0)
    with pytest.raises(ValueError, match="Global step is required to check staleness"):
        opt.apply_gradients([(tf.constant(1.0), v)])
    with pytest.raises(ValueError, match="Must supply at least one variable"):
        opt.apply_gradients([], global_step=tf.train.get_or_create_global_step())


def test_start_queue_runners_starts_the_graphs_queue_runners():
    q = tf.FIFOQueue(10, tf.float32, shapes=())
    counter = tf.Variable(0.0)
    enqueue = q.enqueue(tf.assign_add(counter, 1.0))
    tf.train.add_queue_runner(tf.train.QueueRunner(q, [enqueue]))
    take = q.dequeue_many(3)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        coord = tf.train.Coordinator()
        threads = tf.train.start_queue_runners(sess=sess, coord=coord)
        assert len(threads) == 2  # the enqueue thread and the one closing the queue when stopped
        assert sorted(sess.run(take).tolist()) == [1.0, 2.0, 3.0]
        coord.request_stop()
        coord.join(threads, stop_grace_period_secs=5)


def test_a_coordinator_keeps_only_the_exception_that_asked_it_to_stop():
    """What threads raise after a stop was requested (an enqueue cancelled as the queue closes) is
    not reported by join, as in TF; the exception that requested the stop is."""
    coord = tf.train.Coordinator()
    coord.request_stop()
    coord.request_stop(tf.errors.CancelledError(None, None, "Enqueue operation was cancelled"))
    coord.join([])
    coord = tf.train.Coordinator()
    coord.request_stop(ValueError("first"))
    coord.request_stop(RuntimeError("second"))
    with pytest.raises(ValueError, match="first"):
        coord.join([])
