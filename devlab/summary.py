"""``tf.summary.scalar``: a CPU-only op, as TensorFlow's summary ops are."""
from .framework.graph_keys import GraphKeys
from .framework.scopes import name_scope
from .ops.array_ops import constant
from .ops.build import apply_op_output, convert_to_tensor


def scalar(name, tensor, collections=None, family=None):
    """A ScalarSummary of ``tensor`` tagged ``name``, added to the SUMMARIES collection."""
    with name_scope(name, None, [tensor]) as scope:
        tag = constant(scope[:-1], name="tags")
        out = apply_op_output("ScalarSummary", [tag, convert_to_tensor(tensor)], None, scope)
    out.graph.add_to_collections(collections or [GraphKeys.SUMMARIES], out)
    return out
