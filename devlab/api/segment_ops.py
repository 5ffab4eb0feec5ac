"""Segment reductions: ``tf.segment_sum`` (with its max, min, prod and mean) and
``tf.sparse_segment_sum``/``mean``/``sqrt_n`` (rows of ``data`` picked by ``indices``, summed per
sorted ``segment_ids``), the reductions that ``embedding_lookup_sparse`` combines a row's
embeddings with."""
from ..ops.build import op


def segment_sum(data, segment_ids, name=None):
    """out[i] = the sum of the rows of ``data`` whose (sorted) segment id is i."""
    return op("SegmentSum", name, [("data", data, None), ("segment_ids", segment_ids, None)]).outputs[0]


def _sparse_segment(op_type):
    def build(data, indices, segment_ids, name=None, num_segments=None, sparse_gradient=False):
        if num_segments is not None:
            raise NotImplementedError(f"tf.{build.__name__}(num_segments=...): devlab has no "
                                      f"{op_type}WithNumSegments")
        return op(op_type, name, [("data", data, None), ("indices", indices, None),
                                  ("segment_ids", segment_ids, None)],
                  {"sparse_gradient": bool(sparse_gradient)}).outputs[0]
    return build


sparse_segment_sum = _sparse_segment("SparseSegmentSum")
sparse_segment_sum.__name__ = "sparse_segment_sum"
sparse_segment_mean = _sparse_segment("SparseSegmentMean")
sparse_segment_mean.__name__ = "sparse_segment_mean"
sparse_segment_sqrt_n = _sparse_segment("SparseSegmentSqrtN")
sparse_segment_sqrt_n.__name__ = "sparse_segment_sqrt_n"


def _sorted_segment(op_type, doc):
    def build(data, segment_ids, name=None):
        return op(op_type, name, [("data", data, None), ("segment_ids", segment_ids, None)]).outputs[0]
    build.__doc__ = doc
    return build


segment_max = _sorted_segment("SegmentMax", "out[i] = the largest of the rows whose (sorted) segment id is i (0 if none).")
segment_min = _sorted_segment("SegmentMin", "out[i] = the smallest of the rows whose (sorted) segment id is i (0 if none).")
segment_prod = _sorted_segment("SegmentProd", "out[i] = the product of the rows whose (sorted) segment id is i (1 if none).")
segment_mean = _sorted_segment("SegmentMean", "out[i] = the mean of the rows whose (sorted) segment id is i (0 if none).")
for _f, _n in ((segment_max, "segment_max"), (segment_min, "segment_min"), (segment_prod, "segment_prod"),
               (segment_mean, "segment_mean")):
    _f.__name__ = _n
