"""``ResourceVariable``: the variable of ``tf.Variable(..., use_resource=True)``, built as TF 2.21's
graph mode builds it.

``ResourceVariable(1.0, name="v")`` creates ``v/Initializer/initial_value`` (Const), ``v``
(VarHandleOp, the handle, shared_name ``v``), ``v/IsInitialized/VarIsInitializedOp``, ``v/Assign``
(AssignVariableOp, the initializer) and ``v/Read/ReadVariableOp`` (what ``sess.run(v)`` fetches).
Every use reads the variable afresh: ``v * 2`` builds a ``ReadVariableOp`` and then ``mul``; a
write is an op on the handle (``AssignVariableOp``...), and its result reads the variable again
after it. No op is colocated with the handle when built: TF's placer (and devlab's) puts every
op that takes a handle beside its VarHandleOp.
"""
from ..framework.graph import get_default_graph
from ..framework.graph_keys import GraphKeys
from ..framework.indexed_slices import IndexedSlices
from ..framework.scopes import colocate_with, control_dependencies, device, init_scope, name_scope
from ..framework.tensor import Tensor
from ..framework.tensor_shape import TensorShape
from ..ops.build import convert_to_tensor
from . import gen_resource_variable_ops as gen
from . import variables
from .array_ops import identity
from .gen_resource_variable_ops import (assign_add_variable_op, assign_sub_variable_op, assign_variable_op,  # noqa: F401
                                        read_variable_op, resource_gather, resource_scatter_add,
                                        resource_scatter_sub, resource_scatter_update, var_handle_op,
                                        var_is_initialized_op, variable_shape)
from ..unimplemented import reject


class BaseResourceVariable(variables.Variable):
    """What every resource variable does with its handle: reads, writes, conversion to a tensor."""

    _should_act_as_resource_variable = True  # TF's duck-typed mark (is_resource_variable)

    # -- what TF code reads ----------------------------------------------------------------------
    @property
    def handle(self):
        return self._handle

    @property
    def name(self):
        return self._handle_name

    @property
    def op(self):
        return self._handle.op

    @property
    def device(self):
        return self._handle.device

    @property
    def dtype(self):
        return self._dtype

    @property
    def shape(self):
        return self._shape

    def get_shape(self):
        return self._shape

    @property
    def graph(self):
        return self._handle.graph

    @property
    def constraint(self):
        return None

    @property
    def _shared_name(self):
        return self.name[:self.name.index(":")]

    def _as_graph_element(self):
        return self._graph_element

    def _ref(self):
        return self._handle

    # -- reads -------------------------------------------------------------------------------------
    def _read_variable_op(self):
        caching = getattr(self, "_caching_device", None)
        if caching is not None:
            with colocate_with(None, ignore_existing=True), device(caching):
                return read_variable_op(self._handle, self._dtype)
        return read_variable_op(self._handle, self._dtype)

    def value(self):
        """A new read of the variable (its cached copy under a caching device)."""
        if getattr(self, "_cached_value", None) is not None:
            return self._cached_value
        with colocate_with(None, ignore_existing=True):
            return self._read_variable_op()

    def read_value(self):
        """``Read/ReadVariableOp`` and an ``Identity`` of it, as TF's ``read_value``."""
        with name_scope("Read"):
            value = self._read_variable_op()
        return identity(value)

    def _to_tensor(self, as_ref=False, dtype=None):
        if as_ref:
            return self.read_value().op.inputs[0]  # TF's: the handle, found through a new read
        return self.value()

    def eval(self, session=None):
        return self._graph_element.eval(session=session)

    def sparse_read(self, indices, name=None):
        """Rows ``indices`` of the variable: one ResourceGather, read where the variable lives."""
        with name_scope("Gather" if name is None else name) as scope:
            return resource_gather(self._handle, indices, dtype=self._dtype, name=scope)

    def is_initialized(self, name=None):
        return var_is_initialized_op(self._handle, name)

    def initialized_value(self):
        from .control_flow import cond  # control_flow builds on array_ops, as variables.py notes
        with init_scope():
            return cond(self.is_initialized(), self.read_value, lambda: self.initial_value)

    # -- writes ------------------------------------------------------------------------------------
    def _lazy_read(self, op):
        return UnreadVariable(self._handle, self._dtype, self._shape, op, self._handle_name)

    def assign(self, value, use_locking=None, name=None, read_value=True):
        """An AssignVariableOp of ``value`` (which must fit the variable's shape); with
        ``read_value`` the variable as read after it, else the op."""
        value = convert_to_tensor(value, dtype=self._dtype)
        if not self._shape.is_compatible_with(value.shape):
            raise ValueError(f"Cannot assign value to variable ' {self.name}': Shape mismatch.The variable shape "
                             f"{self._shape}, and the assigned value shape {value.shape} are incompatible.")
        op = assign_variable_op(self._handle, value, validate_shape=self._shape.is_fully_defined(), name=name)
        return self._lazy_read(op) if read_value else op

    def assign_add(self, delta, use_locking=None, name=None, read_value=True):
        op = assign_add_variable_op(self._handle, convert_to_tensor(delta, dtype=self._dtype), name=name)
        return self._lazy_read(op) if read_value else op

    def assign_sub(self, delta, use_locking=None, name=None, read_value=True):
        op = assign_sub_variable_op(self._handle, convert_to_tensor(delta, dtype=self._dtype), name=name)
        return self._lazy_read(op) if read_value else op

    def _scatter(self, builder, sparse_delta, name):
        if not isinstance(sparse_delta, IndexedSlices):
            raise TypeError(f"sparse_delta is not IndexedSlices: {sparse_delta}")
        op = builder(self._handle, sparse_delta.indices, convert_to_tensor(sparse_delta.values, self._dtype),
                     name=name)
        return self._lazy_read(op)

    def _scatter_op(self, op_type, indices, updates, name):
        """``tf.scatter_add(v, ...)`` and its kin on a resource variable: the op, then a read after it."""
        builder = {"ScatterAdd": resource_scatter_add, "ScatterSub": resource_scatter_sub,
                   "ScatterUpdate": resource_scatter_update}[op_type]
        return self._scatter(builder, IndexedSlices(updates, indices), name)

    def scatter_add(self, sparse_delta, use_locking=False, name=None):
        return self._scatter(resource_scatter_add, sparse_delta, name)

    def scatter_sub(self, sparse_delta, use_locking=False, name=None):
        return self._scatter(resource_scatter_sub, sparse_delta, name)

    def scatter_update(self, sparse_delta, use_locking=False, name=None):
        return self._scatter(resource_scatter_update, sparse_delta, name)

    def count_up_to(self, limit):
        return gen.resource_count_up_to(self._handle, limit=limit, T=self._dtype)

    def load(self, value, session=None):
        from ..framework.default_session import get_default_session
        session = session or get_default_session()
        if session is None:
            raise ValueError("Either session argument should be provided or default session should be established")
        session.run(self.initializer, {self.initializer.inputs[1]: value})

    def __repr__(self):
        return f"<tf.Variable '{self.name}' shape={self._shape} dtype={self._dtype.name}>"


