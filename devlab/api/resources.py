"""Resources (TF's tables, queues, resource handles that need creating) in the ``RESOURCES`` and
``LOCAL_RESOURCES`` collections, and the op that creates them all. devlab makes none itself, so
``initialize_resources`` is usually one NoOp: TF's Scaffold still builds it (``init_1``...)."""
from ..framework.graph import get_default_graph
from ..framework.graph_keys import GraphKeys
from .control_flow_ops import group, no_op


def shared_resources():
    return get_default_graph().get_collection(GraphKeys.RESOURCES)


def local_resources():
    return get_default_graph().get_collection(GraphKeys.LOCAL_RESOURCES)


def initialize_resources(resource_list, name="init"):
    """One op that creates every resource (a NoOp named ``name`` when there are none)."""
    if resource_list:
        return group(*[r.create for r in resource_list], name=name)
    return no_op(name=name)
