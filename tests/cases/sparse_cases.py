"""Embeddings and sparse gradients, as TF1 programs write them: ``tf.nn.embedding_lookup`` of a
table pinned to the CPU, the ``IndexedSlices`` gradient ``tf.gather`` gives, sparse optimizer
updates (only the rows looked up change; duplicate ids add up), a table shared by two lookups
or tied to a dense product, ``tf.scatter_*`` and their errors. Each case returns its facts (ops
with inputs, control inputs and colocation groups, placements from the partition graphs,
values) or the error.
The same functions run under TensorFlow 2.21 (tools/record_cases.py sparse writes what it does to
tests/data/tf_sparse.json) and under devlab (tests/test_sparse.py compares)."""
import numpy as np

from rnn_cases import _facts

R = np.random.RandomState(5)
TABLE = R.uniform(-1, 1, (8, 3)).astype(np.float32)
IDS = np.array([1, 3, 3, 6], np.int32)
TARGET = R.uniform(-1, 1, (4, 3)).astype(np.float32)


def _lookup_model(tf, make_optimizer, rewrites_off, steps=3):
    ids = tf.placeholder(tf.int32, [4], name="ids")
    target = tf.placeholder(tf.float32, [4, 3], name="target")
    with tf.device("/cpu:1"):
        table = tf.Variable(TABLE, name="table")
    embedded = tf.nn.embedding_lookup(table, ids)
    with tf.device("/cpu:2"):
        loss = tf.reduce_sum(tf.square(embedded - target))
    opt = make_optimizer(tf)
    train = opt.minimize(loss)
    slots = [opt.get_slot(table, n) for n in opt.get_slot_names()]
    return _facts(tf, [loss, table] + slots, {ids: IDS, target: TARGET}, train=train, steps=steps,
                  rewrites_off=rewrites_off)


def case_embedding_sgd(tf, rewrites_off=False):
    return _lookup_model(tf, lambda tf: tf.train.GradientDescentOptimizer(0.1), rewrites_off)


def case_embedding_momentum(tf, rewrites_off=False):
    return _lookup_model(tf, lambda tf: tf.train.MomentumOptimizer(0.1, 0.9), rewrites_off)


def case_embedding_adam(tf, rewrites_off=False):
    return _lookup_model(tf, lambda tf: tf.train.AdamOptimizer(0.1), rewrites_off)


def case_embedding_adagrad(tf, rewrites_off=False):
    return _lookup_model(tf, lambda tf: tf.train.AdagradOptimizer(0.1), rewrites_off)


def case_embedding_nesterov(tf, rewrites_off=False):
    return _lookup_model(tf, lambda tf: tf.train.MomentumOptimizer(0.1, 0.9, use_nesterov=True), rewrites_off)


def case_embedding_rmsprop(tf, rewrites_off=False):
    return _lookup_model(tf, lambda tf: tf.train.RMSPropOptimizer(0.05, momentum=0.5), rewrites_off)


def case_embedding_centered_rmsprop(tf, rewrites_off=False):
    return _lookup_model(tf, lambda tf: tf.train.RMSPropOptimizer(0.05, momentum=0.5, centered=True), rewrites_off)


def case_embedding_adadelta(tf, rewrites_off=False):
    return _lookup_model(tf, lambda tf: tf.train.AdadeltaOptimizer(1.0), rewrites_off)


def case_embedding_ftrl(tf, rewrites_off=False):
    return _lookup_model(tf, lambda tf: tf.train.FtrlOptimizer(0.2, l1_regularization_strength=0.01), rewrites_off)


def case_embedding_ftrl_l2_shrinkage(tf, rewrites_off=False):
    return _lookup_model(tf, lambda tf: tf.train.FtrlOptimizer(0.2, l2_shrinkage_regularization_strength=0.1),
                         rewrites_off)


def case_embedding_proximal_adagrad(tf, rewrites_off=False):
    return _lookup_model(tf, lambda tf: tf.train.ProximalAdagradOptimizer(0.1, l1_regularization_strength=0.01),
                         rewrites_off)


def case_embedding_proximal_sgd(tf, rewrites_off=False):
    return _lookup_model(tf, lambda tf: tf.train.ProximalGradientDescentOptimizer(
        0.1, l1_regularization_strength=0.01, l2_regularization_strength=0.02), rewrites_off)


def case_gather_gradient_is_indexed_slices(tf, rewrites_off=False):
    ids = tf.constant(IDS, name="ids")
    with tf.device("/cpu:1"):
        table = tf.Variable(TABLE, name="table")
    loss = tf.reduce_sum(tf.gather(table, ids) * 2.0)
    grad = tf.gradients(loss, [table])[0]
    dense = tf.convert_to_tensor(grad)
    facts = _facts(tf, [grad.values, grad.indices, grad.dense_shape, dense], rewrites_off=rewrites_off)
    facts["kind"] = [type(grad).__name__, grad.values.op.type, grad.indices.op.type, grad.dense_shape.op.type]
    return facts


