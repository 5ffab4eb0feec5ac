"""``Graph``: the ops of a program, their names, collections and the scopes active while building.

The graph records; it never runs. Each op is created through ``create_op``, which names it,
wires its inputs, adds control dependencies, and decides its *requested* device from the
device and colocation stacks (see ``device_stack.py``).
"""
import contextlib
import re
import threading

from . import attr_value, device_stack
from .dtypes import DType
from .indexed_slices import IndexedSlices
from .operation import Operation
from .tensor import Tensor
from .traceable import user_location

VALID_OP_NAME = re.compile(r"^[A-Za-z0-9.][A-Za-z0-9_.\\/>-]*$")  # TF's op names
_VALID_SCOPE_NAME = re.compile(r"^[A-Za-z0-9_.\\/>-]*$")


class _Scopes(threading.local):
    """The per-graph (or per-thread, after ``switch_to_thread_local``) building state."""

    def __init__(self, shared=None):
        self.name_stack = shared.name_stack if shared else ""
        self.device_stack = list(shared.device_stack) if shared else []
        self.colocation_stack = list(shared.colocation_stack) if shared else []
        self.control_stack = list(shared.control_stack) if shared else []
        self.variable_scope_stack = list(shared.variable_scope_stack) if shared else []
        self.variable_creator_stack = list(shared.variable_creator_stack) if shared else []
        self.control_flow_context = shared.control_flow_context if shared else None


class _ControlScope:
    """One ``control_dependencies`` block: its control inputs and the ops created inside it."""

    def __init__(self, control_inputs):
        self.control_inputs = control_inputs
        self.seen = set()


