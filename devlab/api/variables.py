"""``Variable``: TF1's ref variable, built from the same four ops TensorFlow builds.

``tf.Variable(1.0, name="a")`` creates ``a/initial_value`` (Const), ``a`` (VariableV2, the
storage), ``a/Assign`` (the initializer, colocated with ``a`` because it takes ``a`` by
reference) and ``a/read`` (Identity, built under ``colocate_with(a)``). Reading a variable in
an expression reads ``a/read``; writing goes through the reference.
"""
import contextlib

from ..framework.composite_tensor import NativeObject
from ..framework.tensor import Reference, Tensor
from ..framework.graph import get_default_graph
from ..framework.graph_keys import GraphKeys
from ..framework.scopes import colocate_with, device, init_scope, name_scope
from ..framework.tensor_shape import TensorShape
from . import resource_variables_toggle, state_ops
from .array_ops import identity
from ..ops.build import apply_op_output, convert_to_tensor
from .control_flow_ops import group
from .partitioned_variables import SaveSliceInfo
from . import variable_def as variable_def_lib
from .variable_sync import (VariableAggregation, VariableAggregationV2, VariableSynchronization,  # noqa: F401
                            validate_synchronization_aggregation_trainable)
from ..unimplemented import argument


# The class ``Variable(..., use_resource=True)`` makes: resource_variable_ops.ResourceVariable, which
# builds on this module and so puts itself here when it is imported (devlab's __init__ imports it).
_RESOURCE_VARIABLE = []
_ARG_NAMES = ("initial_value", "trainable", "collections", "validate_shape", "caching_device", "name", "variable_def",
              "dtype", "expected_shape", "import_scope", "constraint", "use_resource", "synchronization",
              "aggregation", "shape")  # VariableV1's positional order


class _VariableMetaclass(type):
    """``Variable(...)`` goes through the variable creators (``variable_creator_scope``), which may
    build something else, such as a MirroredVariable, and makes a ResourceVariable when resource
    variables are asked for (TF's ``VariableMetaclass`` and ``default_variable_creator``)."""

    def __call__(cls, *args, **kwargs):
        if cls is not Variable:
            return super().__call__(*args, **kwargs)
        stack = get_default_graph()._variable_creator_stack
        if stack and not kwargs.pop("_skip_creators", False):
            return _call_creators(stack, args, kwargs)
        kwargs.pop("_skip_creators", None)
        if _uses_resource(dict(zip(_ARG_NAMES, args), **kwargs).get("use_resource")):
            return _make_resource_variable(args, kwargs)
        return super().__call__(*args, **kwargs)


