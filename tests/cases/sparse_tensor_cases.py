"""SparseTensor programs as TF1 code writes them: ``tf.SparseTensor`` and ``tf.sparse_placeholder``
(fed a SparseTensorValue or a tuple, fetched as a SparseTensorValue), the ``tf.sparse_*`` ops with
their gradients, ``embedding_lookup_sparse`` with each combiner and with weights, a model that
trains through it, placements across devices, and the run-time errors of bad sparse input. Each
case returns its facts (ops with inputs, control inputs and colocation groups, placements from the
partition graphs, values with their Python type) or the error.
The same functions run under TensorFlow 2.21 (tools/record_cases.py sparse_tensor writes what it
does to tests/data/tf_sparse_tensor.json) and under devlab (tests/test_sparse_tensor.py compares)."""
import numpy as np

from control_flow_cases import graph_facts
from rnn_cases import _run

R = np.random.RandomState(11)
TABLE = R.uniform(-1, 1, (6, 3)).astype(np.float32)
B = R.uniform(-1, 1, (4, 2)).astype(np.float32)


def _value(v):
    """A fetched value as JSON: a SparseTensorValue or IndexedSlicesValue keeps its type's name."""
    name = type(v).__name__
    if name in ("SparseTensorValue", "IndexedSlicesValue"):
        return [name] + [None if part is None else np.round(np.asarray(part, np.float64), 6).tolist() for part in v]
    if isinstance(v, (list, tuple)):
        return [_value(x) for x in v]
    return np.round(np.asarray(v, dtype=np.float64), 6).tolist()


def _facts(tf, fetch, feed=None, **kw):
    facts = {"ops": graph_facts(tf)}
    placed, value = _run(tf, fetch, feed, **kw)
    facts.update(placed=placed, values=_value(value))
    return facts


def _sp(tf, name=None):
    """A 3x4 SparseTensor of float32 constants, in row-major order."""
    return tf.SparseTensor(indices=[[0, 0], [1, 2], [2, 1], [2, 3]], values=[1.0, -2.0, 3.0, 0.5],
                           dense_shape=[3, 4])


def case_constant_to_dense_and_fetch(tf, rewrites_off=False):
    sp = _sp(tf)
    dense = tf.sparse_tensor_to_dense(sp)
    dense7 = tf.sparse.to_dense(sp, default_value=7.0, validate_indices=False)
    facts = _facts(tf, [sp, dense, dense7], rewrites_off=rewrites_off)
    facts["shape"] = [str(sp.shape), str(sp.get_shape()), sp.dtype.name, type(sp).__name__]
    return facts


def case_placeholder_fed_value_and_tuple(tf, rewrites_off=False):
    ph = tf.sparse_placeholder(tf.float32, shape=[None, 4], name="sp")
    reordered = tf.sparse_reorder(ph)
    summed = tf.sparse_reduce_sum(ph, axis=1)
    feed = {ph: tf.SparseTensorValue(np.array([[1, 1], [0, 3]], np.int64), np.array([5.0, 6.0], np.float32),
                                     np.array([2, 4], np.int64))}
    facts = _facts(tf, [reordered, summed, ph], feed, rewrites_off=rewrites_off)
    with tf.Session() as sess:
        facts["tuple"] = _value(sess.run(reordered, {ph: ([[1, 0], [0, 2]], [1.5, 2.5], [3, 4])}))
    facts["shapes"] = [str(ph.shape), str(ph.indices.shape), str(ph.values.shape), str(ph.dense_shape.shape)]
    return facts


def case_placeholder_without_shape(tf, rewrites_off=False):
    ph = tf.sparse_placeholder(tf.int64)
    dense = tf.sparse_tensor_to_dense(ph, default_value=-1)
    feed = {ph: tf.SparseTensorValue([[0, 1, 1], [1, 0, 0]], [4, 9], [2, 2, 2])}
    facts = _facts(tf, [dense], feed, rewrites_off=rewrites_off)
    facts["shapes"] = [str(ph.shape), str(ph.indices.shape)]
    return facts


def case_reshape_concat_retain(tf, rewrites_off=False):
    sp = _sp(tf)
    other = tf.SparseTensor(indices=[[0, 1], [2, 0]], values=[10.0, 20.0], dense_shape=[3, 2])
    reshaped = tf.sparse_reshape(sp, [-1, 3])
    concat = tf.sparse_concat(1, [sp, other])
    concat0 = tf.sparse_concat(0, [sp, sp])
    retained = tf.sparse_retain(sp, [True, False, True, True])
    return _facts(tf, [reshaped, concat, concat0, retained], rewrites_off=rewrites_off)


