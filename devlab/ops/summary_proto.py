"""What TensorFlow's summary ops output: a serialized ``tensorflow.Summary`` protocol buffer,
made with TensorBoard's copy of TF's protos (the ``graphs`` extra), so ``tf.summary.FileWriter``
and TensorBoard read it as TensorFlow's. Histograms use TensorFlow's default buckets
(``tensorflow/core/lib/histogram/histogram.cc``): edges 1e-12 * 1.1**k up to 1e20, mirrored, and
runs of empty buckets collapsed into one.
"""
import sys

import numpy as np

from ..framework import errors
from ..framework.tf_protos import pb as _pb

_DBL_MAX = sys.float_info.max


def _default_limits():
    positive, v = [], 1.0e-12
    while v < 1.0e20:
        positive.append(v)
        v *= 1.1
    positive.append(_DBL_MAX)
    return np.array([-x for x in reversed(positive)] + [0.0] + positive)


_LIMITS = _default_limits()


def pb():
    """TensorBoard's protos; without them a summary op cannot run (TF's UnimplementedError, saying
    what to install)."""
    try:
        return _pb()
    except ImportError as e:
        raise errors.UnimplementedError(None, None, str(e)) from None


def scalar_values(tags, values):
    """One Summary with a ``simple_value`` per (tag, value)."""
    p = pb()
    return p.Summary(value=[p.Summary.Value(tag=t, simple_value=v) for t, v in zip(tags, values)]).SerializeToString()


def histogram_value(tag, values):
    """One Summary holding a ``HistogramProto`` of ``values`` (finite doubles)."""
    values = np.asarray(values, dtype=np.float64).reshape(-1)
    counts = np.bincount(np.searchsorted(_LIMITS, values, side="right"), minlength=len(_LIMITS))[:len(_LIMITS)]
    limits, buckets, i = [], [], 0
    while i < len(_LIMITS):
        end, count = _LIMITS[i], counts[i]
        i += 1
        if count <= 0:  # a run of empty buckets becomes one
            while i < len(_LIMITS) and counts[i] <= 0:
                end, count = _LIMITS[i], counts[i]
                i += 1
        limits.append(float(end))
        buckets.append(float(count))
    p = pb()
    histo = p.HistogramProto(min=float(values.min()) if values.size else _DBL_MAX,
                             max=float(values.max()) if values.size else -_DBL_MAX,
                             num=float(values.size), sum=float(values.sum()),
                             sum_squares=float(np.dot(values, values)), bucket_limit=limits, bucket=buckets)
    return p.Summary(value=[p.Summary.Value(tag=tag, histo=histo)]).SerializeToString()


def merged(summaries):
    """The values of several serialized Summaries in one, in order; a ValueError names a tag that
    comes twice, a TypeError an input that is not a Summary."""
    p = pb()
    out, seen = p.Summary(), set()
    for raw in summaries:
        try:
            summary = p.Summary.FromString(raw)
        except p.DecodeError:
            raise TypeError("Could not parse one of the summary inputs") from None
        for value in summary.value:
            if value.tag and value.tag in seen:
                raise ValueError(f"Duplicate tag {value.tag} found in summary inputs ")
            seen.add(value.tag)
            out.value.append(value)
    return out.SerializeToString()