class Graph:
    """A TensorFlow graph: ops in creation order, unique names, collections and building scopes."""

    def __init__(self):
        self._ops = []
        self._by_name = {}
        self._names_in_use = {}
        self._collections = {}
        self._scopes = _Scopes()
        self._thread_local = False
        self._finalized = False
        self.seed = None
        self.variable_store = {}  # get_variable's variables by full name
        self.partitioned_variable_store = {}  # get_variable's partitioned variables by full name
        self.root_variable_scope = None  # the VariableScope "" (made on first use, kept: it has setters)
        self._unfetchable = set()  # ops inside tf.cond branches and loops: not fetchable, as in TF
        self._unfeedable = set()
        self._gradient_override_map = {}  # op type -> the type whose gradient its new ops take
        self._attr_scope_map = {}  # attr name -> AttrValue (or a function of the NodeDef) for new ops
        self._container = ""  # the resource container of new stateful ops (Graph.container)
        self._building_function = False  # a function's graph: init_scope lifts ops out of it
        self._mistyped_inputs = {}  # op -> {input index: expected dtype}, after an _update_input of another dtype
        self._default_original_op = None  # the forward op whose gradient is being built (TF's)
        self._variable_scope_counts = threading.local()
        self.control_edges_added = 0  # control inputs added to existing ops: sessions re-plan when it grows

    # -- ops -----------------------------------------------------------------------------------
    def create_op(self, op_type, inputs, dtypes=None, input_types=None, name=None, attrs=None, op_def=None,
                  compute_shapes=True, compute_device=True):
        """Adds an op, with TF's signature. ``dtypes`` lists the outputs: dtypes as in TF (shapes
        unknown), or (dtype, shape) pairs. ``input_types``, when given, must match the inputs'
        dtypes (TF's check). ``name`` (default: the op type) is uniquified, except that a scope
        name ending in '/' is used as is. ``compute_device=False`` skips the device scopes."""
        if self._finalized:
            raise RuntimeError("Graph is finalized and cannot be modified.")
        if op_def is not None:
            raise NotImplementedError("Graph.create_op: devlab does not take an op_def (its ops come from its "
                                      "op table); leave op_def=None")
        name = name or op_type
        inputs = list(inputs)
        for t in inputs:
            if t.op.graph is not self:
                raise ValueError(f"Tensor {t.name} must be from the same graph as the op {name!r}.")
        if input_types is not None:
            actual = [t.dtype for t in inputs]
            # a ref input may feed a non-ref type; a ref type needs a ref input (TF's is_compatible_with)
            if len(input_types) != len(actual) or any(want != got and want != got.base_dtype
                                                      for want, got in zip(input_types, actual)):
                raise TypeError(f"In op '{name}', input types ({actual}) are not compatible with expected "
                                f"types ({list(input_types)})")
        output_specs = [(s, None) if isinstance(s, DType) else s for s in dtypes or ()]
        name = name[:-1] if name[-1:] == "/" else self.unique_name(name)
        scopes = self._scopes
        control_stack = scopes.control_stack
        control = self._control_inputs_for([t.op for t in inputs]) if control_stack else ()
        op = Operation(self, name, op_type, inputs, output_specs, attrs or {}, control, user_location())
        op._original_op = self._default_original_op
        if self._attr_scope_map:
            self._apply_attr_scope(op)
        if self._container and op.attrs.get("container", b"x") in (b"", ""):  # a stateful op, no container
            op._set_attr("container", self._container.encode())
        if op_type in self._gradient_override_map:
            op._set_attr("_gradient_op_type", self._gradient_override_map[op_type].encode())
        op.id = len(self._ops)
        self._ops.append(op)
        self._by_name[name] = op
        for scope in control_stack:
            scope.seen.add(op)
        if scopes.device_stack and compute_device:
            device_stack.apply_device_stack(op, scopes.device_stack)
        if scopes.colocation_stack:
            device_stack.apply_colocation_stack(op, scopes.colocation_stack)
        op.control_flow_context = scopes.control_flow_context
        for t in inputs:  # a tensor made in a while loop may be read only from that loop (TF's check)
            if t.op.control_flow_context is not None:
                t.op.control_flow_context.check_consumer(op, t.op)
        if scopes.control_flow_context is not None:  # inside tf.cond / tf.while_loop: the context
            scopes.control_flow_context.add_op(op)  # may switch or enter its inputs
        return op

    @contextlib.contextmanager
    def container(self, container_name):
        """Stateful ops created inside (variables, queues, readers: the ops with a ``container``
        attr) keep their resources in ``container_name`` unless they name one; yields the name."""
        original = self._container
        self._container = container_name
        try:
            yield self._container
        finally:
            self._container = original

    @contextlib.contextmanager
    def _attr_scope(self, attr_map):
        """TF's private scope: ops created inside get these attrs ({name: AttrValue, a function of
        the op's NodeDef returning one, or None to lift an outer scope's}), unless they have them."""
        message = "attr_map must be a dictionary mapping strings to AttrValue protocol buffers"
        if not isinstance(attr_map, dict):
            raise TypeError(message)
        saved = {}
        for name, attr in attr_map.items():
            if not (isinstance(name, str) and (attr is None or attr_value.is_attr_value(attr) or callable(attr))):
                raise TypeError(message + " or callables that emit AttrValue protocol buffers")
            if name in self._attr_scope_map:
                saved[name] = self._attr_scope_map[name]
            if attr is None:
                del self._attr_scope_map[name]  # TF's KeyError when there is nothing to lift
            else:
                self._attr_scope_map[name] = attr
        try:
            yield
        finally:
            for name in attr_map:
                if name in saved:
                    self._attr_scope_map[name] = saved[name]
                else:
                    self._attr_scope_map.pop(name, None)

    def _apply_attr_scope(self, op):
        for key, value in self._attr_scope_map.items():
            if key in op.attrs:
                continue
            if callable(value):
                value = value(op.node_def)
                if not (value is None or attr_value.is_attr_value(value)):
                    raise TypeError(f"Callable for scope map key '{key}' must return either None or an AttrValue "
                                    f"protocol buffer; but it returned: {value}")
            if value:
                op._set_attr(key, value)

    @contextlib.contextmanager
    def gradient_override_map(self, op_type_map):
        """Ops of the mapped types built inside take the gradient registered under the mapped name
        (their ``_gradient_op_type`` attr); the previous mapping is restored on exit."""
        if not isinstance(op_type_map, dict) or not all(isinstance(k, str) and isinstance(v, str)
                                                        for k, v in op_type_map.items()):
            raise TypeError("op_type_map must be a dictionary mapping strings to strings")
        saved = {k: self._gradient_override_map[k] for k in op_type_map if k in self._gradient_override_map}
        self._gradient_override_map.update(op_type_map)
        try:
            yield
        finally:
            for k in op_type_map:
                if k in saved:
                    self._gradient_override_map[k] = saved[k]
                else:
                    del self._gradient_override_map[k]

    def prevent_feeding(self, tensor):
        """Marks ``tensor`` as not feedable."""
        self._prevent_feeding(tensor)

    def prevent_fetching(self, op):
        """Marks ``op`` as not fetchable."""
        self._prevent_fetching(op)

    @property
    def collections(self):
        """The names of the collections this graph holds."""
        return list(self._collections)

    def _prevent_fetching(self, op):
        self._unfetchable.add(op)

    def _prevent_feeding(self, tensor):
        self._unfeedable.add(tensor)

    def is_fetchable(self, tensor_or_op):
        if not self._unfetchable:
            return True  # the common case, without looking for an ``op`` an Operation lacks
        op = getattr(tensor_or_op, "op", tensor_or_op)
        return op not in self._unfetchable

    def is_feedable(self, tensor):
        return tensor not in self._unfeedable

    def _get_control_flow_context(self):
        """The tf.cond branch or tf.while_loop body being built, or None."""
        return self._scopes.control_flow_context

    def _set_control_flow_context(self, context):
        self._scopes.control_flow_context = context

    def get_operations(self):
        return list(self._ops)

    @property
    def operations(self):
        return list(self._ops)

    def get_operation_by_name(self, name):
        if name not in self._by_name:
            raise KeyError(f"The name '{name}' refers to an Operation not in the graph.")
        return self._by_name[name]

    def get_tensor_by_name(self, name):
        if ":" not in name:
            raise ValueError(f"The name '{name}' looks a like an Operation name, not a Tensor. "
                             "Tensor names must be of the form \"<op_name>:<output_index>\".")
        op_name, index = name.rsplit(":", 1)
        if op_name not in self._by_name:
            raise KeyError(f"The name '{name}' refers to a Tensor which does not exist. "
                           f"The operation, '{op_name}', does not exist in the graph.")
        outputs = self._by_name[op_name].outputs
        if int(index) >= len(outputs):
            raise KeyError(f"The name '{name}' refers to a Tensor which does not exist. The operation, "
                           f"'{op_name}', exists but only has {len(outputs)} outputs.")
        return outputs[int(index)]

    def as_graph_element(self, obj, allow_tensor=True, allow_operation=True):
        """Resolves a Tensor, Operation, Variable-like or name to an element of this graph."""
        if hasattr(obj, "_as_graph_element"):
            obj = obj._as_graph_element()
        if isinstance(obj, str):
            if ":" in obj and allow_tensor:
                return self.get_tensor_by_name(obj)
            if allow_operation:
                return self.get_operation_by_name(obj)
        if isinstance(obj, (Tensor, Operation)):
            if obj.graph is not self:
                kind = "Tensor" if isinstance(obj, Tensor) else "Operation"
                raise ValueError(f"{kind} {obj} is not an element of this graph.")
            return obj
        raise TypeError(f"Can not convert a {type(obj).__name__} into a Tensor or Operation.")

    def finalize(self):
        """No op may be added after this (TF's Supervisor and MonitoredSession finalize the graph)."""
        self._finalized = True

    def _unsafe_unfinalize(self):
        """Ops may be added again (a MonitoredSession does this on close if it finalized the graph)."""
        self._finalized = False

    @property
    def building_function(self):
        """Whether this graph is a function's body (TF's; devlab's own graphs never are)."""
        return self._building_function

    @property
    def finalized(self):
        return self._finalized

    @property
    def version(self):
        """The number of ops: a session re-places the graph when it has grown."""
        return len(self._ops)

    # -- names -----------------------------------------------------------------------------
    def unique_name(self, name, mark_as_used=True):
        """``name`` inside the current name scope, with ``_1``, ``_2``... appended if taken.

        TensorFlow compares names case-insensitively when it checks whether one is in use.
        """
        if self._scopes.name_stack:
            name = self._scopes.name_stack + "/" + name
        key = name.lower()
        i = self._names_in_use.get(key, 0)
        if mark_as_used:
            self._names_in_use[key] = i + 1
        if i > 0:
            base = key
            while key in self._names_in_use:
                key = f"{base}_{i}"
                i += 1
            if mark_as_used:
                self._names_in_use[key] = 1
            name = f"{name}_{i - 1}"
        return name

    @contextlib.contextmanager
    def _original_op(self, op):
        """Ops made inside record ``op`` as their ``_original_op`` (tf.gradients: the forward op)."""
        old, self._default_original_op = self._default_original_op, op
        try:
            yield
        finally:
            self._default_original_op = old

    def get_name_scope(self):
        return self._scopes.name_stack

    def name_scope(self, name):
        """Opens scope ``name`` (uniquified); a name ending in '/' re-enters that exact scope."""
        return _NameScope(self, name)

    def _enter_name_scope(self, name):
        """Sets the name stack for ``name``; returns (the scope string handed to the user, old stack)."""
        scopes = self._scopes
        old = scopes.name_stack
        if name and not (_VALID_SCOPE_NAME if old else VALID_OP_NAME).match(name):
            raise ValueError(f"'{name}' is not a valid scope name")
        if not name:
            new, returned = "", ""
        elif name[-1] == "/":
            new, returned = name[:-1], name
        else:
            new = self.unique_name(name)
            returned = new + "/"
        scopes.name_stack = new
        return returned, old

    # -- device and colocation scopes --------------------------------------------------------
    def device(self, device_name_or_function):
        """Pushes a device string, DeviceSpec, function or None for the ops created inside."""
        return _DeviceScopeContext(self, device_stack.scope_for(device_name_or_function, *user_location()))

    @contextlib.contextmanager
    def colocate_with(self, op, ignore_existing=False):
        """Ops created inside share ``op``'s device and colocation group; outer device scopes
        are hidden. ``ignore_existing`` also hides outer colocation scopes."""
        if op is None and not ignore_existing:
            raise ValueError("Trying to reset colocation (op is None) but ignore_existing is not True")
        op = _op_to_colocate_with(op)
        filename, lineno = user_location()
        saved_devices = self._scopes.device_stack
        saved_colocation = self._scopes.colocation_stack
        self._scopes.device_stack = []
        if ignore_existing:
            self._scopes.colocation_stack = []
        if op is not None:
            self._scopes.colocation_stack = self._scopes.colocation_stack + [(op, filename, lineno)]
        try:
            yield
        finally:
            self._scopes.device_stack = saved_devices
            self._scopes.colocation_stack = saved_colocation

    @property
    def variable_scope_stack(self):
        return self._scopes.variable_scope_stack

    @property
    def variable_scopes_count(self):
        """How often each variable scope name was opened, for ``default_name`` uniquification.
        Per thread, as TF's ``_VariableScopeStore``: a new thread starts from none."""
        local = self._variable_scope_counts
        if not hasattr(local, "counts"):
            local.counts = {}
        return local.counts

    @variable_scopes_count.setter
    def variable_scopes_count(self, counts):
        self._variable_scope_counts.counts = counts

    @property
    def _variable_creator_stack(self):
        """(priority, creator) pairs that intercept ``Variable(...)`` (MirroredStrategy's scope pushes
        one); ``variable_creator_scope`` replaces the list, so code may save and restore it, as TF's."""
        return self._scopes.variable_creator_stack

    @_variable_creator_stack.setter
    def _variable_creator_stack(self, stack):
        self._scopes.variable_creator_stack = stack

    def capture_scopes(self):
        """A copy of this thread's building state, to re-enter in another thread."""
        return _Scopes(self._scopes)

    def enter_captured_scopes(self, captured):
        """Makes this thread's building state a copy of ``captured`` (after thread-local)."""
        copy = _Scopes(captured)
        for name in ("name_stack", "device_stack", "colocation_stack", "control_stack",
                     "variable_scope_stack", "variable_creator_stack", "control_flow_context"):
            setattr(self._scopes, name, getattr(copy, name))

    def switch_to_thread_local(self):
        """Makes the scope stacks thread-local (each thread starts from the current state)."""
        if not self._thread_local:
            shared = self._scopes
            self._scopes = _ThreadScopes(shared)
            self._thread_local = True

    # -- control dependencies --------------------------------------------------------------
    @contextlib.contextmanager
    def control_dependencies(self, control_inputs):
        """Ops created inside run after ``control_inputs``; None clears outer blocks and, as in
        TF, the tf.cond / tf.while_loop being built (the ops are made outside it)."""
        if control_inputs is None:
            saved, saved_context = self._scopes.control_stack, self._scopes.control_flow_context
            self._scopes.control_stack = []
            self._scopes.control_flow_context = None
            try:
                yield
            finally:
                self._scopes.control_stack = saved
                self._scopes.control_flow_context = saved_context
            return
        # As TF: an op already a control input of an enclosing block is not repeated, and each
        # control input is marked with ``_has_manual_control_dependencies`` (TF 2.x does so).
        current = {c for scope in self._scopes.control_stack for c in scope.control_inputs}
        ops = []
        for c in control_inputs:
            c = self._control_input_op(c)
            if c not in current:
                current.add(c)
                ops.append(c)
                c._set_attr("_has_manual_control_dependencies", True)
        scope = _ControlScope(ops)
        self._scopes.control_stack.append(scope)
        try:
            yield
        finally:
            self._scopes.control_stack.remove(scope)

    def _control_input_op(self, c):
        """``c`` (an Operation, Tensor, IndexedSlices or Variable) as an op of this graph, with TF's errors: a
        control input from another graph is rejected here, before any op depends on it."""
        if hasattr(c, "_handle") and hasattr(c, "op"):  # a resource variable: its op, never a read (TF's rule)
            c = c.op
        if hasattr(c, "_as_graph_element"):
            c = c._as_graph_element()
        if isinstance(c, IndexedSlices):  # TF: the op of its values
            c = c.op
        if isinstance(c, Tensor):
            if c.graph is not self:
                raise ValueError(f"Tensor {c} is not an element of this graph.")
            return c.op
        if not isinstance(c, Operation):
            raise TypeError(f"Can not convert a {type(c).__name__} into a Tensor or Operation.")
        if c.graph is not self:
            raise ValueError(f"Operation {c} is not an element of this graph.")
        return c

    def _check_added_control_input(self, op, c):
        """Checks ``c`` before ``op._add_control_input(c)``; a new edge makes sessions re-plan."""
        if not isinstance(c, Operation):
            raise TypeError(f"op must be an Operation: {c}")
        if c.graph is not op.graph:
            raise ValueError(f"{c} must be from the same graph as {op} (graphs are {c.graph} and {op.graph}).")
        self.control_edges_added += 1

    def _record_op_seen_by_control_dependencies(self, op):
        """Marks ``op`` as made inside the open control_dependencies blocks (its users need not wait)."""
        for scope in self._scopes.control_stack:
            scope.seen.add(op)

    def _control_inputs_for(self, input_ops):
        control = []
        for scope in self._scopes.control_stack:
            # An input created inside the block already depends on its control inputs.
            if any(op in scope.seen for op in input_ops):
                continue
            control.extend(c for c in scope.control_inputs if c not in input_ops and c not in control)
        return control

    # -- collections -------------------------------------------------------------------------
    def add_to_collection(self, name, value):
        self._collections.setdefault(name, []).append(value)

    def add_to_collections(self, names, value):
        for name in ([names] if isinstance(names, str) else set(names)):
            self.add_to_collection(name, value)

    def get_collection_ref(self, name):
        return self._collections.setdefault(name, [])

    def get_collection(self, name, scope=None):
        items = list(self._collections.get(name, []))
        if scope is None:
            return items
        pattern = re.compile(scope)
        return [x for x in items if hasattr(x, "name") and pattern.match(x.name)]

    def get_all_collection_keys(self):
        return [k for k, v in self._collections.items() if isinstance(k, str)]

    def clear_collection(self, name):
        self._collections.pop(name, None)

    # -- default graph -----------------------------------------------------------------------
    def as_default(self):
        """Makes this graph the default inside the block (in this thread)."""
        return _DefaultGraph(self)

    def __repr__(self):
        return f"<devlab.Graph with {len(self._ops)} ops>"