class Variable(NativeObject, metaclass=_VariableMetaclass):
    """A mutable tensor whose value lives in the session, on the device of its VariableV2 op."""

    def __init__(self, initial_value=None, trainable=None, collections=None, validate_shape=True,
                 caching_device=None, name=None, variable_def=None, dtype=None, expected_shape=None,
                 import_scope=None, constraint=None, use_resource=None, synchronization=None, aggregation=None,
                 shape=None, _skip_creators=False):
        # TF 2.21's VariableV1 arguments; ``expected_shape`` is deprecated and ignored by TF too, and
        # ``_skip_creators`` is read by the metaclass, as is ``use_resource``.
        del use_resource
        if variable_def is not None:  # the variable a VariableDef describes, its ops already in the graph
            if initial_value is not None:
                raise ValueError("variable_def and initial_value are mutually exclusive.")
            variable_def_lib.init_from_proto(self, variable_def, import_scope=import_scope)
            return
        if initial_value is None:
            raise ValueError("initial_value must be specified.")
        init_from_fn = callable(initial_value)
        if collections is None:
            collections = [GraphKeys.GLOBAL_VARIABLES]
        if not isinstance(collections, (list, tuple, set)):
            raise ValueError(f"collections argument to Variable constructor must be a list, tuple, or set. Got "
                             f"{collections} of type {type(collections)}")
        if constraint is not None and not callable(constraint):
            raise ValueError("The `constraint` argument must be a callable.")
        self._synchronization, self._aggregation, trainable = validate_synchronization_aggregation_trainable(
            synchronization, aggregation, trainable, name)
        self._constraint = constraint  # applied by the optimizers after each update
        self._caching_device = caching_device
        if trainable and GraphKeys.TRAINABLE_VARIABLES not in collections:
            collections = list(collections) + [GraphKeys.TRAINABLE_VARIABLES]
        graph = get_default_graph()
        self.trainable = trainable
        with init_scope(), name_scope(name, "Variable", [] if init_from_fn else [initial_value]) as scope:
            if init_from_fn:
                # TF builds a callable's ops unplaced but in the variable's colocation group
                # (an attr scope), unless a colocate_with around them already gave them a group.
                first = graph.version
                with name_scope("Initializer"), device(None):
                    initial = convert_to_tensor(initial_value(), name="initial_value", dtype=dtype)
                for op in graph.get_operations()[first:]:
                    if "_class" not in op.attrs:
                        op._set_attr("_class", [f"loc:@{scope[:-1]}".encode()])
            else:
                initial = convert_to_tensor(initial_value, name="initial_value", dtype=dtype)
                if initial.op.control_flow_context is not None:
                    raise ValueError(f"Initializer for variable {scope} is from inside a control-flow construct, such "
                                     "as a loop or conditional. When creating a variable inside a loop or "
                                     "conditional, use a lambda as the initializer.")
            if shape is not None:  # TF's rule: a given shape is the variable's, checked by the Assign
                shape = TensorShape(shape).sizes
                if shape is not None and None in shape:  # TF's VariableV2 kernel then fails at run time
                    raise argument("shape", "tf.Variable (a partly known shape)")
            else:
                shape = initial.shape.sizes if validate_shape else None
            self._variable = apply_op_output(
                "VariableV2", [], {"shape": shape, "dtype": initial.dtype.base_dtype,
                                   "container": b"", "shared_name": ""}, scope)
            if init_from_fn and "_class" not in self._variable.op.attrs:  # made inside that attr scope too
                self._variable.op._set_attr("_class", [f"loc:@{scope[:-1]}".encode()])
            self._initial_value = initial
            # If the initial value reads other variables, it reads their initialized_value() instead,
            # so this variable can be initialized before them (TF's guard, below).
            guarded = _try_guard_against_uninitialized_dependencies(scope[:-1], initial)
            self._initializer_op = state_ops.assign(self._variable, guarded, validate_shape=validate_shape,
                                                    name="Assign").op
            if caching_device is not None:
                with device(caching_device):
                    self._snapshot = identity(self._variable, name="read")
            else:
                with colocate_with(self._variable.op):
                    self._snapshot = identity(self._variable, name="read")
        graph.add_to_collections(collections, self)

    # -- what TF code reads ----------------------------------------------------------------------
    @property
    def name(self):
        return self._variable.name

    @property
    def op(self):
        return self._variable.op

    @property
    def _shared_name(self):
        return self.name[:self.name.index(":")]

    @property
    def device(self):
        return self._variable.device

    @property
    def dtype(self):
        return self._variable.dtype

    @property
    def shape(self):
        return self._variable.shape

    def get_shape(self):
        return self._variable.shape

    @property
    def graph(self):
        return self._variable.graph

    @property
    def initializer(self):
        return self._initializer_op

    @property
    def initial_value(self):
        return self._initial_value

    @property
    def constraint(self):
        """The function the optimizers apply to the variable after each update (None: none)."""
        return self._constraint

    @property
    def synchronization(self):
        return self._synchronization

    @property
    def aggregation(self):
        return self._aggregation

    @property
    def _distribute_strategy(self):
        return None  # a plain variable belongs to no distribution strategy

    def to_proto(self, export_scope=None):
        """TF's ``VariableDef`` of this variable (None when it is not under ``export_scope``)."""
        return variable_def_lib.to_proto(self, export_scope)

    @staticmethod
    def from_proto(variable_def, import_scope=None):
        """The Variable a ``VariableDef`` describes (its ops must be in the default graph)."""
        return Variable(variable_def=variable_def, import_scope=import_scope)

    def __iter__(self):
        from ..framework.errors import not_allowed_in_graph
        raise not_allowed_in_graph("Iterating over a symbolic `tf.Tensor`")

    def value(self):
        return self._snapshot

    def initialized_value(self):
        """The variable's value, or its initial value while it is not initialized: for initializing
        another variable from this one. Built as TF builds it, under ``init_scope``:
        ``cond(is_variable_initialized(v), v.read_value, lambda: v.initial_value)``."""
        from .control_flow import cond  # control_flow builds on array_ops, which builds on this module's peers
        with init_scope():
            return cond(state_ops.is_variable_initialized(self), self.read_value, lambda: self.initial_value)

    def read_value(self):
        return identity(self._variable, name="read")

    def _ref(self):
        return self._variable

    SaveSliceInfo = SaveSliceInfo
    _save_slice_info = None  # a shard of a partitioned variable: where it sits in the full one

    def _set_save_slice_info(self, save_slice_info):
        """Marks this variable a slice of a larger one (a Saver saves it under the full name)."""
        self._save_slice_info = save_slice_info

    def _get_save_slice_info(self):
        return self._save_slice_info

    def _as_graph_element(self):
        return self._variable

    def _to_tensor(self, as_ref=False):
        return self._variable if as_ref else self._snapshot

    # -- writes --------------------------------------------------------------------------------
    # ``read_value=False`` gives the op instead of the updated value, as TF's RefVariable
    def assign(self, value, use_locking=False, name=None, read_value=True):
        out = state_ops.assign(self._variable, value, use_locking=use_locking, name=name)
        return out if read_value else out.op

    def assign_add(self, delta, use_locking=False, name=None, read_value=True):
        out = state_ops.assign_add(self._variable, delta, use_locking=use_locking, name=name)
        return out if read_value else out.op

    def ref(self):
        """TF's hashable reference to this variable (``deref()`` gives it back)."""
        return Reference(self)

    experimental_ref = ref

    def count_up_to(self, limit):
        """TF's ``Variable.count_up_to``: ``tf.count_up_to`` of this variable."""
        return state_ops.count_up_to(self._variable, limit)

    def assign_sub(self, delta, use_locking=False, name=None, read_value=True):
        out = state_ops.assign_sub(self._variable, delta, use_locking=use_locking, name=name)
        return out if read_value else out.op

    def eval(self, session=None):
        return self._variable.eval(session=session)

    def load(self, value, session=None):
        """Sets the variable's value in ``session`` (default: the default session), checked as a feed
        of the initializer's value: TF's ValueError for a wrong shape, and for None."""
        from ..framework.default_session import get_default_session
        session = session or get_default_session()
        if session is None:
            raise ValueError("Either session argument should be provided or default session should be established")
        session.load_variable(self, value)

    def __repr__(self):
        return f"<tf.Variable '{self.name}' shape={TensorShape(self.shape)} dtype={self.dtype.name}>"

    def __hash__(self):
        return id(self)

    def __eq__(self, other):
        return self is other


