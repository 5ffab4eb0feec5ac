"""Candidate samplers and accidental hits (TF's ``candidate_sampling_ops``): the ingredients of
sampled losses. A sampler draws ``num_sampled`` classes from ``[0, range_max)`` and says how often
each true and sampled class is expected among the draws; its op has only a CPU kernel, so under a
GPU scope it needs soft placement, as in TF."""
from collections import namedtuple

from ..framework import dtypes
from .array_ops import op
from ..ops.validate import make_int

_SAMPLED = ["sampled_candidates", "true_expected_count", "sampled_expected_count"]
_OUTPUTS = {"UniformCandidateSampler": namedtuple("UniformCandidateSampler", _SAMPLED),
            "LogUniformCandidateSampler": namedtuple("LogUniformCandidateSampler", _SAMPLED),
            "ComputeAccidentalHits": namedtuple("ComputeAccidentalHits", ["indices", "ids", "weights"])}


def _sampler(op_type, default_name, true_classes, num_true, num_sampled, unique, range_max, seed, name):
    attrs = {"num_true": make_int(num_true, "num_true"), "num_sampled": make_int(num_sampled, "num_sampled"),
             "unique": bool(unique), "range_max": make_int(range_max, "range_max"), "seed": seed}
    for attr in ("num_true", "num_sampled", "range_max"):
        if attrs[attr] < 1:
            raise ValueError(f"Attr '{attr}' of '{op_type}' Op passed {attrs[attr]} less than minimum 1.")
    return _OUTPUTS[op_type](*op(op_type, name, [("true_classes", true_classes, dtypes.int64)], attrs,
                                 default_name).outputs)


def uniform_candidate_sampler(true_classes, num_true, num_sampled, unique, range_max, seed=None, name=None):
    """(sampled_candidates, true_expected_count, sampled_expected_count), classes drawn uniformly."""
    return _sampler("UniformCandidateSampler", None, true_classes, num_true, num_sampled, unique, range_max, seed,
                    name)


def log_uniform_candidate_sampler(true_classes, num_true, num_sampled, unique, range_max, seed=None, name=None):
    """As ``uniform_candidate_sampler``, class c drawn with probability log((c+2)/(c+1)) / log(range_max+1):
    Zipf-like, for classes sorted by decreasing frequency."""
    return _sampler("LogUniformCandidateSampler", None, true_classes, num_true, num_sampled, unique, range_max,
                    seed, name)


def compute_accidental_hits(true_classes, sampled_candidates, num_true, seed=None, name=None):
    """(indices, ids, weights): for each example, where a sampled class is one of its true classes,
    with weight -FLT_MAX, to be added to those sampled logits."""
    inputs = [("true_classes", true_classes, dtypes.int64), ("sampled_candidates", sampled_candidates, dtypes.int64)]
    hits = op("ComputeAccidentalHits", name, inputs, {"num_true": make_int(num_true, "num_true"), "seed": seed})
    return _OUTPUTS["ComputeAccidentalHits"](*hits.outputs)
