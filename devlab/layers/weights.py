"""A legacy layer's variable, as tf_keras's ``legacy_tf_layers`` ``add_weight`` makes it: through
``tf.get_variable`` in the layer's scope (so a scope's custom getter, caching device, partitioner
and regularizer apply), its own regularizer applied by the layer, not by get_variable: once, for a
new variable, in ``<name>/Regularizer`` (not beside the variable), the loss collected in
REGULARIZATION_LOSSES. Constraints are not implemented (TF applies them after each update)."""
from ..framework.graph import get_default_graph
from ..framework.graph_keys import GraphKeys
from ..framework.scopes import name_scope
from ..api.variable_scope import get_variable
from ..unimplemented import reject


def add_weight(api, name, shape, initializer=None, regularizer=None, constraint=None, trainable=True, **kw):
    """The variable ``name`` of the layer ``api`` (``tf.layers.dense``...), with its regularizer's loss."""
    reject(api, **{name + "_constraint": (constraint, None)})
    graph = get_default_graph()
    existing = set(graph.variable_store)
    var = get_variable(name, shape, initializer=initializer, trainable=trainable, **kw)
    if regularizer is not None and var.op.name not in existing:
        with name_scope(name + "/Regularizer"):
            loss = regularizer(var)
        if loss is not None:
            graph.add_to_collection(GraphKeys.REGULARIZATION_LOSSES, loss)
    return var