VariableV1 = Variable
RefVariable = Variable


def global_variables(scope=None):
    return get_default_graph().get_collection(GraphKeys.GLOBAL_VARIABLES, scope)


def trainable_variables(scope=None):
    return get_default_graph().get_collection(GraphKeys.TRAINABLE_VARIABLES, scope)


def local_variables(scope=None):
    return get_default_graph().get_collection(GraphKeys.LOCAL_VARIABLES, scope)


def model_variables(scope=None):
    """The ``MODEL_VARIABLES`` collection: the variables a model is made of (slim-style helpers add
    them there), not counting optimizer slots or counters."""
    return get_default_graph().get_collection(GraphKeys.MODEL_VARIABLES, scope)


def moving_average_variables(scope=None):
    return get_default_graph().get_collection(GraphKeys.MOVING_AVERAGE_VARIABLES, scope)


def variables_initializer(var_list, name="init"):
    """One op that runs every variable's initializer."""
    if var_list:
        bad = next((v for v in var_list if not hasattr(v, "initializer")), None) if isinstance(var_list, (
            list, tuple, set)) else var_list
        if bad is not None:  # TF fails on ``v.initializer`` (AttributeError); devlab names the argument
            raise TypeError(f"var_list must hold variables, got {bad!r}")
        return group(*[v.initializer for v in var_list], name=name)
    from .control_flow_ops import no_op
    return no_op(name=name)


def global_variables_initializer():
    return variables_initializer(global_variables())


def local_variables_initializer():
    return variables_initializer(local_variables(), name="init")


initialize_all_variables = global_variables_initializer


def is_variable_initialized(variable):
    return state_ops.is_variable_initialized(variable)



def _from_ops(variable_op, initializer_op, snapshot, initial_value):
    """A Variable wrapping ops that already exist (used when a saved graph is loaded)."""
    var = Variable.__new__(Variable)
    var._variable = variable_op.outputs[0]
    var._initializer_op = initializer_op
    var._snapshot = snapshot
    var._initial_value = initial_value
    var.trainable = True
    var._synchronization, var._aggregation = VariableSynchronization.AUTO, VariableAggregation.NONE
    var._constraint = var._caching_device = None
    return var


Variable._from_ops = staticmethod(_from_ops)


