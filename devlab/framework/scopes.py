"""The module-level scopes users write: ``tf.name_scope``, ``tf.device``, ``tf.colocate_with``,
``tf.control_dependencies``. Each forwards to the default graph (or the graph of ``values``)."""
from . import graph as _graph
from .graph import get_default_graph, pop_default, push_default
from .tensor import Tensor


def _graph_element(v):
    """The tensor or operation ``v`` stands for in a graph (TF's ``_as_graph_element``), or None."""
    if type(v) is Tensor:
        return v
    if hasattr(v, "_as_graph_element"):
        v = v._as_graph_element()
    if isinstance(v, Tensor) or (hasattr(v, "graph") and hasattr(v, "type")):
        return v
    return None


def _graph_of(values):
    """The graph of the first graph element in ``values`` (else the default graph); every other
    element must be from that graph too (TF's ``_get_graph_from_inputs``)."""
    first = None
    for v in values or ():
        element = _graph_element(v)
        if element is None:
            continue
        if first is None:
            first = element
        elif element.graph is not first.graph:
            raise ValueError(f"{element} must be from the same graph as {first} "
                             f"(graphs are {element.graph} and {first.graph}).")
    return get_default_graph() if first is None else first.graph


class name_scope:  # noqa: N801 - TF's name for a context manager
    """TF1's ``name_scope``: ``name`` or else ``default_name``, uniquified in the current scope.

    With ``values``, the scope opens in (and makes default) the graph those tensors belong to.
    """

    __slots__ = ("name", "values", "graph", "old", "pushed")

    def __init__(self, name, default_name=None, values=None, skip_on_eager=True):
        del skip_on_eager  # TF's name_scope_v1 argument: it only matters when executing eagerly
        if not (default_name is None or isinstance(default_name, str)):
            raise TypeError(f"`default_name` type ({type(default_name)}) is not a string type. You likely "
                            "meant to pass this into the `values` kwarg.")
        if name is None and default_name is None and values is not None:
            raise ValueError(f"At least one of name ({name}) and default_name ({default_name}) must be provided.")
        self.name = default_name if name is None else name
        self.values = values

    def __enter__(self):
        graph = _graph_of(self.values) if self.values else get_default_graph()
        self.pushed = graph is not get_default_graph()
        if self.pushed:
            push_default(graph)
        self.graph = graph
        scope, self.old = graph._enter_name_scope(self.name)
        return scope

    def __exit__(self, *exc):
        self.graph._scopes.name_stack = self.old
        if self.pushed:
            pop_default()
        return False


class name_scope_v2:  # noqa: N801 - TF's name for tf.name_scope in TF 2.x
    """TF 2.x's ``name_scope(name)``: the default graph's ``name_scope`` at each ``with`` (the
    same object may be entered again, nested or later)."""

    def __init__(self, name):
        if not isinstance(name, str):
            raise ValueError("name for name_scope must be a string.")
        self._name = name
        self._exit_fns = []

    @property
    def name(self):
        return self._name

    def __enter__(self):
        scope = get_default_graph().name_scope(self._name)
        scope_name = scope.__enter__()
        self._exit_fns.append(scope.__exit__)
        return scope_name

    def __exit__(self, *exc):
        self._exit_fns.pop()(*exc)
        return False


def get_name_scope():
    """The default graph's current name scope, without a trailing '/' (TF's ``ops.get_name_scope``)."""
    return get_default_graph().get_name_scope()


def device(device_name_or_function):
    """Places the ops created inside on a device: a string, a DeviceSpec, a function of the op,
    or None (which clears every enclosing device scope)."""
    return get_default_graph().device(device_name_or_function)


def colocate_with(op, ignore_existing=False):
    """Ops created inside go where ``op`` goes (their ``_class`` attr names its group)."""
    return get_default_graph().colocate_with(op, ignore_existing)


def control_dependencies(control_inputs):
    """Ops created inside run only after ``control_inputs`` ran."""
    return get_default_graph().control_dependencies(control_inputs)


init_scope = _graph.init_scope  # tf.init_scope: lives beside the default-graph records it reads
