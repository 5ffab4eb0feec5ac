#!/usr/bin/env python3
"""Record TensorFlow's FIFOQueue and ConditionalAccumulator in one graph and one session.

usage: /work/tfvenv/bin/python tools/record_data_flow.py   (TensorFlow 2.21, never a devlab dependency)

Builds every queue and accumulator op devlab has (the ops SyncReplicasOptimizer is made of) and
runs them: what each op is called, its type, inputs and requested device, and what the runs
return, a closed queue's OutOfRangeError, a stale gradient dropped and a run waiting in a dequeue
while another fills the queue included. Writes
``tests/data/tf_data_flow.json``; ``tests/test_data_flow.py`` runs the same ``build_and_run`` with
devlab and compares.
"""
import json
import os
import sys

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
os.environ["TF_ENABLE_ONEDNN_OPTS"] = "0"


def _closing_words(message):
    """The line of an error message that says why, without TF's node trace."""
    return next(line for line in message.splitlines() if "closed" in line).split(" [[")[0].strip()


def build_and_run(tf):
    """The program, for ``tf`` TensorFlow's compat.v1 or devlab: (ops, values)."""
    g = tf.Graph()
    with g.as_default():
        q = tf.FIFOQueue(5, [tf.int64, tf.float32], shapes=[[], [2]], shared_name="tokens", name="q")
        enq_many = q.enqueue_many([[1, 2, 3], [[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]])
        enq = q.enqueue([4, [7.0, 8.0]])
        deq = q.dequeue()
        deq_many = q.dequeue_many(2)
        deq_up_to = q.dequeue_up_to(5)
        size, closed, close = q.size(), q.is_closed(), q.close()
        acc = tf.ConditionalAccumulator(tf.float32, shape=[2], name="acc")
        app1 = acc.apply_grad([1.0, 2.0], local_step=0)
        app2 = acc.apply_grad([3.0, 6.0], local_step=0)
        stale = acc.apply_grad([100.0, 100.0], local_step=0)
        num = acc.num_accumulated()
        take = acc.take_grad(2)
        set_step = acc.set_global_step(1)
        ops = [[o.name, o.type, [i.name for i in o.inputs], o.device] for o in g.get_operations()]
        values = {}
        with tf.Session() as s:
            s.run(enq_many)
            s.run(enq)
            values["size"] = int(s.run(size))
            a, b = s.run(deq)
            values["dequeue"] = [int(a), b.tolist()]
            a, b = s.run(deq_many)
            values["dequeue_many"] = [a.tolist(), b.tolist()]
            values["closed_before"] = bool(s.run(closed))
            s.run(close)
            values["closed_after"] = bool(s.run(closed))
            a, b = s.run(deq_up_to)
            values["dequeue_up_to"] = [a.tolist(), b.tolist()]
            try:
                s.run(deq)
            except tf.errors.OutOfRangeError as e:
                values["dequeue_closed_empty"] = [type(e).__name__, _closing_words(e.message)]
            s.run(app1)
            s.run(app2)
            values["num_accumulated"] = int(s.run(num))
            values["take_grad"] = s.run(take).tolist()
            s.run(set_step)
            s.run(stale)  # local step 0 < global step 1: dropped
            values["num_after_stale"] = int(s.run(num))
    values["blocked_dequeue"] = _blocked_dequeue(tf)
    return ops, values


def _blocked_dequeue(tf):
    """A run that waits in a dequeue while writing ``v`` does not stop another run, writing ``w``,
    from filling the queue: [v, w] after both."""
    import threading
    g = tf.Graph()
    with g.as_default():
        q = tf.FIFOQueue(1, [tf.float32], shapes=[[]], name="q")
        v = tf.Variable(0.0, name="v")
        w = tf.Variable(0.0, name="w")
        take = tf.assign(v, q.dequeue())
        give = q.enqueue([tf.assign_add(w, 5.0)])
        with tf.Session() as s:
            s.run(tf.global_variables_initializer())
            waiter = threading.Thread(target=s.run, args=(take,))
            waiter.start()
            s.run(give)
            waiter.join(timeout=30)
            return [float(x) for x in s.run([v, w])]


if __name__ == "__main__":
    import tensorflow.compat.v1 as tf
    tf.disable_v2_behavior()
    ops, values = build_and_run(tf)
    out = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "data", "tf_data_flow.json")
    with open(out, "w") as f:
        json.dump({"doc": __doc__.splitlines()[0], "tensorflow": tf.__version__, "ops": ops, "values": values},
                  f, indent=1)
    sys.exit(0)
