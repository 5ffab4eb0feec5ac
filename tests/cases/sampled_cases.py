"""Sampled losses as TF1 programs write them: ``tf.nn.nce_loss`` and ``tf.nn.sampled_softmax_loss``
(one table, shards split "div", ``num_true`` 2, accidental hits removed), the candidate samplers,
``tf.nn.compute_accidental_hits`` and ``tf.sparse_to_dense``. Random draws are not TF's, so the
values recorded are those that do not depend on them: losses, gradients and training steps with
``sampled_values`` given, the expected counts of samplers drawing with replacement, and, for the
default sampler, only the graph and its placement.
The same functions run under TensorFlow 2.21 (tools/record_cases.py sampled writes what it does to
tests/data/tf_sampled.json) and under devlab (tests/test_sampled.py compares)."""
import re

import numpy as np

from control_flow_cases import graph_facts
from rnn_cases import _facts, _values
from script_cases import _error

R = np.random.RandomState(11)
W = R.uniform(-1, 1, (10, 4)).astype(np.float32)  # 10 classes, 4 features
B = R.uniform(-0.5, 0.5, 10).astype(np.float32)
X = R.uniform(-1, 1, (3, 4)).astype(np.float32)
LABELS = np.array([[2], [7], [0]], np.int64)
LABELS2 = np.array([[2, 5], [7, 1], [0, 3]], np.int64)
SAMPLED = np.array([1, 5, 8, 3], np.int64)  # 5 and 3 are true classes of the two-label examples; 1 too


def _sampled_values(tf, num_true):
    """A constant (sampled_candidates, true_expected_count, sampled_expected_count)."""
    true_count = tf.constant(np.linspace(0.2, 0.7, 3 * num_true).reshape(3, num_true).astype(np.float32),
                             name="true_expected_count")
    return (tf.constant(SAMPLED, name="sampled_candidates"), true_count,
            tf.constant(np.array([0.3, 0.15, 0.1, 0.25], np.float32), name="sampled_expected_count"))


def _train(tf, loss_fn, make_optimizer, num_true=1, shards=None, strategy="mod", steps=2, rewrites_off=False, **kw):
    x = tf.placeholder(tf.float32, [3, 4], name="x")
    labels = tf.placeholder(tf.int64, [3, num_true], name="labels")
    if shards is None:
        with tf.device("/cpu:1"):
            weights = tf.Variable(W, name="weights")
    else:
        weights, start = [], 0
        for i, n in enumerate(shards):
            with tf.device(f"/cpu:{i}"):
                weights.append(tf.Variable(W[start:start + n], name=f"weights_{i}"))
            start += n
    with tf.device("/cpu:1"):
        biases = tf.Variable(B, name="biases")
    with tf.device("/cpu:2"):
        losses = loss_fn(weights=weights, biases=biases, labels=labels, inputs=x, num_sampled=4, num_classes=10,
                         num_true=num_true, sampled_values=_sampled_values(tf, num_true),
                         partition_strategy=strategy, **kw)
        loss = tf.reduce_mean(losses)
    variables = (weights if isinstance(weights, list) else [weights]) + [biases]
    grads = tf.gradients(loss, variables + [x])
    dense = [tf.convert_to_tensor(g) for g in grads]
    train = make_optimizer(tf).minimize(loss)
    feed = {x: X, labels: LABELS if num_true == 1 else LABELS2}
    facts = _facts(tf, [losses] + dense + variables, feed, train=train, steps=steps, rewrites_off=rewrites_off)
    facts["static_shape"] = losses.shape.as_list()
    return facts


def case_nce_loss_given_samples_sgd(tf, rewrites_off=False):
    return _train(tf, tf.nn.nce_loss, lambda tf: tf.train.GradientDescentOptimizer(0.1), rewrites_off=rewrites_off)


def case_nce_loss_two_labels_accidental_hits_adagrad(tf, rewrites_off=False):
    return _train(tf, tf.nn.nce_loss, lambda tf: tf.train.AdagradOptimizer(0.1), num_true=2,
                  remove_accidental_hits=True, rewrites_off=rewrites_off)


def case_sampled_softmax_given_samples_momentum(tf, rewrites_off=False):
    return _train(tf, tf.nn.sampled_softmax_loss, lambda tf: tf.train.MomentumOptimizer(0.1, 0.9),
                  rewrites_off=rewrites_off)


def case_sampled_softmax_two_labels_div_shards(tf, rewrites_off=False):
    """Two shards split "div" (6 + 4 rows), two labels per example, accidental hits removed (the
    default for sampled softmax): 5, 1 and 3 are both true and sampled."""
    return _train(tf, tf.nn.sampled_softmax_loss, lambda tf: tf.train.GradientDescentOptimizer(0.2), num_true=2,
                  shards=(6, 4), strategy="div", rewrites_off=rewrites_off)


