"""``tf.nn.embedding_lookup_sparse`` and ``safe_embedding_lookup_sparse``: each row of a
SparseTensor of ids (a bag of words, a user's items) becomes one embedding, its ids' rows of the
table combined by ``sum``, ``mean`` or ``sqrtn`` (weighted by a second SparseTensor when given).

Built as TensorFlow 2.21 builds them: without weights and with the table on the ids' device, one
``SparseSegment*`` op reads the table (its gradient an ``IndexedSlices`` of the rows read);
otherwise the distinct ids are looked up (``Unique``, ``embedding_lookup``), gathered back,
weighted and summed per row (``SegmentSum``).
"""
from ..framework import dtypes
from ..framework.scopes import name_scope
from ..framework.tensor_shape import TensorShape
from ..ops.build import convert_to_tensor
from ..ops.sparse_tensor import SparseTensor
from . import array_ops, math_ops, segment_ops, sparse_ops
from .embedding_ops import embedding_lookup
from .partitioned_variables import PartitionedVariable

_COMBINERS = ("mean", "sqrtn", "sum")


def embedding_lookup_sparse(params, sp_ids, sp_weights, partition_strategy="mod", name=None, combiner=None,
                            max_norm=None, allow_fast_lookup=False):
    """``[rows of sp_ids, embedding dim]``: each row's ids looked up in ``params`` and combined."""
    combiner = "mean" if combiner is None else combiner
    if combiner not in _COMBINERS:
        raise ValueError(f"combiner must be one of 'mean', 'sqrtn' or 'sum', got {combiner}")
    params = list(params) if isinstance(params, (list, tuple, PartitionedVariable)) else [params]
    if not isinstance(sp_ids, SparseTensor):
        raise TypeError(f"sp_ids must be SparseTensor, got {type(sp_ids)}")
    ignore_weights = sp_weights is None
    if not ignore_weights:
        if not isinstance(sp_weights, SparseTensor):
            raise TypeError(f"sp_weights must be either None or SparseTensor,got {type(sp_weights)}")
        sp_ids.values.shape.assert_is_compatible_with(sp_weights.values.shape)
        sp_ids.indices.shape.assert_is_compatible_with(sp_weights.indices.shape)
        sp_ids.dense_shape.shape.assert_is_compatible_with(sp_weights.dense_shape.shape)
    with name_scope(name, "embedding_lookup_sparse", params + [sp_ids]) as scope:
        segment_ids = sp_ids.indices[:, 0]
        return _lookup(params, segment_ids, sp_weights, sp_ids.values, combiner, ignore_weights,
                       allow_fast_lookup, partition_strategy, scope, max_norm)


def _lookup(params, segment_ids, sp_weights, ids, combiner, ignore_weights, allow_fast_lookup,
            partition_strategy, name, max_norm=None):
    """TF's ``embedding_lookup_sparse_impl``."""
    sparse_gradient = False
    segment_ids = convert_to_tensor(segment_ids, name="segment_ids")
    if len(params) == 1 and not hasattr(params[0], "op"):
        params = [convert_to_tensor(params[0], name="params")]
    if len(params) == 1 and params[0].device == segment_ids.device and max_norm is None and (
            allow_fast_lookup or ignore_weights):
        idx, embeddings = ids, params[0]
        sparse_gradient = not allow_fast_lookup
    else:
        ids, idx = array_ops.unique(ids)
        embeddings = embedding_lookup(params, ids, partition_strategy=partition_strategy, max_norm=max_norm)
    if not ignore_weights:
        if segment_ids.dtype != dtypes.int32:
            segment_ids = array_ops.cast(segment_ids, dtypes.int32)
        weights = sp_weights.values
        embeddings = array_ops.gather(embeddings, idx)
        original_dtype = embeddings.dtype
        if embeddings.dtype in (dtypes.float16, dtypes.bfloat16):
            embeddings = array_ops.cast(embeddings, dtypes.float32)
        if weights.dtype != embeddings.dtype:
            weights = array_ops.cast(weights, embeddings.dtype)
        ones_shape = array_ops.expand_dims(array_ops.rank(embeddings) - 1, 0)
        weights_shape = array_ops.shape(weights)
        ones = array_ops.ones(ones_shape, dtype=weights_shape.dtype)
        bcast_weights_shape = array_ops.concat([weights_shape, ones], 0)
        orig_weights_shape = weights.shape
        weights = array_ops.reshape(weights, bcast_weights_shape)
        if embeddings.shape.ndims is not None:
            weights.set_shape(orig_weights_shape.concatenate(TensorShape([1] * (embeddings.shape.ndims - 1))))
        embeddings = embeddings * weights
        if combiner == "sum":
            embeddings = segment_ops.segment_sum(embeddings, segment_ids, name=name)
        elif combiner == "mean":
            embeddings = segment_ops.segment_sum(embeddings, segment_ids)
            weight_sum = segment_ops.segment_sum(weights, segment_ids)
            embeddings = math_ops.div_no_nan(embeddings, weight_sum, name=name)
        else:
            embeddings = segment_ops.segment_sum(embeddings, segment_ids)
            weight_sum = segment_ops.segment_sum(math_ops.pow(weights, 2), segment_ids)
            embeddings = math_ops.div_no_nan(embeddings, math_ops.sqrt(weight_sum), name=name)
        if embeddings.dtype != original_dtype:
            embeddings = array_ops.cast(embeddings, original_dtype)
        return embeddings
    if segment_ids.dtype not in (dtypes.int32, dtypes.int64):
        segment_ids = array_ops.cast(segment_ids, dtypes.int32)
    reduce = {"sum": segment_ops.sparse_segment_sum, "mean": segment_ops.sparse_segment_mean,
              "sqrtn": segment_ops.sparse_segment_sqrt_n}[combiner]
    return reduce(embeddings, idx, segment_ids, name=name, sparse_gradient=sparse_gradient)


