"""MonitoredTrainingSession inside TF's distribute-coordinator worker context
(``distribute_coordinator._WorkerContext``): the strategy, not ``is_chief``, decides whether
summaries and checkpoints are written, as in TF 2.21's monitored_session_test."""
import glob
import os
from types import SimpleNamespace

import pytest

import devlab as tf
from devlab.distribute.worker_context import _WorkerContext, get_current_worker_context


def _strategy(should_checkpoint=None, should_save_summary=None, should_init=True):
    return SimpleNamespace(extended=SimpleNamespace(experimental_between_graph=False, experimental_should_init=should_init,
                                                    should_checkpoint=should_checkpoint,
                                                    should_save_summary=should_save_summary))


def _train(logdir, context, steps, **kwargs):
    with tf.Graph().as_default():
        step = tf.train.get_or_create_global_step()
        new_step = tf.assign_add(step, 1)
        tf.summary.scalar("my_summary_tag", new_step * 2)
        with context, tf.train.MonitoredTrainingSession(checkpoint_dir=logdir, log_step_count_steps=10,
                                                        **kwargs) as sess:
            for _ in range(steps):
                sess.run(new_step)


def test_summaries_follow_the_strategy(tmp_path):
    on, off = str(tmp_path / "on"), str(tmp_path / "off")
    _train(on, _WorkerContext(_strategy(should_save_summary=True), None, None, None), 101, save_summaries_steps=100)
    _train(off, _WorkerContext(_strategy(should_save_summary=False), None, None, None), 101, save_summaries_steps=100)
    tags = {v.tag for path in glob.glob(os.path.join(on, "events.*"))
            for e in tf.train.summary_iterator(path) if e.HasField("summary") for v in e.summary.value}
    assert {"my_summary_tag", "global_step/sec"} <= tags
    assert not [e for path in glob.glob(os.path.join(off, "events.*"))
                for e in tf.train.summary_iterator(path) if e.HasField("summary")]
    assert get_current_worker_context() is None  # the context is left on exit


def test_checkpoints_follow_the_strategy_and_a_restart_recovers(tmp_path):
    logdir = str(tmp_path)
    _train(logdir, _WorkerContext(_strategy(should_checkpoint=True), None, None, None), 100,
           save_checkpoint_steps=100)
    with tf.Graph().as_default():
        step = tf.train.get_or_create_global_step()
        with tf.train.MonitoredTrainingSession(is_chief=True, checkpoint_dir=logdir) as sess:
            assert sess.run(step) == 100


def test_a_worker_context_inside_another_is_tf_error():
    outer = _WorkerContext(_strategy(), None, None, None)
    with outer:
        with pytest.raises(ValueError, match="You cannot run distribute coordinator in a `worker_fn`"):
            with _WorkerContext(_strategy(), None, None, None):
                pass
    assert outer.is_chief and outer.master_target == "" and outer.num_workers == 0