def case_add_sparse_and_dense(tf, rewrites_off=False):
    sp = _sp(tf)
    other = tf.SparseTensor(indices=[[0, 0], [1, 1], [2, 1]], values=[1.0, 4.0, -2.95], dense_shape=[3, 4])
    both = tf.sparse_add(sp, other)
    thresholded = tf.sparse_add(sp, other, threshold=0.1)
    dense = tf.sparse_add(tf.ones([3, 4]), sp)
    return _facts(tf, [both, thresholded, dense], rewrites_off=rewrites_off)


def case_dense_matmul_adjoints_and_gradients(tf, rewrites_off=False):
    values = tf.constant([1.0, -2.0, 3.0, 0.5], name="values")
    sp = tf.SparseTensor(indices=[[0, 0], [1, 2], [2, 1], [2, 3]], values=values, dense_shape=[3, 4])
    b = tf.constant(B, name="b")
    plain = tf.sparse_tensor_dense_matmul(sp, b)
    adj_b = tf.sparse_tensor_dense_matmul(sp, tf.transpose(b), adjoint_b=True)
    adj_a = tf.sparse.sparse_dense_matmul(sp, tf.ones([3, 2]), adjoint_a=True)
    grads = tf.gradients(tf.reduce_sum(plain * plain) + tf.reduce_sum(adj_b) + tf.reduce_sum(adj_a * adj_a),
                         [values, b])
    return _facts(tf, [plain, adj_b, adj_a] + grads, rewrites_off=rewrites_off)


def case_fill_empty_rows_softmax_reduce_gradients(tf, rewrites_off=False):
    values = tf.constant([1.0, 2.0, 3.0], name="values")
    sp = tf.SparseTensor(indices=[[0, 0], [0, 2], [2, 1]], values=values, dense_shape=[4, 3])
    filled, empty = tf.sparse_fill_empty_rows(sp, -1.0)
    soft = tf.sparse_softmax(sp)
    rows = tf.sparse_reduce_sum(sp, axis=1)
    kept = tf.sparse_reduce_sum(sp, 0, keepdims=True)
    total = tf.sparse_reduce_sum(sp)
    scaled = sp * tf.constant([[1.0, 2.0, 3.0]], name="scale")
    loss = (tf.reduce_sum(filled.values ** 2) + tf.reduce_sum(soft.values * [1.0, 2.0, 3.0]) +
            tf.reduce_sum(rows * rows) + tf.reduce_sum(kept) + total + tf.reduce_sum(scaled.values ** 2))
    grads = tf.gradients(loss, [values])
    return _facts(tf, [filled, empty, soft, rows, kept, total, scaled] + grads, rewrites_off=rewrites_off)


def case_reorder_gradient_and_indicator(tf, rewrites_off=False):
    values = tf.constant([1.0, 2.0, 3.0], name="values")
    sp = tf.SparseTensor(indices=[[2, 0], [0, 1], [1, 1]], values=values, dense_shape=[3, 2])
    ordered = tf.sparse_reorder(sp)
    grads = tf.gradients(tf.reduce_sum(ordered.values * [1.0, 10.0, 100.0]), [values])
    ids = tf.SparseTensor(indices=[[0, 0], [0, 1], [1, 0]], values=tf.constant([3, 1, 2], tf.int64),
                          dense_shape=[2, 2])
    indicator = tf.sparse.to_indicator(ids, 4)
    dense = tf.sparse.from_dense(tf.constant([[0.0, 1.5], [2.0, 0.0]]))
    return _facts(tf, [ordered, indicator, dense] + grads, rewrites_off=rewrites_off)


def _ids(tf):
    return tf.SparseTensor(indices=[[0, 0], [0, 1], [0, 2], [2, 0], [3, 0], [3, 1]],
                           values=tf.constant([1, 4, 1, 5, 0, 2], tf.int64), dense_shape=[4, 3])


def _weights(tf):
    return tf.SparseTensor(indices=[[0, 0], [0, 1], [0, 2], [2, 0], [3, 0], [3, 1]],
                           values=tf.constant([1.0, 0.5, 2.0, 1.5, 0.0, 3.0]), dense_shape=[4, 3])


def _lookup_case(combiner, weighted, pinned):
    def case(tf, rewrites_off=False):
        if pinned:
            with tf.device("/cpu:1"):
                table = tf.Variable(TABLE, name="table")
        else:
            table = tf.Variable(TABLE, name="table")
        emb = tf.nn.embedding_lookup_sparse(table, _ids(tf), _weights(tf) if weighted else None, combiner=combiner)
        with tf.device("/cpu:2"):
            loss = tf.reduce_sum(emb * emb)
        grads = tf.gradients(loss, [table])
        return _facts(tf, [emb] + grads, rewrites_off=rewrites_off)
    return case


