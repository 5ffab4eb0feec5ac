"""Kernels of candidate sampling (TF's candidate_sampler_ops.cc and range_sampler.cc): the uniform
and log-uniform samplers and ``ComputeAccidentalHits``. TF has CPU kernels only, and so does
devlab. Draws come from the op's generator (graph seed and op seed), so they are not TF's numbers,
but the distribution, the rejection of repeats and the expected counts are computed as TF does."""
import math

import numpy as np

from ..framework import errors
from .sparse_kernels import indices_below

FLT_MAX = float(np.finfo(np.float32).max)


def _log_uniform_draws(u, range_max):
    """floor(exp(u * log(range_max + 1))) - 1 for each uniform ``u``: class c with probability
    log((c+2)/(c+1)) / log(range_max+1). numpy's vectorised exp may differ from the C library's
    (TF's ``std::exp``) in the last bits, which moves floor only next to an integer: there,
    ``math.exp`` decides."""
    scale = math.log1p(range_max)
    scaled = u * scale
    grown = np.exp(scaled)
    classes = np.floor(grown)
    # within 1e-9 of the largest class of an integer (grown < range_max + 1), one way or the other:
    # |frac - 0.5| > 0.5 - tol, four numpy calls (a tolerance per element took seven)
    off = np.subtract(grown, classes, out=grown)
    np.abs(np.subtract(off, 0.5, out=off), out=off)
    close = off > 0.5 - 1e-9 * (range_max + 1)
    if close.any():
        for i in np.flatnonzero(close).tolist():
            classes[i] = math.floor(math.exp(float(scaled[i])))
    return (classes.astype(np.int64) - 1) % range_max


def _log_uniform_probability(c, range_max):
    """The probability of each class in ``c`` (an int array), in float64."""
    plus_one = np.add(c, 1.0)  # float64, exactly c + 1 (as c.astype(float64) + 1)
    p = np.add(plus_one, 1.0)
    np.divide(p, plus_one, out=p)
    np.log(p, out=p)
    return np.divide(p, math.log1p(range_max), out=p)


def _uniform_probability(c, range_max):
    return np.full(c.shape, 1.0 / range_max)


def _expected_count(p, num_sampled, num_tries):
    """How often a class of probability ``p`` shows up among the samples: p * n when every draw was
    kept; with repeats rejected, the chance it came up in ``num_tries`` draws."""
    if num_tries == num_sampled:
        return p * num_sampled
    out = np.log1p(np.negative(p))
    np.multiply(out, num_tries, out=out)  # num_tries * log1p(-p): the product commutes exactly
    np.expm1(out, out=out)
    return np.negative(out, out=out)


def _log_uniform_sample(rng, range_max, num_sampled, unique):
    """(the classes drawn, how many draws were made). Uniforms come from the generator a block at
    a time (one call for a block, not one a draw: 75 calls took most of a word2vec step's
    sampling), and the generator ends where drawing them one by one leaves it: a block drawn
    past the last draw used is drawn again only as far as that draw. Repeats are dropped by a
    dict (which keeps the order keys first came in): for a few dozen draws several times faster
    than numpy's ``unique`` and ``isin``."""
    if not unique:
        return _log_uniform_draws(rng.random(num_sampled), range_max), num_sampled
    # PCG64 (``default_rng``'s) steps back by ``advance`` with a negative count, one step a double:
    # half the time of saving its state and drawing again
    rewind = rng.bit_generator.advance if type(rng.bit_generator) is np.random.PCG64 else None
    sampled, num_tries = [], 0
    while len(sampled) < num_sampled:
        wanted = num_sampled - len(sampled)
        block = wanted + wanted // 4 + 8  # a few more than wanted: some repeat
        state = rng.bit_generator.state if rewind is None else None
        drawn = _log_uniform_draws(rng.random(block), range_max).tolist()
        # the classes so far, then the block's new ones in the order they first show up
        new = list(dict.fromkeys(sampled + drawn))[len(sampled):len(sampled) + wanted]
        used = drawn.index(new[-1]) + 1 if len(new) == wanted else block
        sampled += new
        if used < block:  # the generator goes back to just after the last draw kept
            if rewind is not None:
                rewind(used - block)
            else:
                rng.bit_generator.state = state
                rng.random(used)
        num_tries += used
    return sampled, num_tries


def _uniform_sample(rng, range_max, num_sampled, unique):
    """(the classes drawn, how many draws were made), one integer draw at a time."""
    if not unique:
        return [int(rng.integers(range_max)) for _ in range(num_sampled)], num_sampled
    seen, sampled, num_tries = set(), [], 0
    while len(sampled) < num_sampled:
        c = int(rng.integers(range_max))
        num_tries += 1
        if c not in seen:
            seen.add(c)
            sampled.append(c)
    return sampled, num_tries


def _sample(k, true_classes, sample, probability):
    num_true, num_sampled = k.attrs["num_true"], k.attrs["num_sampled"]
    unique, range_max = k.attrs["unique"], k.attrs["range_max"]
    true_classes = np.asarray(true_classes)
    if true_classes.ndim != 2:
        raise errors.InvalidArgumentError(None, None, "true_classes must be a matrix")
    if true_classes.shape[1] != num_true:
        raise errors.InvalidArgumentError(None, None, f"true_classes must have num_true columns, expected: "
                                                       f"{true_classes.shape[1]} was: {num_true}")
    flat = true_classes.reshape(-1)
    outside = None if not flat.size or indices_below(flat, range_max) else \
        (flat < 0) | (flat >= range_max)  # the mask that names the bad class: made only when there is one
    if outside is not None and outside.any():
        c = int(flat[int(outside.argmax())])
        raise errors.InvalidArgumentError(None, None, f"`true_candidate` out of range [0, {range_max}), "
                                                       f"received {c}")
    if unique and num_sampled > range_max:
        raise errors.InvalidArgumentError(None, None, "Sampler's range is too small.")
    sampled, num_tries = sample(k.rng, range_max, num_sampled, unique)
    sampled = np.array(sampled, np.int64)
    # the true classes' and the samples' expected counts in one pass (each element on its own)
    counts = _expected_count(probability(np.concatenate([flat, sampled]), range_max), num_sampled,
                             num_tries).astype(np.float32)
    xp = k.xp
    return (xp.asarray(sampled),
            xp.asarray(counts[:flat.size].reshape(true_classes.shape)),
            xp.asarray(counts[flat.size:]))


def log_uniform_candidate_sampler(k, true_classes):
    return _sample(k, true_classes, _log_uniform_sample, _log_uniform_probability)


def uniform_candidate_sampler(k, true_classes):
    return _sample(k, true_classes, _uniform_sample, _uniform_probability)


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
