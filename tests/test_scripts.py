"""The scaffolding of TF1 scripts: flags and ``tf.app.run``, ``tf.logging``, queue runners and the
Coordinator, summaries, learning-rate decay, the version, ``tf.compat.v1``, and the one-line error
for an API devlab lacks."""
import sys
import threading

import numpy as np
import pytest

import devlab as tf


@pytest.fixture
def fresh_flags(monkeypatch):
    flags = tf.flags.FlagValues()
    monkeypatch.setattr(tf.flags, "FLAGS", flags)
    monkeypatch.setattr(tf.app.flags, "FLAGS", flags)
    return flags


def test_flags_parse_argv_on_first_use_and_leave_unknown_flags(fresh_flags, monkeypatch):
    flags = tf.app.flags
    flags.DEFINE_string("job_name", "", "ps or worker", flag_values=fresh_flags)
    flags.DEFINE_integer("task_index", 0, "task", flag_values=fresh_flags)
    flags.DEFINE_float("learning_rate", 0.1, "rate", flag_values=fresh_flags)
    flags.DEFINE_boolean("sync", False, "sync replicas", flag_values=fresh_flags)
    flags.DEFINE_list("ps_hosts", "a:1,b:2", "hosts", flag_values=fresh_flags)
    # Jupyter starts kernels with -f <connection file>: not a flag of ours, left alone
    monkeypatch.setattr(sys, "argv", ["train.py", "--job_name=worker", "--task_index", "2", "-f", "kernel.json",
                                      "--sync", "--learning_rate=0.5", "data.txt"])
    assert fresh_flags.job_name == "worker" and fresh_flags.task_index == 2
    assert fresh_flags.sync is True and fresh_flags.learning_rate == 0.5 and fresh_flags.ps_hosts == ["a:1", "b:2"]
    assert fresh_flags(["prog", "--nosync", "--task_index=3", "rest"]) == ["prog", "rest"]
    assert fresh_flags.sync is False and fresh_flags.task_index == 3
    with pytest.raises(tf.flags.IllegalFlagValueError):
        fresh_flags(["prog", "--task_index=three"])


def test_app_run_calls_main_with_the_remaining_arguments(fresh_flags, monkeypatch):
    tf.flags.DEFINE_string("mode", "train", "", flag_values=fresh_flags)
    seen = []

    def main(argv):
        seen.append((list(argv), fresh_flags.mode))
        return 0
    monkeypatch.setattr(sys, "argv", ["script.py", "--mode=eval", "extra"])
    monkeypatch.setattr(tf.app, "_in_ipython", lambda: False)
    with pytest.raises(SystemExit) as exit_:
        tf.app.run(main)
    assert exit_.value.code == 0 and seen == [(["script.py", "extra"], "eval")]
    monkeypatch.setattr(tf.app, "_in_ipython", lambda: True)  # a notebook cell is not ended by sys.exit
    assert tf.app.run(main, argv=["cell"]) == 0 and seen[-1] == (["cell"], "eval")


def test_logging_prints_tf1_lines_at_the_set_verbosity(capsys):
    old = tf.logging.get_verbosity()
    try:
        tf.logging.set_verbosity(tf.logging.INFO)
        tf.logging.info("step %d", 100)
        tf.logging.debug("hidden")
        tf.logging.set_verbosity(tf.logging.WARN)
        tf.logging.info("hidden too")
        tf.logging.warn("careful")
    finally:
        tf.logging.set_verbosity(old)
    assert capsys.readouterr().err == "INFO:tensorflow:step 100\nWARNING:tensorflow:careful\n"


def test_queue_runners_and_coordinator():
    coord = tf.train.Coordinator()
    with pytest.raises(ValueError, match="No default session is registered"):
        tf.train.start_queue_runners(sess=None, coord=coord)  # as TF: no session, no runners to start
    with tf.Session() as sess:
        assert tf.train.start_queue_runners(sess=sess, coord=coord) == []  # the graph has no QueueRunner
    stopped = []

    def worker():
        while not coord.should_stop():
            coord.wait_for_stop(0.01)
        stopped.append(True)
    threads = [threading.Thread(target=worker) for _ in range(2)]
    for t in threads:
        t.start()
    coord.request_stop()
    coord.join(threads)
    assert stopped == [True, True] and coord.should_stop()
    coord = tf.train.Coordinator()
    with coord.stop_on_exception():
        raise ValueError("bad batch")
    assert coord.should_stop()
    with pytest.raises(ValueError, match="bad batch"):
        coord.join([])