def case_nce_loss_mod_shards_no_hits_removed(tf, rewrites_off=False):
    return _train(tf, tf.nn.nce_loss, lambda tf: tf.train.GradientDescentOptimizer(0.1), num_true=2,
                  shards=(5, 5), strategy="mod", rewrites_off=rewrites_off)


def _run_graph_only(tf, fetch, feed, rewrites_off, soft=False, cpus=3, train=None):
    """The placement of a program whose values are random: run it, keep only shapes."""
    config = tf.ConfigProto(device_count={"CPU": cpus}, allow_soft_placement=soft)
    if rewrites_off:
        config.graph_options.rewrite_options.disable_meta_optimizer = True
        config.graph_options.optimizer_options.opt_level = -1
    opts, md = tf.RunOptions(output_partition_graphs=True), tf.RunMetadata()
    with tf.Session(config=config) as sess:
        sess.run(tf.global_variables_initializer())
        if train is not None:
            sess.run(train, feed)
        value = sess.run(fetch, feed, options=opts, run_metadata=md)
    placed = {n.name: n.device for pg in md.partition_graphs for n in pg.node if not re.search(r"(^|/)_", n.name)}
    return placed, [list(np.shape(v)) for v in value]


def _default_sampler(tf, loss_fn, rewrites_off, **kw):
    x = tf.placeholder(tf.float32, [3, 4], name="x")
    labels = tf.placeholder(tf.int64, [3, 1], name="labels")
    with tf.device("/cpu:1"):
        weights = tf.Variable(W, name="weights")
        biases = tf.Variable(B, name="biases")
    with tf.device("/cpu:2"):
        losses = loss_fn(weights, biases, labels, x, num_sampled=4, num_classes=10, **kw)
    train = tf.train.GradientDescentOptimizer(0.1).minimize(tf.reduce_sum(losses))
    facts = {"ops": graph_facts(tf)}
    facts["placed"], facts["shapes"] = _run_graph_only(tf, [losses], {x: X, labels: LABELS}, rewrites_off,
                                                       train=train)
    return facts


def case_nce_loss_default_sampler_graph(tf, rewrites_off=False):
    return _default_sampler(tf, tf.nn.nce_loss, rewrites_off)


def case_sampled_softmax_default_sampler_graph(tf, rewrites_off=False):
    return _default_sampler(tf, tf.nn.sampled_softmax_loss, rewrites_off, seed=3)


def case_word2vec_soft_placement(tf, rewrites_off=False):
    """Embeddings and NCE weights pinned to the CPU, the loss asked for on a GPU: with soft
    placement the CPU-only sampler runs on a CPU."""
    ids = tf.placeholder(tf.int32, [3], name="ids")
    labels = tf.placeholder(tf.int64, [3, 1], name="labels")
    with tf.device("/cpu:0"):
        embeddings = tf.Variable(W[:, :4] * 0.5, name="embeddings")
        nce_weights = tf.Variable(W, name="nce_weights")
        nce_biases = tf.Variable(tf.zeros([10]), name="nce_biases")
    with tf.device("/gpu:0"):
        embed = tf.nn.embedding_lookup(embeddings, ids)
        loss = tf.reduce_mean(tf.nn.nce_loss(weights=nce_weights, biases=nce_biases, labels=labels, inputs=embed,
                                             num_sampled=3, num_classes=10))
        train = tf.train.GradientDescentOptimizer(1.0).minimize(loss)
    facts = {"ops": graph_facts(tf)}
    facts["placed"], facts["shapes"] = _run_graph_only(tf, [loss], {ids: [1, 4, 9], labels: LABELS}, rewrites_off,
                                                       soft=True, train=train)
    return facts


def _with_replacement(tf, sampler, p, rewrites_off):
    true_classes = tf.constant(LABELS2, name="true_classes")
    with tf.device("/cpu:1"):
        s = sampler(true_classes, num_true=2, num_sampled=5, unique=False, range_max=10, seed=7)
    facts = {"ops": graph_facts(tf)}
    facts["static"] = [[t.dtype.name, t.shape.as_list()] for t in s]
    facts["placed"], (cands, true_count, sampled_count) = _run_graph_only_values(tf, list(s), rewrites_off)
    facts["values"] = [_values(true_count), bool(np.allclose(sampled_count, p[cands] * 5, rtol=1e-5)),
                       bool(((cands >= 0) & (cands < 10)).all())]
    return facts


def _run_graph_only_values(tf, fetch, rewrites_off):
    config = tf.ConfigProto(device_count={"CPU": 2})
    if rewrites_off:
        config.graph_options.rewrite_options.disable_meta_optimizer = True
        config.graph_options.optimizer_options.opt_level = -1
    opts, md = tf.RunOptions(output_partition_graphs=True), tf.RunMetadata()
    with tf.Session(config=config) as sess:
        value = sess.run(fetch, options=opts, run_metadata=md)
    placed = {n.name: n.device for pg in md.partition_graphs for n in pg.node if not re.search(r"(^|/)_", n.name)}
    return placed, value