class _NameScope:
    """The context of ``Graph.name_scope``: sets the name stack, restores it on exit."""

    __slots__ = ("graph", "name", "old")

    def __init__(self, graph, name):
        self.graph, self.name = graph, name

    def __enter__(self):
        scope, self.old = self.graph._enter_name_scope(self.name)
        return scope

    def __exit__(self, *exc):
        self.graph._scopes.name_stack = self.old
        return False


class _DeviceScopeContext:
    """The context of ``Graph.device``: pushes one DeviceScope, pops it on exit."""

    __slots__ = ("graph", "scope")

    def __init__(self, graph, scope):
        self.graph, self.scope = graph, scope

    def __enter__(self):
        self.graph._scopes.device_stack.append(self.scope)

    def __exit__(self, *exc):
        stack = self.graph._scopes.device_stack
        if not stack or stack[-1] is not self.scope:
            raise RuntimeError("Exiting device scope without proper scope nesting.")
        stack.pop()
        return False


class _DefaultGraph:
    """The context of ``Graph.as_default``."""

    __slots__ = ("graph",)

    def __init__(self, graph):
        self.graph = graph

    def __enter__(self):
        push_default(self.graph)
        return self.graph

    def __exit__(self, *exc):
        pop_default()
        return False


class _ThreadScopes:
    """Scope stacks kept per thread, each new thread copying the state at the switch."""

    def __init__(self, shared):
        self._shared = shared
        self._local = threading.local()

    def _get(self):
        if not hasattr(self._local, "scopes"):
            self._local.scopes = _Scopes(self._shared)
        return self._local.scopes

    def __getattr__(self, name):
        return getattr(self._get(), name)

    def __setattr__(self, name, value):
        if name.startswith("_"):
            object.__setattr__(self, name, value)
        else:
            setattr(self._get(), name, value)


