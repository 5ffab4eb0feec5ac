"""Partitioned variables: ``tf.get_variable(..., partitioner=tf.fixed_size_partitioner(n))`` (or a
``variable_scope`` partitioner) makes one variable per shard (``emb/part_0``...), which a
``replica_device_setter`` spreads over the ps tasks; ``embedding_lookup`` reads the shards where
they live, and a dense use concatenates them (``ConcatPartitions``). Each case returns its facts
(ops, placements, values) or the error.
The same functions run under TensorFlow 2.21 (tools/record_cases.py partitioned writes
tests/data/tf_partitioned.json) and under devlab (tests/test_partitioned.py compares)."""
import numpy as np

from rnn_cases import _facts
from sparse_cases import TABLE


def case_partitioned_table_on_ps_tasks(tf, rewrites_off=False):
    """Graph only: the shards go round-robin over two ps tasks, the lookup's gathers beside them."""
    with tf.device(tf.train.replica_device_setter(ps_tasks=2)):
        emb = tf.get_variable("emb", [10, 3], initializer=tf.constant_initializer(0.5),
                              partitioner=tf.fixed_size_partitioner(3))
        ids = tf.constant([1, 4, 9], name="ids")
        out = tf.nn.embedding_lookup(emb, ids)
    return {"ops": [[op.name, op.type, op.device] for op in tf.get_default_graph().get_operations()],
            "parts": [v.op.name for v in emb], "shapes": [v.shape.as_list() for v in emb],
            "partitions": list(emb._get_partitions()), "name": emb.name, "out_shape": out.shape.as_list(),
            "trainable": [v.op.name for v in tf.trainable_variables()]}


def case_partitioned_table_trains_sparse(tf, rewrites_off=False):
    with tf.variable_scope("model", partitioner=tf.fixed_size_partitioner(2)):
        emb = tf.get_variable("emb", [8, 3], initializer=TABLE)
    ids = tf.constant(np.array([0, 5, 5, 7], np.int32), name="ids")
    loss = tf.reduce_sum(tf.square(tf.nn.embedding_lookup(emb, ids) - 1.0))
    train = tf.train.AdagradOptimizer(0.2).minimize(loss)
    return _facts(tf, [loss] + list(emb), train=train, steps=2, rewrites_off=rewrites_off)


def case_partitioned_weight_used_densely(tf, rewrites_off=False):
    x = tf.constant(np.ones((2, 8), np.float32) * 0.5, name="x")
    w = tf.get_variable("w", [8, 3], initializer=TABLE, partitioner=tf.fixed_size_partitioner(3))
    loss = tf.reduce_sum(tf.square(tf.matmul(x, w)))
    train = tf.train.GradientDescentOptimizer(0.01).minimize(loss)
    return _facts(tf, [loss, tf.convert_to_tensor(w)], train=train, steps=2, rewrites_off=rewrites_off)


def case_saver_of_a_partitioned_variable(tf, rewrites_off=False):
    """A Saver saves the shards as slices of one checkpoint entry (``emb``, with shape-and-slice
    specs) and restores them slice by slice: the graph, and a save / overwrite / restore round trip."""
    import tempfile
    import os
    emb = tf.get_variable("emb", [5, 2], initializer=TABLE[:5, :2], partitioner=tf.fixed_size_partitioner(2))
    b = tf.get_variable("b", [2], initializer=tf.constant_initializer(0.5))
    saver = tf.train.Saver()
    zero = [tf.assign(v, tf.zeros_like(v)) for v in list(emb) + [b]]
    graph = tf.get_default_graph()
    ops = [[op.name, op.type, [t.name for t in op.inputs]] for op in graph.get_operations()
           if op.name.startswith("save/")]
    specs = [op.outputs[0] for op in graph.get_operations()
             if op.name.startswith("save/") and op.name.endswith(("tensor_names", "shape_and_slices"))]
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        path = saver.save(sess, os.path.join(tempfile.mkdtemp(), "model"), write_meta_graph=False)
        sess.run(zero)
        saver.restore(sess, path)
        values = sess.run(list(emb) + [b])
        consts = {t.op.name: [x.decode() for x in sess.run(t).tolist()] for t in specs}
    return {"ops": ops, "consts": consts, "values": [np.asarray(v).tolist() for v in values]}


def case_sharded_saver_on_ps_tasks(tf, rewrites_off=False):
    """Graph only: a sharded Saver gives each ps task's shards their own SaveV2."""
    with tf.device(tf.train.replica_device_setter(ps_tasks=2)):
        tf.get_variable("emb", [6, 2], initializer=tf.constant_initializer(1.0),
                        partitioner=tf.fixed_size_partitioner(3))
    tf.train.Saver(sharded=True)
    return {"ops": [[op.name, op.type, op.device, [t.name for t in op.inputs]]
                    for op in tf.get_default_graph().get_operations() if op.name.startswith("save/")]}


def case_partitioner_errors(tf, rewrites_off=False):
    from script_cases import _error
    out = {}
    out["not_callable"] = _error(lambda: tf.get_variable("a", [4, 2], partitioner=3))["error"]
    out["unknown_shape"] = _error(lambda: tf.get_variable("b", partitioner=tf.fixed_size_partitioner(2)))["error"]
    tf.get_variable("c", [4, 2], partitioner=tf.fixed_size_partitioner(2))

    def reused(**kw):
        with tf.variable_scope(tf.get_variable_scope(), reuse=True):
            return tf.get_variable("c", **kw)
    out["reuse_other_shape"] = _error(lambda: reused(shape=[6, 2], partitioner=tf.fixed_size_partitioner(2)))["error"]
    out["reuse_without_partitioner"] = _error(lambda: reused(shape=[4, 2]))["error"]
    out["reuse_no_shape"] = _error(lambda: reused(partitioner=tf.fixed_size_partitioner(2)))["error"]
    again = reused(shape=[4, 2], partitioner=tf.fixed_size_partitioner(2))
    out["reuse_len"] = [len(again), [v.op.name for v in again]]
    out["as_ref"] = _error(lambda: tf.assign(again, np.zeros((4, 2), np.float32)))["error"]
    return out


CASES = {name[len("case_"):]: fn for name, fn in globals().items() if name.startswith("case_")}
