"""Sampled losses and candidate sampling: the graphs, placements, values and errors TensorFlow 2.21
recorded for the same programs (tests/cases/sampled_cases.py; tools/record_cases.py sampled records
them), and what holds of devlab's own draws: in range, unique when asked, distributed as the
sampler says, the same again under the same graph seed."""
import math
import pathlib
import sys

import numpy as np
import pytest

import devlab as tf

sys.path.insert(0, str(pathlib.Path(__file__).parent / "cases"))
from recorded import compare, load  # noqa: E402

CASES, RECORDED = load("sampled", "tf_sampled.json")


@pytest.mark.parametrize("name", sorted(CASES))
def test_graph_placement_values_and_errors_match_tensorflow(name):
    compare(tf, CASES[name], RECORDED[name])


def _draw(sampler, num_sampled, unique, range_max=10, seed=None, runs=1, graph_seed=None):
    g = tf.Graph()
    with g.as_default():
        if graph_seed is not None:
            tf.set_random_seed(graph_seed)
        s = sampler(tf.constant([[0], [3]], tf.int64), 1, num_sampled, unique, range_max, seed=seed)
    with tf.Session(graph=g) as sess:
        return [sess.run(s) for _ in range(runs)]


@pytest.mark.parametrize("sampler", [tf.nn.uniform_candidate_sampler, tf.nn.log_uniform_candidate_sampler])
@pytest.mark.parametrize("unique", [False, True])
def test_draws_lie_in_the_range_and_are_unique_when_asked(sampler, unique):
    for cands, true_count, sampled_count in _draw(sampler, 8, unique, runs=20):
        assert cands.dtype == np.int64 and cands.shape == (8,) and ((cands >= 0) & (cands < 10)).all()
        assert true_count.dtype == np.float32 and true_count.shape == (2, 1) and sampled_count.shape == (8,)
        if unique:
            assert len(set(cands.tolist())) == 8
        assert (true_count > 0).all() and (sampled_count > 0).all()


def test_log_uniform_draws_follow_the_distribution():
    """P(0) = log(2) / log(11) ~ 0.289 and P(9) = log(10/9) / log(11) ~ 0.044 over 20 000 draws."""
    cands = np.concatenate([c for c, _, _ in _draw(tf.nn.log_uniform_candidate_sampler, 1000, False, runs=20)])
    freq = np.bincount(cands, minlength=10) / cands.size
    assert freq[0] == pytest.approx(math.log(2) / math.log(11), abs=0.01)
    assert freq[9] == pytest.approx(math.log(10 / 9) / math.log(11), abs=0.006)
    assert (np.diff(freq) < 0.01).all()  # decreasing, up to noise


def test_uniform_draws_are_uniform():
    cands = np.concatenate([c for c, _, _ in _draw(tf.nn.uniform_candidate_sampler, 1000, False, runs=20)])
    np.testing.assert_allclose(np.bincount(cands, minlength=10) / cands.size, 0.1, atol=0.01)


def test_unique_expected_counts_use_the_number_of_tries():
    """With repeats rejected a class's expected count is 1 - (1 - p)^tries, below 1 and increasing in p;
    with every class drawn (num_sampled = range_max), the most likely class is nearly certain."""
    for cands, true_count, sampled_count in _draw(tf.nn.log_uniform_candidate_sampler, 10, True, runs=3):
        assert sorted(cands.tolist()) == list(range(10))
        assert (sampled_count <= 1).all()
        by_class = sampled_count[np.argsort(cands)]
        assert (np.diff(by_class) <= 0).all()
        assert true_count[0, 0] == pytest.approx(by_class[0]) and true_count[1, 0] == pytest.approx(by_class[3])


def test_the_same_graph_seed_draws_the_same_candidates():
    first = _draw(tf.nn.log_uniform_candidate_sampler, 5, True, runs=3, graph_seed=4)
    again = _draw(tf.nn.log_uniform_candidate_sampler, 5, True, runs=3, graph_seed=4)
    other = _draw(tf.nn.log_uniform_candidate_sampler, 5, True, runs=3, graph_seed=5)
    for a, b in zip(first, again):
        for x, y in zip(a, b):
            np.testing.assert_array_equal(x, y)
    assert any((a[0] != b[0]).any() for a, b in zip(first, other))
    assert not all((first[0][0] == r[0]).all() for r in first[1:])  # each run draws anew


def test_samplers_are_cpu_only_and_need_soft_placement_under_a_gpu_scope():
    """The word2vec layout: the loss asked for on the GPU; the sampler goes to the CPU only with
    soft placement, the products stay on the GPU."""
    with tf.device("/cpu:0"):
        weights = tf.Variable(np.ones((10, 4), np.float32), name="weights")
        biases = tf.Variable(np.zeros(10, np.float32), name="biases")
    with tf.device("/gpu:0"):
        loss = tf.reduce_mean(tf.nn.nce_loss(weights, biases, tf.constant([[1], [2]], tf.int64),
                                             tf.ones([2, 4]), num_sampled=3, num_classes=10))
    graph = tf.get_default_graph()
    sampler, product = graph.get_operation_by_name("nce_loss/LogUniformCandidateSampler"), \
        graph.get_operation_by_name("nce_loss/MatMul")
    config = tf.ConfigProto(device_count={"GPU": 1}, allow_soft_placement=True)
    with tf.Session(config=config) as sess:
        sess.run(tf.global_variables_initializer())
        assert np.isfinite(sess.run(loss))
        assert sess.placement.device_of(sampler).name.endswith("CPU:0")
        assert sess.placement.device_of(product).name.endswith("GPU:0")
    with tf.Session(config=tf.ConfigProto(device_count={"GPU": 1})) as sess:
        with pytest.raises(tf.errors.InvalidArgumentError, match="no supported kernel for GPU devices"):
            sess.run(loss)


