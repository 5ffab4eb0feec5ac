"""``tables_initializer``: the op that initializes every lookup table of the graph (the ops in the
``TABLE_INITIALIZERS`` collection). devlab has no tables, so this is a NoOp named
``init_all_tables``, as TF builds it for a graph without tables (Supervisor's local init op)."""
from ..framework.graph import get_default_graph
from ..framework.graph_keys import GraphKeys
from .control_flow_ops import group, no_op


def tables_initializer(name="init_all_tables"):
    initializers = get_default_graph().get_collection(GraphKeys.TABLE_INITIALIZERS)
    if initializers:
        return group(*initializers, name=name)
    return no_op(name=name)


initialize_all_tables = tables_initializer