def _try_guard_against_uninitialized_dependencies(name, initial_value):
    """``initial_value`` rebuilt so that every variable it reads is read through that variable's
    ``initialized_value()`` (TF's function of this name): the copies of the ops on the way are
    named ``<op>_<name>``; ops not downstream of a variable are shared. A value whose ops form a
    cycle (a while loop) is returned as it is, as TF does."""
    if not isinstance(initial_value, Tensor):
        raise TypeError(f"initial_value needs to be a Tensor: {initial_value}")
    if _has_cycle(initial_value.op):
        return initial_value
    cache = {}

    def tensor(t):
        op = cache.get(t.op)
        if op is None:
            op = cache[t.op] = rebuilt(t.op)
        return op.outputs[t.value_index]

    def rebuilt(op):
        if op.type in ("IsVariableInitialized", "VarIsInitializedOp", "ReadVariableOp", "If"):
            return op
        if op.type in ("Variable", "VariableV2", "VarHandleOp"):
            value = _initialized_value_of(op)
            return op if value is None else value.op
        inputs = [tensor(t) for t in op.inputs]
        if all(a is b for a, b in zip(inputs, op.inputs)):
            return op
        op_type = "Switch" if op.type == "RefSwitch" else op.type
        specs = [(t.dtype.base_dtype if op.type == "RefSwitch" else t.dtype, t.shape.sizes) for t in op.outputs]
        return op.graph.create_op(op_type, inputs, specs, name=f"{op.name}_{name}".replace(":", "_") + "/",
                                  attrs=op.attrs)

    return tensor(initial_value)


def _has_cycle(op):
    """Whether the ops ``op`` depends on (through inputs and control inputs) form a cycle: an
    iterative depth-first search, so a long chain does not exhaust Python's recursion limit."""
    started, finished = set(), set()
    stack = [(op, False)]
    while stack:
        node, leaving = stack.pop()
        if leaving:
            finished.add(node)
            continue
        if node in finished:
            continue
        if node in started:
            return True  # reached again while still on the path from ``op``
        started.add(node)
        stack.append((node, True))
        for dep in list(t.op for t in node.inputs) + list(node.control_inputs):
            if dep in started and dep not in finished:
                return True
            if dep not in finished:
                stack.append((dep, False))
    return False


def _initialized_value_of(variable_op):
    """The ``initialized_value()`` of the Variable whose storage is ``variable_op``, if it is known."""
    graph = variable_op.graph
    for key in (GraphKeys.GLOBAL_VARIABLES, GraphKeys.LOCAL_VARIABLES):
        for var in graph.get_collection(key):
            if getattr(var, "op", None) is variable_op and hasattr(var, "initialized_value"):
                return var.initialized_value()
    return None


def _uses_resource(use_resource):
    """TF's ``default_variable_creator``: the argument, else the variable scope's, else the global default."""
    if use_resource is None:
        graph = get_default_graph()
        scope = graph.variable_scope_stack[-1] if graph.variable_scope_stack else graph.root_variable_scope
        use_resource = getattr(scope, "use_resource", None)
    if use_resource is None:
        use_resource = resource_variables_toggle._DEFAULT_USE_RESOURCE
    return bool(use_resource)


def _make_resource_variable(args, kwargs):
    """The ResourceVariable for ``Variable(*args, **kwargs)`` (VariableV1's arguments)."""
    kwargs = dict(zip(_ARG_NAMES, args), **kwargs)
    kwargs.pop("use_resource", None)
    kwargs.pop("expected_shape", None)  # deprecated, and ignored by TF too
    return _RESOURCE_VARIABLE[0](**kwargs)


def _call_creators(stack, args, kwargs):
    """Calls the last creator of ``stack`` ((priority, creator) pairs, highest priority last, inner
    scopes after outer ones), whose ``next_creator`` calls the one before it, ending in Variable."""
    def creator_at(i):
        if i < 0:
            return lambda **kw: Variable(_skip_creators=True, **kw)
        return lambda **kw: stack[i][1](creator_at(i - 1), **kw)
    kwargs = dict(kwargs)
    kwargs.update(zip(_ARG_NAMES, args))
    kwargs.setdefault("synchronization", VariableSynchronization.AUTO)  # TF's VariableV1 defaults, as a
    if kwargs.get("aggregation") is None:                                # creator sees them
        kwargs["aggregation"] = VariableAggregation.NONE
    return creator_at(len(stack) - 1)(**kwargs)


@contextlib.contextmanager
def variable_creator_scope(variable_creator, priority=100):
    """Inside the block, ``Variable(...)`` calls ``variable_creator(next_creator, **kwargs)``. As TF's
    ``Graph._variable_creator_scope``: the block gets a new stack, sorted by priority, and leaving
    it while an inner block's stack is current is a RuntimeError."""
    graph = get_default_graph()
    old = graph._variable_creator_stack
    new = sorted(list(old) + [(priority, variable_creator)], key=lambda item: item[0])
    graph._variable_creator_stack = new
    try:
        yield
    finally:
        # compared by content: a graph made thread-local meanwhile (a MirroredStrategy's towers) copied it
        if graph._variable_creator_stack != new:
            raise RuntimeError("Exiting variable_creator_scope without proper nesting.")
        graph._variable_creator_stack = old