def _op_to_colocate_with(obj):
    if obj is None:
        return None
    if isinstance(getattr(obj, "handle", None), Tensor):  # a resource variable: its VarHandleOp (TF's rule)
        return obj.handle.op
    if hasattr(obj, "_as_graph_element"):
        obj = obj._as_graph_element()
    if isinstance(obj, Tensor):
        return obj.op
    if isinstance(obj, Operation):
        return obj
    raise TypeError(f"Can not colocate with a {type(obj).__name__}")


# -- the default-graph stack (per thread, over one global default graph) ------------------------
_global_default = [Graph()]
_local = threading.local()


def _default_graphs():
    try:
        return _local.stack
    except AttributeError:  # this thread's first graph scope
        _local.stack = []
        return _local.stack


def _device_stacks():
    """Per thread, beside the default-graph stack: the device stack (the list object itself,
    which later ``tf.device`` blocks grow in place) of each graph when it was made default. TF
    keeps the same record (``context_switches``) for ``init_scope``."""
    try:
        return _local.device_stacks
    except AttributeError:
        _local.device_stacks = []
        return _local.device_stacks


def push_default(graph):
    """Makes ``graph`` the default (``as_default``, and ``name_scope`` of another graph's tensors)."""
    _default_graphs().append(graph)
    _device_stacks().append(graph._scopes.device_stack)


