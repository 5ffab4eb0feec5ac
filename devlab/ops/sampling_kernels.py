"""Kernels of candidate sampling (TF's candidate_sampler_ops.cc and range_sampler.cc): the uniform
and log-uniform samplers and ``ComputeAccidentalHits``. TF has CPU kernels only, and so does
devlab. Draws come from the op's generator (graph seed and op seed), so they are not TF's numbers,
but the distribution, the rejection of repeats and the expected counts are computed as TF does."""
import math

import numpy as np

from ..framework import errors

FLT_MAX = float(np.finfo(np.float32).max)


def _log_uniform_draw(rng, range_max):
    """floor(exp(u * log(range_max + 1))) - 1: class c with probability log((c+2)/(c+1)) / log(range_max+1)."""
    return (int(math.exp(rng.random() * math.log1p(range_max))) - 1) % range_max


def _log_uniform_probability(c, range_max):
    return math.log((c + 2.0) / (c + 1.0)) / math.log1p(range_max)


def _uniform_draw(rng, range_max):
    return int(rng.integers(range_max))


def _uniform_probability(c, range_max):
    return 1.0 / range_max


def _expected_count(p, num_sampled, num_tries):
    """How often a class of probability ``p`` shows up among the samples: p * n when every draw was
    kept; with repeats rejected, the chance it came up in ``num_tries`` draws."""
    if num_tries == num_sampled:
        return p * num_sampled
    return -math.expm1(num_tries * math.log1p(-p))


def _sample(k, true_classes, draw, probability):
    num_true, num_sampled = k.attrs["num_true"], k.attrs["num_sampled"]
    unique, range_max = k.attrs["unique"], k.attrs["range_max"]
    true_classes = np.asarray(true_classes)
    if true_classes.ndim != 2:
        raise errors.InvalidArgumentError(None, None, "true_classes must be a matrix")
    if true_classes.shape[1] != num_true:
        raise errors.InvalidArgumentError(None, None, f"true_classes must have num_true columns, expected: "
                                                       f"{true_classes.shape[1]} was: {num_true}")
    for c in true_classes.reshape(-1).tolist():
        if not 0 <= c < range_max:
            raise errors.InvalidArgumentError(None, None, f"`true_candidate` out of range [0, {range_max}), "
                                                           f"received {c}")
    if unique and num_sampled > range_max:
        raise errors.InvalidArgumentError(None, None, "Sampler's range is too small.")
    rng = k.rng
    if unique:
        seen, sampled, num_tries = set(), [], 0
        while len(sampled) < num_sampled:
            c = draw(rng, range_max)
            num_tries += 1
            if c not in seen:
                seen.add(c)
                sampled.append(c)
    else:
        sampled = [draw(rng, range_max) for _ in range(num_sampled)]
        num_tries = num_sampled
    true_count = [_expected_count(probability(c, range_max), num_sampled, num_tries)
                  for c in true_classes.reshape(-1).tolist()]
    sampled_count = [_expected_count(probability(c, range_max), num_sampled, num_tries) for c in sampled]
    xp = k.xp
    return (xp.asarray(np.array(sampled, np.int64)),
            xp.asarray(np.array(true_count, np.float32).reshape(true_classes.shape)),
            xp.asarray(np.array(sampled_count, np.float32)))


def log_uniform_candidate_sampler(k, true_classes):
    return _sample(k, true_classes, _log_uniform_draw, _log_uniform_probability)


def uniform_candidate_sampler(k, true_classes):
    return _sample(k, true_classes, _uniform_draw, _uniform_probability)


def compute_accidental_hits(k, true_classes, sampled_candidates):
    """For each example's true classes in order, the position among the samples of the same class
    (the last such position: TF keeps one per class), with weight -FLT_MAX."""
    true_classes, sampled = np.asarray(true_classes), np.asarray(sampled_candidates)
    num_true = k.attrs["num_true"]
    if true_classes.ndim != 2 or true_classes.shape[1] != num_true:
        raise errors.InvalidArgumentError(None, None, "true_candidates must be a batch_size * num_true matrix")
    position = {c: j for j, c in enumerate(sampled.reshape(-1).tolist())}
    indices, ids = [], []
    for i, row in enumerate(true_classes.tolist()):
        for c in row:
            if c in position:
                indices.append(i)
                ids.append(position[c])
    xp = k.xp
    return (xp.asarray(np.array(indices, np.int32)), xp.asarray(np.array(ids, np.int64)),
            xp.asarray(np.full(len(ids), -FLT_MAX, np.float32)))