def case_shared_table_two_lookups(tf, rewrites_off=False):
    """One table, two lookups (a query and a document tower): the two IndexedSlices concatenate."""
    with tf.device("/cpu:1"):
        table = tf.Variable(TABLE, name="table")
    with tf.device("/cpu:0"):
        query = tf.nn.embedding_lookup(table, tf.constant([0, 2], name="query_ids"))
    with tf.device("/cpu:2"):
        doc = tf.nn.embedding_lookup(table, tf.constant([2, 5, 7], name="doc_ids"))
    loss = tf.reduce_sum(tf.matmul(query, doc, transpose_b=True))
    train = tf.train.GradientDescentOptimizer(0.05).minimize(loss)
    return _facts(tf, [loss, table], train=train, steps=2, rewrites_off=rewrites_off)


def case_tied_table_dense_and_sparse(tf, rewrites_off=False):
    """The table is looked up and also used as the output projection: the sparse gradient meets
    a dense one, and their sum is dense."""
    with tf.device("/cpu:1"):
        table = tf.Variable(TABLE, name="table")
    embedded = tf.nn.embedding_lookup(table, tf.constant(IDS, name="ids"))
    logits = tf.matmul(embedded, table, transpose_b=True)
    loss = tf.reduce_mean(tf.square(logits))
    train = tf.train.MomentumOptimizer(0.1, 0.5).minimize(loss)
    return _facts(tf, [loss, table], train=train, steps=2, rewrites_off=rewrites_off)


def _sharded_model(tf, strategy, make_optimizer, rewrites_off, rows=(4, 4)):
    """A table of sum(rows) ids split over shards on /cpu:0, /cpu:1 (as a ps job would hold it),
    looked up with 2-D ids from /cpu:2."""
    shards, start = [], 0
    for i, n in enumerate(rows):
        with tf.device(f"/cpu:{i}"):
            shards.append(tf.Variable(np.concatenate([TABLE, TABLE])[start:start + n], name=f"shard_{i}"))
        start += n
    ids = tf.constant(np.array([[1, 3, 6], [7, 2, 1]], np.int32), name="ids")
    with tf.device("/cpu:2"):
        embedded = tf.nn.embedding_lookup(shards, ids, partition_strategy=strategy)
        loss = tf.reduce_sum(tf.square(embedded - 0.5))
    train = make_optimizer(tf).minimize(loss)
    facts = _facts(tf, [loss, embedded] + shards, train=train, steps=2, rewrites_off=rewrites_off)
    facts["static_shape"] = embedded.shape.as_list()
    return facts


def case_sharded_table_mod(tf, rewrites_off=False):
    return _sharded_model(tf, "mod", lambda tf: tf.train.GradientDescentOptimizer(0.1), rewrites_off)


def case_sharded_table_div_adagrad(tf, rewrites_off=False):
    return _sharded_model(tf, "div", lambda tf: tf.train.AdagradOptimizer(0.1), rewrites_off, rows=(3, 3, 2))


def case_sharded_table_three_shards_momentum(tf, rewrites_off=False):
    return _sharded_model(tf, "mod", lambda tf: tf.train.MomentumOptimizer(0.1, 0.9), rewrites_off, rows=(3, 3, 2))


def case_dynamic_partition_and_stitch(tf, rewrites_off=False):
    data = tf.constant(np.arange(12, dtype=np.float32).reshape(6, 2), name="data")
    parts = tf.dynamic_partition(data, [1, 0, 2, 1, 1, 0], 3)
    back = tf.dynamic_stitch([[1, 5], [0, 3, 4], [2]], parts)
    grad = tf.gradients(tf.reduce_sum(back * back), data)[0]
    return _facts(tf, list(parts) + [back, grad], rewrites_off=rewrites_off)


def case_scatter_ops(tf, rewrites_off=False):
    with tf.device("/cpu:1"):
        v = tf.Variable(TABLE, name="v")
    rows = tf.constant(np.ones((2, 3), np.float32), name="rows")
    with tf.device("/cpu:2"):
        up = tf.scatter_update(v, [0, 7], rows)
        with tf.control_dependencies([up]):
            add = tf.scatter_add(v, [1, 1], rows * 2.0)
        with tf.control_dependencies([add]):
            sub = tf.scatter_sub(v, tf.constant([2], name="sub_ids"), rows[:1])
    return _facts(tf, [sub], rewrites_off=rewrites_off)


def case_scatter_index_out_of_range(tf, rewrites_off=False):
    from script_cases import _error
    v = tf.Variable(TABLE, name="v")
    up = tf.scatter_update(v, [1, 9], np.ones((2, 3), np.float32))

    def run():
        with tf.Session() as sess:
            sess.run(v.initializer)
            sess.run(up)
    facts = _error(run)
    facts["ops"] = [op.name for op in tf.get_default_graph().get_operations()]
    return facts


def case_embedding_lookup_errors(tf, rewrites_off=False):
    from script_cases import _error
    return {"none": _error(lambda: tf.nn.embedding_lookup(None, [0]))["error"],
            "empty": _error(lambda: tf.nn.embedding_lookup([], [0]))["error"]}


CASES = {name[len("case_"):]: fn for name, fn in globals().items() if name.startswith("case_")}