def test_sampled_softmax_with_all_classes_sampled_is_the_full_softmax_loss():
    """Sampling every class once, with expected count 1 and no accidental hits left in, the sampled
    logits are the full logits; the true class is then its own column, and the hit is removed."""
    w = np.random.RandomState(0).randn(5, 3).astype(np.float32)
    x = np.random.RandomState(1).randn(4, 3).astype(np.float32)
    labels = np.array([[0], [3], [4], [1]], np.int64)
    sampled = (tf.constant(np.arange(5, dtype=np.int64)), tf.ones([4, 1]), tf.ones([5]))
    loss = tf.nn.sampled_softmax_loss(w, tf.zeros([5]), labels, x, num_sampled=5, num_classes=5,
                                      sampled_values=sampled)
    with tf.Session() as sess:
        got = sess.run(loss)
    logits = x @ w.T
    want = -logits[np.arange(4), labels[:, 0]] + np.log(np.exp(logits).sum(1))
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)


def test_bad_shapes_and_attrs_fail_when_the_graph_is_built():
    with pytest.raises(ValueError, match="Shape must be rank 1 but is rank 2"):
        tf.sparse_to_dense([1], [[2]], 1.0)
    with pytest.raises(ValueError, match="Dimension must be 2 but is 3"):
        tf.nn.compute_accidental_hits([[1, 2, 3]], [1, 2], 2)
    with pytest.raises(ValueError, match="Shape must be rank 2 but is rank 1"):
        tf.nn.uniform_candidate_sampler(tf.constant([7, 1], tf.int64), 1, 2, True, 6)
    with pytest.raises(ValueError, match="less than minimum 1"):
        tf.nn.uniform_candidate_sampler(tf.constant([[7]], tf.int64), 1, 0, True, 6)


def test_sparse_to_dense_without_validation_still_rejects_indices_out_of_bounds():
    idx = tf.placeholder(tf.int32)
    out = tf.sparse_to_dense(idx, [4], 1.0, validate_indices=False)
    with tf.Session() as sess:
        np.testing.assert_array_equal(sess.run(out, {idx: [3, 1, 1]}), [0, 1, 0, 1])
        with pytest.raises(tf.errors.InvalidArgumentError, match=r"Indices are not valid \(out of bounds\)"):
            sess.run(out, {idx: [1, 7]})


@pytest.mark.parametrize("generator", [np.random.default_rng, lambda seed: np.random.Generator(np.random.Philox(seed))])
def test_log_uniform_draws_are_those_of_one_draw_at_a_time(generator):
    """The kernel takes its uniforms from the generator a block at a time; the classes, the number
    of tries and where the generator is left are those of drawing one uniform per try (as TF's
    sampler loop does), so the next run's draws continue the same stream. (PCG64, the sessions'
    generator, steps back with ``advance``; another is restored from its state.)"""
    from devlab.ops import sampling_kernels

    def one_at_a_time(rng, range_max, num_sampled):
        seen, tries = [], 0
        while len(seen) < num_sampled:
            c = (int(math.exp(rng.random() * math.log1p(range_max))) - 1) % range_max
            tries += 1
            if c not in seen:
                seen.append(c)
        return seen, tries

    for range_max, num_sampled in [(50000, 64), (10, 10), (20, 15), (3, 1)]:
        blocks, single = generator(range_max), generator(range_max)
        for _ in range(5):
            got, tries = sampling_kernels._log_uniform_sample(blocks, range_max, num_sampled, True)
            assert (list(got), tries) == one_at_a_time(single, range_max, num_sampled)
        assert blocks.random() == single.random()


def test_a_true_class_out_of_range_is_tfs_error_naming_it():
    """TF: "`true_candidate` out of range [0, 10), received 100" (checked in the run)."""
    with tf.Graph().as_default():
        sampled = tf.nn.log_uniform_candidate_sampler(true_classes=tf.constant([[5], [100]], tf.int64), num_true=1,
                                                      num_sampled=2, unique=True, range_max=10)
        with tf.Session() as sess:
            with pytest.raises(tf.errors.InvalidArgumentError, match=r"`true_candidate` out of range \[0, 10\), "
                                                                      r"received 100"):
                sess.run(sampled)
            ok = tf.nn.log_uniform_candidate_sampler(true_classes=tf.constant([[0], [9]], tf.int64), num_true=1,
                                                     num_sampled=2, unique=True, range_max=10)
            classes = sess.run(ok)[0]  # the bounds themselves are in range
            assert len(set(classes.tolist())) == 2 and all(0 <= c < 10 for c in classes)