def pop_default():
    _default_graphs().pop()
    _device_stacks().pop()


@contextlib.contextmanager
def init_scope():
    """TF's ``init_scope`` in graph mode: the ops made inside leave control-dependency blocks and
    tf.cond / while bodies, and are lifted out of graphs that are building a function
    (``graph._building_function``) into the innermost default graph that is not (else the global
    default graph), under the current name scope. They get the current device stack or, when
    that is empty (inside ``colocate_with``), the innermost non-empty one recorded when a graph
    was made default: by ``as_default()`` or a ``variable_scope``
    (``ops._get_outer_context_and_inner_device_stack``). That record is the stack object itself,
    which the ``tf.device`` blocks opened since have grown. So a ``tf.Variable`` made in
    ``colocate_with`` inside ``tf.device`` still takes that device when the graph was entered
    with ``as_default()`` before the ``tf.device``; on the global default graph, never entered,
    it takes none."""
    inner = get_default_graph()
    scope = inner.get_name_scope()
    stack = inner._scopes.device_stack
    graphs = _default_graphs()
    if not graphs:
        if inner._building_function:
            raise RuntimeError("The global graph is building a function.")
        outer = inner
    else:
        outer = _global_default[0]  # when every graph on the stack is building a function
        for graph, recorded in zip(reversed(graphs), reversed(_device_stacks())):
            stack = stack or recorded
            if not graph._building_function:
                outer = graph
                break
    with outer.as_default(), outer.name_scope(scope + "/" if scope else ""), outer.control_dependencies(None):
        saved = outer._scopes.device_stack
        outer._scopes.device_stack = stack
        try:
            yield
        finally:
            outer._scopes.device_stack = saved


