"""Sorted-segment reductions other than the sum: ``SegmentMax``, ``SegmentMin``, ``SegmentProd``
and ``SegmentMean``. Row i of the output reduces the rows of ``data`` whose segment id is i; the
ids must be sorted, and a segment no row names gets 0 (1 for the product), as TF's kernels give.
"""
import numpy as np

from ..framework import errors
from .kernels import to_host


def _err(message):
    return errors.InvalidArgumentError(None, None, message)


def _check(d, seg):
    """TF's SegmentReductionOp checks, in its order and words."""
    if seg.ndim != 1 or seg.shape[0] != d.shape[0]:
        raise _err("segment_ids should be the same size as dimension 0 of input.")
    if seg.size and (np.diff(seg) < 0).any():
        raise _err("segment ids are not increasing")
    if seg.size and seg[0] < 0:
        rows = int(seg[-1]) + 1
        raise _err(f"Segment id {int(seg[0])} out of range [0, {rows}), possibly because 'segment_ids' input is "
                   "not sorted.")


def _segment(reduce, empty):
    """A kernel reducing each segment's rows with ``reduce`` (a numpy ufunc's ``reduceat``)."""
    def kernel(k, data, segment_ids):
        d = np.asarray(to_host(data))
        seg = np.asarray(to_host(segment_ids))
        _check(d, seg)
        n = int(seg[-1]) + 1 if seg.size else 0
        out = np.full((n,) + d.shape[1:], empty, dtype=d.dtype)
        if seg.size:
            starts = np.flatnonzero(np.r_[True, seg[1:] != seg[:-1]])  # where each present segment begins
            out[seg[starts]] = reduce(d, starts)
        return k.xp.asarray(out)
    return kernel


def _mean(d, starts):
    counts = np.diff(np.r_[starts, len(d)]).reshape((-1,) + (1,) * (d.ndim - 1))
    return (np.add.reduceat(d, starts, axis=0) / counts).astype(d.dtype)


segment_max = _segment(lambda d, starts: np.maximum.reduceat(d, starts, axis=0), 0)
segment_min = _segment(lambda d, starts: np.minimum.reduceat(d, starts, axis=0), 0)
segment_prod = _segment(lambda d, starts: np.multiply.reduceat(d, starts, axis=0), 1)
segment_mean = _segment(_mean, 0)
