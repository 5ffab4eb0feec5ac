"""``tf.nn.embedding_lookup``: rows of an embedding table, gathered where the table lives.

The lookup is a ``GatherV2`` colocated with the table (a table pinned to the CPU is read there,
and only the rows looked up cross to the device that uses them), followed by an ``Identity``
outside that colocation, so what comes after is placed by its own scopes. Its gradient is the
``IndexedSlices`` of ``tf.gather``: only the rows looked up get an update.

A table split into shards (a list of variables, say one per parameter server) is looked up as
TF does: each id goes to shard ``id % n`` as row ``id // n`` ("mod"), or to consecutive blocks
("div"); ``DynamicPartition`` splits the ids by shard, one ``GatherV2`` per shard runs beside it,
and ``ParallelDynamicStitch`` puts the rows back in the ids' order. With ``max_norm`` each row
found is scaled down to that L2 norm at most (a ``clip_by_norm``), as in TF.
"""
from ..framework import dtypes
from ..framework.dimension import Dimension
from ..framework.scopes import colocate_with, device, name_scope
from . import array_ops, math_ops
from .array_ops import gather, identity
from ..ops.build import convert_to_tensor
from . import clip_ops
from .data_flow_ops import dynamic_partition, parallel_dynamic_stitch
from .partitioned_variables import PartitionedVariable


def embedding_lookup(params, ids, partition_strategy="mod", name=None, validate_indices=True, max_norm=None):
    """The rows ``ids`` of the table ``params``: a variable or tensor, a list of shards, or a
    partitioned variable (its shards)."""
    if params is None:
        raise ValueError("params must be specified")
    if isinstance(params, (list, tuple)) and not params:
        raise ValueError("Length of params is currently 0. Need at least one param.")
    params = list(params) if isinstance(params, (list, tuple, PartitionedVariable)) else [params]
    with name_scope(name, "embedding_lookup", params + [ids]) as scope:
        n = len(params)
        if not any(hasattr(p, "sparse_read") for p in params):  # TF keeps resource variables: no dense read
            params = [convert_to_tensor(p, name=f"params_{i}") for i, p in enumerate(params)]
        ids = convert_to_tensor(ids, name="ids")
        if n == 1:
            with colocate_with(params[0].op):
                result = _clip(gather(params[0], ids, name=scope), ids, max_norm)
            return identity(result)
        flat_ids = array_ops.reshape(ids, [-1])
        original_indices = array_ops.range(array_ops.size(flat_ids))
        if partition_strategy == "mod":
            p_assignments, new_ids = flat_ids % n, flat_ids // n
        elif partition_strategy == "div":
            p_assignments, new_ids = _div_assignments(params, flat_ids, n)
        else:
            raise ValueError(f"Unrecognized partition strategy: {partition_strategy}.Must be one of either `mod` "
                             f"or `div`.")
        p_assignments = array_ops.cast(p_assignments, dtypes.int32)
        gather_ids = dynamic_partition(new_ids, p_assignments, n)
        pindices = dynamic_partition(original_indices, p_assignments, n)
        partitioned = []
        for p in range(n):
            with device(None), colocate_with(params[p].op):  # each shard is read where it lives
                partitioned.append(gather(params[p], gather_ids[p]))
        ret = parallel_dynamic_stitch(pindices, partitioned, name=scope)
        element_shape = params[0].shape[1:]
        for p in params[1:]:
            element_shape = element_shape.merge_with(p.shape[1:])
        if element_shape.is_fully_defined():
            element_dims = list(element_shape.sizes)
        else:
            with colocate_with(params[0].op):
                element_dims = array_ops.shape(params[0])[1:]
        ret = array_ops.reshape(ret, array_ops.concat([array_ops.shape(ids), element_dims], 0))
        ret.set_shape(ids.shape.concatenate(element_shape))
        return _clip(ret, ids, max_norm)


def _clip(embeddings, ids, max_norm):
    """``embeddings`` with each embedding (its dimensions past ``ids``' rank) scaled down to an L2
    norm of at most ``max_norm`` (TF's ``_clip``; the ranks as a Range when not both static, or a
    scalar's rank 0, as TF counts it)."""
    if max_norm is None:
        return embeddings

    def rank(x):
        r = convert_to_tensor(x).shape.ndims
        return (r, True) if r else (array_ops.rank(x), False)
    ids_rank, ids_static = rank(ids)
    params_rank, params_static = rank(embeddings)
    axes = (list(range(ids_rank, params_rank)) if ids_static and params_static
            else array_ops.range(ids_rank, params_rank))
    return clip_ops.clip_by_norm(embeddings, max_norm, axes=axes)


def _div_assignments(params, flat_ids, n):
    """"div": shard p holds a block of consecutive ids, the first ``extras`` blocks one id longer."""
    total = Dimension(params[0].shape.sizes[0] if params[0].shape.sizes else None)
    for p in params[1:]:
        total += Dimension(p.shape.sizes[0] if p.shape.sizes else None)
    if total.value:
        num_total_ids = array_ops.constant(total.value, flat_ids.dtype)
    else:
        sizes = []
        for p in params:
            dim = p.shape.sizes[0] if p.shape.sizes else None
            if dim is None:
                with colocate_with(p.op):
                    dim = array_ops.shape(p)[0]
            sizes.append(dim)
        num_total_ids = math_ops.reduce_sum(math_ops.cast(array_ops.stack(sizes), flat_ids.dtype))
    ids_per_partition = num_total_ids // n
    extras = num_total_ids % n
    p_assignments = math_ops.maximum(flat_ids // (ids_per_partition + 1), (flat_ids - extras) // ids_per_partition)
    new_ids = array_ops.where(p_assignments < extras, flat_ids % (ids_per_partition + 1),
                              (flat_ids - extras) % ids_per_partition)
    return p_assignments, new_ids