def _log_uniform_p(n):
    c = np.arange(n)
    return (np.log(c + 2.0) - np.log(c + 1.0)) / np.log(n + 1.0)


def case_log_uniform_with_replacement(tf, rewrites_off=False):
    return _with_replacement(tf, tf.nn.log_uniform_candidate_sampler, _log_uniform_p(10), rewrites_off)


def case_uniform_with_replacement(tf, rewrites_off=False):
    return _with_replacement(tf, tf.nn.uniform_candidate_sampler, np.full(10, 0.1), rewrites_off)


def case_uniform_unique_takes_the_whole_range(tf, rewrites_off=False):
    s = tf.nn.uniform_candidate_sampler(tf.constant(LABELS, name="true_classes"), 1, 8, True, 8, seed=1)
    placed, (cands, true_count, sampled_count) = _run_graph_only_values(tf, list(s), rewrites_off)
    return {"ops": graph_facts(tf), "placed": placed, "values": [sorted(cands.tolist()),
                                                                  bool(np.allclose(true_count, sampled_count[0]))]}


def case_sampler_range_too_small(tf, rewrites_off=False):
    s = tf.nn.log_uniform_candidate_sampler(tf.constant(LABELS, name="true_classes"), 1, 12, True, 10)
    facts = _error(lambda: _run_graph_only_values(tf, list(s), rewrites_off))
    facts["ops"] = graph_facts(tf)
    return facts


def case_sampler_true_class_out_of_range(tf, rewrites_off=False):
    s = tf.nn.uniform_candidate_sampler(tf.constant(LABELS, name="true_classes"), 1, 2, False, 6)
    facts = _error(lambda: _run_graph_only_values(tf, list(s), rewrites_off))
    facts["ops"] = graph_facts(tf)
    return facts


def case_compute_accidental_hits(tf, rewrites_off=False):
    true_classes = tf.constant([[3, 1], [5, 3], [2, 2], [9, 8]], tf.int64, name="true_classes")
    sampled = tf.constant([1, 3, 7, 2, 5, 3], tf.int64, name="sampled")
    hits = tf.nn.compute_accidental_hits(true_classes, sampled, num_true=2)
    facts = _facts(tf, list(hits), rewrites_off=rewrites_off, cpus=2)
    facts["static"] = [[t.dtype.name, t.shape.as_list()] for t in hits]
    return facts


def case_sparse_to_dense(tf, rewrites_off=False):
    vals = tf.constant([1.5, -2.0], name="vals")
    default = tf.constant(0.25, name="default")
    outs = [tf.sparse_to_dense([1, 3], [5], [2.0, 3.0], default_value=-1.0),
            tf.sparse_to_dense([[0, 1], [2, 0]], [3, 2], vals, default_value=default),
            tf.sparse_to_dense(2, [4], 5),
            tf.sparse_to_dense(tf.constant([[1, 1], [0, 2]], tf.int64), tf.constant([2, 3], tf.int64), 7.0,
                               validate_indices=False, name="unsorted")]
    grads = tf.gradients(tf.reduce_sum(outs[1] * tf.constant([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])), [vals, default])
    facts = _facts(tf, outs + grads, rewrites_off=rewrites_off, cpus=2)
    facts["static"] = [[t.dtype.name, t.shape.as_list()] for t in outs]
    return facts


def _sparse_to_dense_error(tf, indices, shape, values, rewrites_off):
    idx = tf.placeholder(tf.int32, None, name="idx")
    out = tf.sparse_to_dense(idx, shape, values, default_value=-1.0)

    def run():
        config = tf.ConfigProto()
        if rewrites_off:
            config.graph_options.rewrite_options.disable_meta_optimizer = True
        with tf.Session(config=config) as sess:
            sess.run(out, {idx: indices})
    return _error(run)["error"]


def case_sparse_to_dense_errors(tf, rewrites_off=False):
    return {"error": [_sparse_to_dense_error(tf, [[1, 0], [0, 1]], [2, 2], [1.0, 2.0], rewrites_off),
                      _sparse_to_dense_error(tf, [[0, 1], [0, 1]], [2, 2], [1.0, 2.0], rewrites_off),
                      _sparse_to_dense_error(tf, [[0, 5]], [2, 2], [1.0], rewrites_off),
                      _sparse_to_dense_error(tf, [1, 3], [5], [1.0, 2.0, 3.0], rewrites_off)]}


CASES = {name[len("case_"):]: fn for name, fn in globals().items() if name.startswith("case_")}