def test_summaries_are_cpu_only_string_ops_in_the_collection():
    x = tf.constant(np.arange(4.0, dtype=np.float32))
    with tf.name_scope("tower_0"):
        s1 = tf.summary.scalar("loss", tf.reduce_sum(x))
        h = tf.summary.histogram("acts", x)
    merged = tf.summary.merge_all()
    assert [op.type for op in (s1.op, h.op, merged.op)] == ["ScalarSummary", "HistogramSummary", "MergeSummary"]
    assert merged.op.name == "Merge/MergeSummary" and h.op.inputs[0].op.name == "tower_0/acts/tag"
    with tf.device("/gpu:0"):
        pinned = tf.summary.histogram("pinned", x)
    with tf.Session(config=tf.ConfigProto(device_count={"GPU": 1}, allow_soft_placement=True)) as s:
        text = s.run(merged)
        assert s.placement.device_of(pinned.op).device_type == "CPU"
    from tensorboard.compat.proto.summary_pb2 import Summary  # what reads TF's summary bytes
    values = Summary.FromString(text).value
    assert [v.tag for v in values] == ["tower_0/loss", "tower_0/acts"] and values[0].simple_value == 6.0
    histo = values[1].histo
    assert (histo.min, histo.max, histo.num, histo.sum, histo.sum_squares) == (0.0, 3.0, 4.0, 6.0, 14.0)
    assert sum(histo.bucket) == 4 and histo.bucket_limit[-1] == sys.float_info.max
    with tf.Graph().as_default():
        loss = tf.summary.scalar("loss", 1.0)
        twice = tf.summary.merge([loss, loss])
        bad = tf.summary.histogram("bad", tf.constant([0.0]) / 0.0)
        with tf.Session() as s:
            with pytest.raises(tf.errors.InvalidArgumentError, match="Duplicate tag loss found in summary inputs"):
                s.run(twice)
            with pytest.raises(tf.errors.InvalidArgumentError, match="Nan in summary histogram for: bad"):
                s.run(bad)
    with tf.Graph().as_default():
        assert tf.summary.merge_all() is None


def test_exponential_decay_follows_the_global_step():
    step = tf.train.get_or_create_global_step()
    smooth = tf.train.exponential_decay(0.1, step, 100, 0.5)
    stairs = tf.train.exponential_decay(0.1, step, 100, 0.5, staircase=True)
    advance = tf.assign_add(step, 150)
    with tf.Session() as s:
        s.run(tf.global_variables_initializer())
        s.run(advance)
        got = s.run([smooth, stairs])
    np.testing.assert_allclose(got, [0.1 * 0.5 ** 1.5, 0.05], rtol=1e-6)
    assert step.op.inputs == () and "global_step/Initializer/zeros" in [op.name for op in
                                                                        tf.get_default_graph().get_operations()]


def test_version_and_compat_aliases():
    assert tf.__version__.startswith("1.15") and tf.VERSION == tf.version.VERSION == tf.__version__
    assert tf.compat.v1 is tf and tf.compat.as_bytes("a") == b"a" and tf.compat.as_text(b"a") == "a"


def test_a_missing_api_names_itself_and_the_users_line():
    with pytest.raises(AttributeError) as e:
        tf.nn.ctc_loss  # noqa: B018 - the access is the test
    assert str(e.value).startswith("devlab does not implement tf.nn.ctc_loss yet (used at ")
    assert "test_scripts.py:" in str(e.value)
    for namespace, name in [(tf, "foldl"), (tf.train, "AdagradDAOptimizer"), (tf.layers, "Conv2D"), (tf.losses, "hinge_loss"),
                            (tf.summary, "image"), (tf.contrib, "layers"), (tf.app, "foo"), (tf.compat, "v2")]:
        assert not hasattr(namespace, name)
    with pytest.raises(AttributeError, match=r"^module 'devlab' has no attribute '_private'$"):
        tf._private  # noqa: B018


def test_initialized_value_initializes_one_variable_from_another():
    v = tf.Variable([1.0, 2.0], name="v")
    w = tf.Variable(v.initialized_value() * 2, name="w")
    with tf.Session() as s:
        s.run(tf.global_variables_initializer())
        np.testing.assert_array_equal(s.run(w), [2.0, 4.0])


def test_int32_and_string_tensors():
    i = tf.constant([7, -3, 12])
    with tf.Session() as s:
        got = s.run([i // 2, i % 5, i / 2, tf.reduce_sum(i * i), tf.constant("hello"),
                     tf.string_join([tf.constant(["a", "b"]), tf.as_string(tf.reduce_max(i))], separator="=")])
    assert got[0].tolist() == [3, -2, 6] and got[1].tolist() == [2, 2, 2] and got[2].dtype == np.float64
    assert got[3] == 202 and got[4] == b"hello" and got[5].tolist() == [b"a=12", b"b=12"]
