"""``devlab.explain(op)``: the placement reasons for an op, from the latest session on its graph
(or, if none ran yet, from placing the graph on a fresh default session's devices)."""
import weakref

from . import events
from .session import Session

_latest = weakref.WeakValueDictionary()  # id(graph) -> the last session created on it


def _track(event):
    if isinstance(event, events.SessionCreated):
        _latest[id(event.session.graph)] = event.session


events.add_listener(_track)


def explain(op, session=None):
    """Why ``op`` is (or would be) on its device: scopes, colocation, kernels, fallbacks."""
    graph = getattr(op, "graph", None)
    session = session or _latest.get(id(graph))
    if session is None or session.graph is not graph:
        session = Session(graph=graph)
    return session.explain(op)
