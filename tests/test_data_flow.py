"""FIFOQueue and ConditionalAccumulator against TensorFlow 2.21's recording (tools/record_data_flow.py):
the ops they build (names, types, inputs, requested devices) and what running them returns, with a
closed queue's OutOfRangeError, a stale gradient that the accumulator drops, and a run waiting in a
dequeue while another run fills the queue (each holds only its own variables' write locks)."""
import json
import os
import sys

import devlab as tf

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tools"))
import record_data_flow  # noqa: E402

with open(os.path.join(HERE, "data", "tf_data_flow.json")) as f:
    RECORDED = json.load(f)


def test_queue_and_accumulator_graph_and_values_match_tf():
    ops, values = record_data_flow.build_and_run(tf)
    assert ops == RECORDED["ops"]
    assert values == RECORDED["values"]


def test_queue_ops_run_where_the_queue_lives():
    """Every op that takes the queue's or the accumulator's handle is colocated with its maker."""
    g = tf.Graph()
    with g.as_default():
        q = tf.FIFOQueue(2, [tf.int32], shapes=[[]], name="q")
        deq = q.dequeue()
        acc = tf.ConditionalAccumulator(tf.float32, shape=[1], name="acc")
        take = acc.take_grad(1)
        with tf.Session() as s:
            s.run(q.enqueue([7]))
            assert s.run(deq) == 7
            s.run(acc.apply_grad([2.0]))
            assert s.run(take).tolist() == [2.0]
            groups = s.placement.groups
    assert groups[deq.op.name] == groups["q"]
    assert groups[take.op.name] == groups["acc"]