case_lookup_sparse_sum = _lookup_case("sum", False, False)
case_lookup_sparse_mean = _lookup_case("mean", False, False)
case_lookup_sparse_sqrtn = _lookup_case("sqrtn", False, False)
case_lookup_sparse_mean_pinned_table = _lookup_case("mean", False, True)
case_lookup_sparse_weighted_sum = _lookup_case("sum", True, True)
case_lookup_sparse_weighted_mean = _lookup_case("mean", True, False)
case_lookup_sparse_weighted_sqrtn = _lookup_case("sqrtn", True, True)


def case_safe_lookup_sparse(tf, rewrites_off=False):
    with tf.device("/cpu:1"):
        table = tf.Variable(TABLE, name="table")
    ids = tf.SparseTensor(indices=[[0, 0], [0, 1], [2, 0], [3, 0]], values=tf.constant([1, -1, 5, 2], tf.int64),
                          dense_shape=[4, 2])
    weights = tf.SparseTensor(indices=[[0, 0], [0, 1], [2, 0], [3, 0]], values=tf.constant([2.0, 1.0, -1.0, 0.5]),
                              dense_shape=[4, 2])
    plain = tf.nn.safe_embedding_lookup_sparse(table, ids)
    weighted = tf.nn.safe_embedding_lookup_sparse(table, ids, weights, combiner="sqrtn")
    return _facts(tf, [plain, weighted], rewrites_off=rewrites_off)


def case_bag_of_words_model_trains(tf, rewrites_off=False):
    """A linear bag-of-words classifier as TF1 tutorials wrote it: sparse ids fed per batch, the
    embedding on the CPU, the loss on another device, Adagrad's sparse update of the rows used."""
    ids = tf.sparse_placeholder(tf.int64, name="ids")
    labels = tf.placeholder(tf.float32, [None, 1], name="labels")
    with tf.device("/cpu:1"):
        table = tf.Variable(TABLE, name="embeddings")
    pooled = tf.nn.embedding_lookup_sparse(table, ids, None, combiner="sqrtn")
    with tf.device("/cpu:2"):
        w = tf.Variable(np.linspace(-1, 1, 3).reshape(3, 1).astype(np.float32), name="w")
        logits = tf.matmul(pooled, w)
        loss = tf.reduce_mean(tf.nn.sigmoid_cross_entropy_with_logits(labels=labels, logits=logits))
    train = tf.train.AdagradOptimizer(0.5).minimize(loss)
    feed = {ids: tf.SparseTensorValue([[0, 0], [0, 1], [1, 0], [2, 0], [2, 1], [2, 2]], [1, 3, 0, 5, 1, 2],
                                      [3, 3]),
            labels: [[1.0], [0.0], [1.0]]}
    return _facts(tf, [loss, table, w], feed, train=train, steps=3, rewrites_off=rewrites_off)


def case_reduce_max_divide_and_segment_sums(tf, rewrites_off=False):
    values = tf.constant([1.0, -2.0, 3.0, 0.5], name="values")
    sp = tf.SparseTensor(indices=[[0, 0], [1, 2], [2, 1], [2, 3]], values=values, dense_shape=[3, 4])
    top = tf.sparse_reduce_max(sp, 1)
    divided = sp / tf.constant([[2.0], [4.0], [-1.0]], name="divisor")
    data = tf.constant(TABLE, name="data")
    summed = tf.sparse_segment_sum(data, [0, 2, 2, 5], [0, 0, 1, 3])
    rooted = tf.sparse_segment_sqrt_n(data, [1, 3, 4], [0, 0, 0])
    averaged = tf.sparse_segment_mean(data, [4, 1], [0, 1])
    grads = tf.gradients(tf.reduce_sum(divided.values ** 2) + tf.reduce_sum(summed ** 2) + tf.reduce_sum(rooted) +
                         tf.reduce_sum(averaged * 3.0), [values, data])
    return _facts(tf, [top, divided, summed, rooted, averaged] + grads, rewrites_off=rewrites_off)


def case_maximum_minimum_transpose_reset_shape(tf, rewrites_off=False):
    sp = _sp(tf)
    other = tf.SparseTensor(indices=[[0, 0], [1, 1], [2, 3]], values=[-1.0, 4.0, 2.0], dense_shape=[3, 4])
    top = tf.sparse.maximum(sp, other)
    bottom = tf.sparse.minimum(sp, other)
    flipped = tf.sparse.transpose(sp)
    tight = tf.sparse.reset_shape(sp)
    grown = tf.sparse.reset_shape(sp, [5, 6])
    merged = tf.sparse_merge([tf.SparseTensor([[0, 0], [1, 0]], tf.constant([2, 0], tf.int64), [2, 1]),
                              tf.SparseTensor([[0, 0], [1, 0]], tf.constant([1, 3], tf.int64), [2, 1])],
                             tf.SparseTensor([[0, 0], [1, 0]], [0.5, 1.5], [2, 1]), [3, 4])
    return _facts(tf, [top, bottom, flipped, tight, grown, merged], rewrites_off=rewrites_off)