class ResourceVariable(BaseResourceVariable):
    """A variable stored as a resource: a VarHandleOp and the ops that read and write through it."""

    def __init__(self, initial_value=None, trainable=None, collections=None, validate_shape=True,
                 caching_device=None, name=None, dtype=None, variable_def=None, import_scope=None,
                 constraint=None, distribute_strategy=None, synchronization=None, aggregation=None, shape=None,
                 handle=None, experimental_enable_variable_lifting=None):
        reject("tf.compat.v1.ResourceVariable", variable_def=(variable_def, None), import_scope=(import_scope, None),
               distribute_strategy=(distribute_strategy, None), handle=(handle, None))
        if initial_value is None:
            raise ValueError("The `initial_value` arg to `tf.Variable` must be specified except when you are not "
                             "providing a `variable_def`. You provided neither.")
        if constraint is not None and not callable(constraint):
            raise ValueError(f"Argument `constraint` must be None or a callable. a callable. Got a {type(constraint)}:"
                             f"  {constraint}")
        self._synchronization, self._aggregation, trainable = variables.validate_synchronization_aggregation_trainable(
            synchronization, aggregation, trainable, name)
        self._constraint = constraint  # applied by the optimizers after each update
        init_from_fn = callable(initial_value)
        if collections is None:
            collections = [GraphKeys.GLOBAL_VARIABLES]
        if not isinstance(collections, (list, tuple, set)):
            raise ValueError(f"collections argument to Variable constructor must be a list, tuple, or set. Got "
                             f"{collections} of type {type(collections)}")
        if trainable and GraphKeys.TRAINABLE_VARIABLES not in collections:
            collections = list(collections) + [GraphKeys.TRAINABLE_VARIABLES]
        graph = get_default_graph()
        self.trainable = trainable
        self._caching_device = caching_device
        self._cached_value = None
        with init_scope(), name_scope(name, "Variable", [] if init_from_fn else [initial_value]) as scope:
            handle_name = scope[:-1]
            # TF's attr scope: the initializer's ops and the handle join the variable's colocation
            # group (``loc:@v``), unless a colocate_with around them already gave them one
            first = graph.version
            with name_scope("Initializer"), device(None):
                if init_from_fn:
                    initial_value = initial_value()
                initial = convert_to_tensor(initial_value, name="initial_value", dtype=dtype)
            var_shape = TensorShape(shape) if shape is not None else initial.shape
            if shape is not None and not initial.shape.is_compatible_with(var_shape):
                raise ValueError(f"In this `tf.Variable` creation, the initial value's shape ({initial.shape}) is not "
                                 f"compatible with the explicitly supplied `shape` argument ({var_shape}).")
            if not validate_shape:
                var_shape = TensorShape(None)
            self._handle = var_handle_op(initial.dtype.base_dtype, var_shape, shared_name=handle_name,
                                         debug_name=scope, name=scope)
            for op in graph.get_operations()[first:]:
                if "_class" not in op.attrs:
                    op._set_attr("_class", [f"loc:@{handle_name}".encode()])
            self._handle_name = handle_name + ":0"
            self._dtype = initial.dtype.base_dtype
            self._shape = var_shape
            with name_scope("IsInitialized"):
                self._is_initialized_op = var_is_initialized_op(self._handle)
            with name_scope("Assign") as assign_scope, colocate_with(None, ignore_existing=True), \
                    device(self._handle.device):
                guarded = variables._try_guard_against_uninitialized_dependencies(handle_name, initial)
                self._initializer_op = assign_variable_op(self._handle, guarded, name=assign_scope)
            with name_scope("Read"):
                with device(self._handle.device):
                    value = read_variable_op(self._handle, self._dtype)
                self._graph_element = value
                if caching_device is not None:
                    with colocate_with(None, ignore_existing=True), device(caching_device):
                        self._cached_value = identity(value)
            self._initial_value = initial
        graph.add_to_collections(collections, self)

    @property
    def create(self):
        return self._initializer_op