class _DefaultGraphStack:
    """TF's ``ops._default_graph_stack``: ``stack`` is this thread's graphs made default (the global
    default graph is not on it)."""

    @property
    def stack(self):
        return _default_graphs()

    def _GetGlobalDefaultGraph(self):  # noqa: N802 - TF's name
        return _global_default[0]


_default_graph_stack = _DefaultGraphStack()


def container(container_name):
    """``tf.container``: ``Graph.container`` of the default graph."""
    return get_default_graph().container(container_name)


def get_default_graph():
    stack = _default_graphs()
    return stack[-1] if stack else _global_default[0]


def has_default_graph():
    """Whether a graph was made the default with ``as_default`` (TF's: the global one does not count)."""
    return len(_default_graphs()) >= 1


def get_current_name_scope():
    """The name scope new ops go into, without its trailing '/' (``tf.get_current_name_scope``)."""
    return get_default_graph().get_name_scope()


def strip_name_scope(name, export_scope):
    """``name`` without the leading scope ``export_scope`` (also after '^' or 'loc:@'), as TF's."""
    if not export_scope:
        return name
    export_scope = export_scope[:-1] if export_scope[-1] == "/" else export_scope
    return re.sub(r"([\^]|loc:@|^)" + export_scope + r"[\/]+(.*)", r"\1\2", _as_str(name), count=1)


def prepend_name_scope(name, import_scope):
    """``name`` under the scope ``import_scope`` (also after '^' or 'loc:@'), as TF's."""
    if not import_scope:
        return name
    import_scope = import_scope[:-1] if import_scope[-1] == "/" else import_scope
    return re.sub(r"([\^]|loc:@|^)(.*)", r"\1" + import_scope + r"/\2", _as_str(name))


def _as_str(name):
    return name.decode() if isinstance(name, bytes) else name


def reset_default_graph():
    """Replaces the global default graph with a new empty one."""
    if _default_graphs():
        raise AssertionError("Do not use tf.reset_default_graph() to clear nested graphs. If you need "
                             "a cleared graph, exit the nesting and create a new graph.")
    _global_default[0] = Graph()