def _example(tf, **features):
    feature = {}
    for key, v in features.items():
        if isinstance(v[0], float):
            feature[key] = tf.train.Feature(float_list=tf.train.FloatList(value=v))
        elif isinstance(v[0], bytes):
            feature[key] = tf.train.Feature(bytes_list=tf.train.BytesList(value=v))
        else:
            feature[key] = tf.train.Feature(int64_list=tf.train.Int64List(value=v))
    return tf.train.Example(features=tf.train.Features(feature=feature)).SerializeToString()


def case_parse_var_len_features(tf, rewrites_off=False):
    """``VarLenFeature`` gives a SparseTensor: ``[batch, longest]`` from parse_example, ``[longest]``
    from parse_single_example; a record without the feature has no entries."""
    records = [_example(tf, ids=[3, 1, 4], y=[1.0], w=[0.5], tag=[b"a"]),
               _example(tf, ids=[9], y=[2.0], w=[1.5, 2.5]), _example(tf, y=[3.0])]
    batch = tf.placeholder(tf.string, [None], name="records")
    parsed = tf.parse_example(batch, {"ids": tf.VarLenFeature(tf.int64), "y": tf.FixedLenFeature([], tf.float32),
                                      "w": tf.VarLenFeature(tf.float32)})
    one = tf.placeholder(tf.string, [], name="record")
    single = tf.parse_single_example(one, {"ids": tf.VarLenFeature(tf.int64), "y": tf.FixedLenFeature([1], tf.float32),
                                           "tag": tf.VarLenFeature(tf.string)})
    pooled = tf.sparse_reduce_sum(parsed["w"], 1)
    facts = _facts(tf, [parsed["ids"], parsed["w"], parsed["y"], single["ids"], single["y"], pooled],
                   {batch: records, one: records[0]}, rewrites_off=rewrites_off)
    with tf.Session() as sess:
        tag = sess.run(single["tag"], {one: records[0]})
    facts["tag"] = [type(tag).__name__, tag.indices.tolist(), [bytes(v).decode() for v in tag.values],
                    tag.dense_shape.tolist()]
    facts["shapes"] = [str(parsed["ids"].indices.shape), str(parsed["ids"].dense_shape.shape),
                       str(single["ids"].indices.shape), str(single["ids"].dense_shape.shape), str(single["y"].shape)]
    return facts


def _run_error(tf, build, feed=None):
    from script_cases import _error

    def run():
        fetch = build()  # a static check may refuse it first
        with tf.Session() as sess:
            sess.run(fetch, feed)
    return _error(run)


def case_errors(tf, rewrites_off=False):
    from script_cases import _error
    out = {}
    out["add_shapes"] = _run_error(tf, lambda: tf.sparse_add(
        tf.SparseTensor([[0, 0]], [1.0], [2, 2]), tf.SparseTensor([[0, 0]], [1.0], tf.placeholder_with_default(np.array([3, 2], np.int64), [2])))
    )["error"]
    out["reorder_bounds"] = _run_error(tf, lambda: tf.sparse_reorder(
        tf.SparseTensor([[0, 0], [5, 1]], [1.0, 2.0], tf.constant([2, 2], tf.int64))).values)["error"]
    ph = tf.sparse_placeholder(tf.float32, name="bad")
    out["reshape_size"] = _run_error(tf, lambda: tf.sparse_reshape(ph, [5]).indices,
                                     {ph: ([[0, 0]], [1.0], [2, 2])})["error"]
    out["to_dense_unsorted"] = _run_error(tf, lambda: tf.sparse_tensor_to_dense(
        tf.SparseTensor([[1, 0], [0, 0]], [1.0, 2.0], [2, 2])))["error"]
    out["fill_bad_row"] = _run_error(tf, lambda: tf.sparse_fill_empty_rows(
        tf.SparseTensor([[4, 0]], [1.0], tf.constant([2, 2], tf.int64)), 0.0)[0].values)["error"]
    out["not_sparse"] = _error(lambda: tf.sparse_reorder(tf.constant([1.0])))["error"]
    out["add_two_dense"] = _error(lambda: tf.sparse_add(tf.constant([1.0]), tf.constant([1.0])))["error"]
    out["reshape_static"] = _error(lambda: tf.sparse_reshape(_sp(tf), [5, 5]))["error"]
    out["combiner"] = _error(lambda: tf.nn.embedding_lookup_sparse(tf.ones([3, 2]), _ids(tf), None,
                                                                   combiner="max"))["error"]
    return out


CASES = {name[len("case_"):]: fn for name, fn in globals().items() if name.startswith("case_")}
