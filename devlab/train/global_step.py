"""The global step: an int64 variable counting training steps, in the GLOBAL_STEP collection."""
from ..framework import dtypes
from ..framework.graph import get_default_graph
from ..framework.graph_keys import GraphKeys
from ..framework.scopes import name_scope
from ..ops import init_ops
from ..ops.variable_scope import get_variable


def get_global_step(graph=None):
    graph = graph or get_default_graph()
    found = graph.get_collection(GraphKeys.GLOBAL_STEP)
    return found[0] if found else None


def create_global_step(graph=None):
    """An int64 scalar ``global_step``, made with ``get_variable`` and a zeros initializer as TF
    makes it (so its initial value is ``global_step/Initializer/zeros``)."""
    graph = graph or get_default_graph()
    if get_global_step(graph) is not None:
        raise ValueError('"global_step" already exists.')
    with graph.as_default(), name_scope(None):
        return get_variable(GraphKeys.GLOBAL_STEP, shape=[], dtype=dtypes.int64, initializer=init_ops.Zeros(),
                            trainable=False, collections=[GraphKeys.GLOBAL_VARIABLES, GraphKeys.GLOBAL_STEP])


def get_or_create_global_step(graph=None):
    return get_global_step(graph) or create_global_step(graph)