class UnreadVariable(BaseResourceVariable):
    """The variable as a write left it (TF's ``_UnreadVariable``): reading it reads after the write;
    its ``op`` and ``name`` are the write's."""

    def __init__(self, handle, dtype, shape, parent_op, handle_name):
        self._handle, self._dtype, self._shape, self._parent_op = handle, dtype, shape, parent_op
        self._handle_name = handle_name
        self._caching_device = None
        self._cached_value = None
        self.trainable = False
        self._synchronization = variables.VariableSynchronization.AUTO
        self._aggregation = variables.VariableAggregation.NONE
        self._constraint = None
        self._initial_value = None
        with control_dependencies([parent_op]):
            self._graph_element = read_variable_op(handle, dtype)

    @property
    def name(self):
        return self._parent_op.name

    @property
    def op(self):
        return self._parent_op

    def _read_variable_op(self):
        with control_dependencies([self._parent_op]):
            return read_variable_op(self._handle, self._dtype)

    def value(self):
        return self._read_variable_op()

    def read_value(self):
        return self._read_variable_op()

    def assign(self, value, use_locking=None, name=None, read_value=True):
        with control_dependencies([self._parent_op]):
            return super().assign(value, use_locking, name, read_value)

    def assign_add(self, delta, use_locking=None, name=None, read_value=True):
        with control_dependencies([self._parent_op]):
            return super().assign_add(delta, use_locking, name, read_value)

    def assign_sub(self, delta, use_locking=None, name=None, read_value=True):
        with control_dependencies([self._parent_op]):
            return super().assign_sub(delta, use_locking, name, read_value)

    def _scatter(self, builder, sparse_delta, name):
        with control_dependencies([self._parent_op]):
            return super()._scatter(builder, sparse_delta, name)

    @property
    def initializer(self):
        raise AttributeError("an assignment's result has no initializer")


def _reads_first(name):
    """An operator that reads the variable at the current scope, then applies the Tensor's
    operator (TF's ``_OverloadOperator``): ``v * 2`` is ``ReadVariableOp`` then ``mul``."""
    def operator(self, *args):
        return getattr(Tensor, name)(self.value(), *args)
    operator.__name__ = name
    return operator


for _name in ("__add__", "__radd__", "__sub__", "__rsub__", "__mul__", "__rmul__", "__truediv__", "__rtruediv__",
              "__div__", "__matmul__", "__rmatmul__", "__pow__", "__rpow__", "__floordiv__", "__rfloordiv__",
              "__mod__", "__rmod__", "__and__", "__rand__", "__or__", "__ror__", "__xor__", "__rxor__", "__gt__",
              "__lt__", "__ge__", "__le__", "__neg__", "__abs__", "__invert__", "__getitem__"):
    setattr(BaseResourceVariable, _name, _reads_first(_name))


def _in_place(operator, advice):
    """TF's RuntimeError for ``v += x`` and its kin on a resource variable (a new tensor would quietly
    replace the name ``v``)."""
    def refuse(self, unused_other):
        raise RuntimeError(f"`{operator}` with `tf.Variable`s is not supported. {advice} if you need to get a new "
                           "output Tensor.")
    return refuse


for _name, _operator, _advice in (
        ("__iadd__", "variable += value", "Use `variable.assign_add(value)` to modify the variable, or "
                                          "`out = variable + value`"),
        ("__isub__", "variable -= value", "Use `variable.assign_sub(value)` to modify the variable, or "
                                          "`out = variable * value`"),  # TF's words, its typo kept
        ("__imul__", "var *= value", "Use `var.assign(var * value)` to modify the variable, or `out = var * value`"),
        ("__itruediv__", "var /= value", "Use `var.assign(var / value)` to modify the variable, or "
                                         "`out = var / value`"),
        ("__ipow__", "var **= value", "Use `var.assign(var ** value)` to modify the variable, or "
                                      "`out = var ** value`")):
    setattr(BaseResourceVariable, _name, _in_place(_operator, _advice))


def is_resource_variable(var):
    """Whether ``var`` is a resource variable (TF's test, by duck typing on ``_should_act_as_resource_variable``)."""
    return hasattr(var, "_should_act_as_resource_variable")


variables._RESOURCE_VARIABLE.append(ResourceVariable)  # what Variable(use_resource=True) makes
