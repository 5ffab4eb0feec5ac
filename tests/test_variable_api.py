"""Arguments of the variable API once accepted and ignored (issue 24): custom getters (nested,
per call, reaching tf.layers, tensor2tensor's daisy-chained Parallelism), caching devices, a
scope's dtype and regularizer, ``read_value=False``, ``verify_shape``, the xent ``_sentinel`` and
``dim``, aggregation methods: compared with what TensorFlow 2.21 recorded for the same programs
(tests/cases/variable_api_cases.py; tools/record_cases.py variable_api records them). Then what
devlab rejects rather than build a different graph: each one line naming the argument and the
user's line."""
import pathlib
import sys

import pytest

import devlab as tf

sys.path.insert(0, str(pathlib.Path(__file__).parent / "cases"))
from recorded import compare, load  # noqa: E402

CASES, RECORDED = load("variable_api", "tf_variable_api.json")


@pytest.mark.parametrize("name", sorted(CASES))
def test_graph_placement_values_and_errors_match_tensorflow(name):
    compare(tf, CASES[name], RECORDED[name])


def _flags():
    return tf.flags.FlagValues()


REJECTED = {  # argument name -> a call that passes it; devlab does not build these yet
    "shape": lambda: tf.get_variable("p", shape=[None, 2], initializer=lambda: [[1.0, 2.0]]),  # a partial shape
    "kernel_constraint": lambda: tf.layers.dense(tf.ones([1, 2]), 1, kernel_constraint=lambda v: v),
    "activity_regularizer": lambda: tf.layers.dense(tf.ones([1, 2]), 1, activity_regularizer=tf.reduce_sum),
    "renorm": lambda: tf.layers.batch_normalization(tf.ones([2, 3]), renorm=True),
    "a_is_sparse": lambda: tf.matmul(tf.ones([2, 2]), tf.ones([2, 2]), a_is_sparse=True),
    "var": lambda: tf.strided_slice(tf.ones([2]), [0], [1], var=tf.Variable([1.0, 2.0])),
    "axis": lambda: tf.nn.softmax(tf.ones([2, 3]), axis=0),
    "save_relative_paths": lambda: tf.train.Saver([tf.Variable(1.0)], save_relative_paths=True),
    "meta_graph_suffix": lambda: tf.train.Saver([tf.Variable(1.0)]).save(tf.Session(), "/tmp/x", meta_graph_suffix="m"),
    "protocol": lambda: tf.train.Server({"w": ["localhost:1"]}, "w", 0, protocol="grpc+verbs"),
    "input_size": lambda: tf.nn.rnn_cell.DropoutWrapper(tf.nn.rnn_cell.BasicRNNCell(2), input_size=3),
    "input_shape": lambda: tf.nn.rnn_cell.BasicRNNCell(2, input_shape=(3,)),
    "cross_tower_ops": lambda: tf.contrib.distribute.MirroredStrategy(["/cpu:0"], cross_tower_ops=object()),
    "required": lambda: tf.flags.DEFINE_string("f", None, "h", flag_values=_flags(), required=True),
}


@pytest.mark.parametrize("argument", sorted(REJECTED))
def test_an_argument_devlab_does_not_build_is_rejected_by_name_at_the_users_line(argument):
    with tf.Graph().as_default() as g:
        with pytest.raises(NotImplementedError) as e:
            REJECTED[argument]()
        message = str(e.value)
        assert f"the `{argument.strip()}` argument of" in message and f"{__file__}:" in message
        assert len(message.splitlines()) == 1
        assert not any(op.type in ("VarHandleOp", "SparseMatMul") for op in g.get_operations())


def test_tensor_array_close_is_rejected_at_the_users_line():
    with tf.Graph().as_default():
        ta = tf.TensorArray(tf.float32, size=2)
        with pytest.raises(NotImplementedError, match=r"tf.TensorArray.close yet \(used at .*test_variable_api"):
            ta.close()


def test_flag_bounds_and_required_flags_as_absl():
    flags = _flags()
    with pytest.raises(tf.flags.IllegalFlagValueError, match="flag --n=0: 0 is not a positive integer"):
        tf.flags.DEFINE_integer("n", 0, "h", lower_bound=1, flag_values=flags)
    tf.flags.DEFINE_float("lr", 0.1, "h", lower_bound=0.0, upper_bound=1.0, flag_values=flags)
    tf.flags.DEFINE_string("out", None, "h", flag_values=flags)
    tf.flags.mark_flag_as_required("out", flag_values=flags)
    with pytest.raises(tf.flags.IllegalFlagValueError, match=r"flag --lr=2: 2.0 is not a number in the range"):
        flags(["prog", "--lr=2", "--out=x"])
    with pytest.raises(tf.flags.IllegalFlagValueError, match="Flag --out must have a value other than None"):
        flags(["prog", "--lr=0.5"])
    assert flags(["prog", "--lr=0.5", "--out=x"]) == ["prog"] and flags.lr == 0.5 and flags.out == "x"


def test_supervisor_starts_the_graphs_queue_runners():
    """TF's start_queue_runners: a thread per enqueue op of each queue runner in QUEUE_RUNNERS,
    registered with the Supervisor's coordinator (devlab once returned no threads)."""
    with tf.Graph().as_default():
        q = tf.FIFOQueue(10, tf.float32)
        tf.train.add_queue_runner(tf.train.QueueRunner(q, [q.enqueue([1.0])]))
        size = q.size()
        sv = tf.train.Supervisor(logdir=None)
        sess = sv.prepare_or_wait_for_session(start_standard_services=False)
        threads = sv.start_queue_runners(sess)
        assert threads and all(t.is_alive() or not t.daemon for t in threads)
        while sess.run(size) == 0:
            pass
        sv.stop()
