"""``tf.nn.embedding_lookup``: rows of an embedding table, gathered where the table lives.

The lookup is a ``GatherV2`` colocated with the table (a table pinned to the CPU is read there,
and only the rows looked up cross to the device that uses them), followed by an ``Identity``
outside that colocation, so what comes after is placed by its own scopes. Its gradient is the
``IndexedSlices`` of ``tf.gather``: only the rows looked up get an update.
"""
from ..framework.scopes import colocate_with, name_scope
from .array_ops import gather, identity
from .build import convert_to_tensor


def embedding_lookup(params, ids, partition_strategy="mod", name=None, validate_indices=True, max_norm=None):
    """The rows ``ids`` of the table ``params`` (a variable, a tensor, or a list of one)."""
    if params is None:
        raise ValueError("params must be specified")
    if isinstance(params, (list, tuple)) and not params:
        raise ValueError("Length of params is currently 0. Need at least one param.")
    params = list(params) if isinstance(params, (list, tuple)) else [params]
    if len(params) > 1:
        raise NotImplementedError("devlab's embedding_lookup takes one table: a table split over several "
                                  "variables (DynamicPartition, DynamicStitch) is not in devlab yet")
    if max_norm is not None:
        raise NotImplementedError("devlab's embedding_lookup has no max_norm")
    with name_scope(name, "embedding_lookup", params + [ids]) as scope:
        table = convert_to_tensor(params[0], name="params_0")
        ids = convert_to_tensor(ids, name="ids")
        with colocate_with(table.op):
            result = gather(table, ids, name=scope)
        return identity(result)