def safe_embedding_lookup_sparse(embedding_weights, sparse_ids, sparse_weights=None, combiner="mean",
                                 default_id=None, name=None, partition_strategy="div", max_norm=None,
                                 allow_fast_lookup=False):
    """``embedding_lookup_sparse`` that drops invalid ids (negative) and weights (not positive) and
    gives an empty row zeros (or ``default_id``'s embedding); ids of any rank >= 2."""
    if embedding_weights is None:
        raise ValueError(f"Missing embedding_weights {embedding_weights}.")
    if not isinstance(sparse_ids, SparseTensor):
        raise TypeError(f"sparse_ids must be SparseTensor, got {type(sparse_ids)}")
    if sparse_weights is not None and not isinstance(sparse_weights, SparseTensor):
        raise TypeError(f"sparse_weights must be either None or SparseTensor, got {type(sparse_weights)}")
    if isinstance(embedding_weights, PartitionedVariable):
        embedding_weights = list(embedding_weights)
    if not isinstance(embedding_weights, list):
        embedding_weights = [embedding_weights]
    if len(embedding_weights) < 1:
        raise ValueError(f"Missing embedding_weights {embedding_weights}.")
    dtype = sparse_weights.dtype if sparse_weights is not None else None
    embedding_weights = [convert_to_tensor(w, dtype=dtype) for w in embedding_weights]
    with name_scope(name, "embedding_lookup", embedding_weights + [sparse_ids, sparse_weights]) as scope:
        original_shape = sparse_ids.dense_shape
        original_rank_dim = original_shape.shape.sizes[0] if original_shape.shape.sizes else None
        original_rank = array_ops.size(original_shape) if original_rank_dim is None else original_rank_dim
        sparse_ids = sparse_ops.sparse_reshape(sparse_ids, [
            math_ops.reduce_prod(array_ops.slice(original_shape, [0], [original_rank - 1])),
            array_ops.gather(original_shape, original_rank - 1)])
        if sparse_weights is not None:
            sparse_weights = SparseTensor(sparse_ids.indices, sparse_weights.values, sparse_ids.dense_shape)
        sparse_ids, sparse_weights = _prune_invalid_ids(sparse_ids, sparse_weights)
        if combiner != "sum":
            sparse_ids, sparse_weights = _prune_invalid_weights(sparse_ids, sparse_weights)
        sparse_ids, is_row_empty = sparse_ops.sparse_fill_empty_rows(sparse_ids, default_id or 0)
        if sparse_weights is not None:
            sparse_weights, _ = sparse_ops.sparse_fill_empty_rows(sparse_weights, 1.0)
        result = embedding_lookup_sparse(embedding_weights, sparse_ids, sparse_weights, combiner=combiner,
                                         partition_strategy=partition_strategy, max_norm=max_norm,
                                         name=None if default_id is None else scope,
                                         allow_fast_lookup=allow_fast_lookup)
        if default_id is None:
            is_row_empty = array_ops.tile(array_ops.reshape(is_row_empty, [-1, 1]),
                                          array_ops.stack([1, array_ops.shape(result)[1]]))
            result = array_ops.where(is_row_empty, array_ops.zeros_like(result), result, name=scope)
        final = array_ops.reshape(result, array_ops.concat([
            array_ops.slice(array_ops.cast(original_shape, dtypes.int32), [0], [original_rank - 1]),
            array_ops.slice(array_ops.shape(result), [1], [-1])], 0))
        rank = None if original_rank_dim is None else original_rank_dim - 1
        final.set_shape(TensorShape(None if rank is None else [None] * rank).concatenate(result.shape[1:]))
        return final


def _prune_invalid_ids(sparse_ids, sparse_weights):
    is_id_valid = math_ops.greater_equal(sparse_ids.values, 0)
    if sparse_weights is not None:
        is_id_valid = math_ops.logical_and(is_id_valid, array_ops.ones_like(sparse_weights.values,
                                                                            dtype=dtypes.bool))
    sparse_ids = sparse_ops.sparse_retain(sparse_ids, is_id_valid)
    if sparse_weights is not None:
        sparse_weights = sparse_ops.sparse_retain(sparse_weights, is_id_valid)
    return sparse_ids, sparse_weights


def _prune_invalid_weights(sparse_ids, sparse_weights):
    if sparse_weights is not None:
        is_weights_valid = math_ops.greater(sparse_weights.values, 0)
        sparse_ids = sparse_ops.sparse_retain(sparse_ids, is_weights_valid)
        sparse_weights = sparse_ops.sparse_retain(sparse_weights, is_weights_valid)
    return sparse_ids, sparse_weights
