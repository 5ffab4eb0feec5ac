"""``variable_scope`` and ``get_variable``: variables found by name, created once, then reused."""
import contextlib

from ..framework import dtypes
from ..framework.graph import get_default_graph
from ..framework.scopes import name_scope
from . import init_ops
from .variables import Variable

AUTO_REUSE = "AUTO_REUSE"


class VariableScope:
    """A prefix for variable names, with the reuse flag and default initializer inside it."""

    def __init__(self, name, reuse=None, initializer=None, name_scope=""):
        self.name = name
        self.reuse = reuse
        self.initializer = initializer
        self.original_name_scope = name_scope

    def __repr__(self):
        return f"<VariableScope {self.name!r} reuse={self.reuse}>"


def get_variable_scope():
    stack = get_default_graph().variable_scope_stack
    return stack[-1] if stack else VariableScope("")


@contextlib.contextmanager
def variable_scope(name_or_scope=None, default_name=None, values=None, initializer=None, reuse=None,
                   dtype=None, auxiliary_name_scope=True, **unused):
    """Opens a variable scope (and a name scope of the same name)."""
    graph = get_default_graph()
    parent = get_variable_scope()
    if isinstance(name_or_scope, VariableScope):
        full, ns_name = name_or_scope.name, name_or_scope.original_name_scope or None
        reuse = True if reuse is None and name_or_scope.reuse is True else reuse
    else:
        name = name_or_scope
        if name is None:
            if default_name is None:
                raise TypeError("If default_name is None then name_or_scope is required")
            name = _unique_scope_name(graph, parent, default_name)
        full = f"{parent.name}/{name}" if parent.name else name
        ns_name = name
    if parent.reuse is True and reuse is None:
        reuse = True
    with contextlib.ExitStack() as stack:
        ns = stack.enter_context(name_scope(ns_name)) if auxiliary_name_scope else graph.get_name_scope()
        scope = VariableScope(full, reuse, initializer or parent.initializer, ns)
        graph.variable_scope_stack.append(scope)
        try:
            yield scope
        finally:
            graph.variable_scope_stack.pop()


def _unique_scope_name(graph, parent, base):
    prefix = f"{parent.name}/" if parent.name else ""
    used = {k.split("/")[len(prefix.split("/")) - 1] for k in graph.variable_store if k.startswith(prefix)}
    name, i = base, 0
    while name in used:
        i += 1
        name = f"{base}_{i}"
    return name


def get_variable(name, shape=None, dtype=dtypes.float32, initializer=None, regularizer=None,
                 trainable=True, collections=None, caching_device=None, validate_shape=True, **unused):
    """The variable ``<scope>/<name>``: created on first use, returned again when reuse is on."""
    graph = get_default_graph()
    scope = get_variable_scope()
    full = f"{scope.name}/{name}" if scope.name else name
    if full in graph.variable_store:
        if scope.reuse in (True, AUTO_REUSE):
            return graph.variable_store[full]
        raise ValueError(f"Variable {full} already exists, disallowed. Did you mean to set reuse=True "
                         "or reuse=tf.AUTO_REUSE in VarScope?")
    if scope.reuse is True:
        raise ValueError(f"Variable {full} does not exist, or was not created with tf.get_variable(). "
                         "Did you mean to set reuse=tf.AUTO_REUSE in VarScope?")
    dtype = dtypes.as_dtype(dtype)
    init = initializer or scope.initializer
    if init is None:
        init = init_ops.GlorotUniform() if dtype.is_floating else init_ops.Zeros()
    if isinstance(init, type):
        init = init()
    if callable(init):
        if shape is None:
            raise ValueError(f"Shape of a new variable ({full}) must be fully defined, but instead was None.")
        initial = lambda: init(list(shape), dtype=dtype)  # noqa: E731 - built under the variable's scope
    else:
        initial, dtype = init, None
    with name_scope(None):
        var = Variable(initial, trainable=trainable, collections=collections, name=full, dtype=dtype,
                       caching_device=caching_device, validate_shape=validate_shape)
    graph.variable_store[full] = var
    if regularizer is not None:
        from ..framework.graph_keys import GraphKeys
        with name_scope(f"{full}/Regularizer/"):
            loss = regularizer(var)
        if loss is not None:
            graph.add_to_collection(GraphKeys.REGULARIZATION_LOSSES, loss)
    return var
