"""``variable_scope`` and ``get_variable``: variables found by name, created once, then reused.

Follows TensorFlow's ``variable_scope`` / ``_pure_variable_scope``. A string scope opens a
name scope of the same (uniquified) name and extends the variable scope's name; a captured
``VariableScope`` is re-entered with its own full name, while the name scope opened for it is
a new one named after its last component (none for the root scope, so
``variable_scope(get_variable_scope())`` inside ``name_scope("tower_0")`` keeps ``tower_0/``).
``default_name`` scopes are made unique by counting how often each variable scope name was
opened; leaving a string scope resets the counts of its sub-scopes, so the second
``tf.layers.dense`` in a re-entered ``variable_scope("net", reuse=True)`` is ``net/dense``
again, and finds the first one's variables.

A partitioner (on ``get_variable`` or inherited from the scope) makes a partitioned variable:
one variable per shard (``partitioned_variables.py``).
"""
import contextlib
import functools
import inspect

from ..framework import dtypes
from ..framework.tensor_shape import TensorShape
from ..framework.graph import get_default_graph
from ..framework.graph_keys import GraphKeys
from ..framework.scopes import _graph_of, colocate_with, name_scope
from ..framework.tensor import Tensor
from . import array_ops, init_ops
from .lazy_tensor import LazyEvalTensor
from ..ops.build import convert_to_tensor
from .partitioned_variables import (PartitionedVariable, PartitionInfo, SaveSliceInfo, call_partitioner,
                                    iter_slices)
from .variables import Variable
from .variable_sync import (VariableAggregation, VariableAggregationV2, VariableSynchronization,  # noqa: F401
                            validate_synchronization_aggregation_trainable)
from ..unimplemented import reject

AUTO_REUSE = "AUTO_REUSE"
_PartitionInfo = PartitionInfo  # TF's name for it (variable_scope._PartitionInfo)


class VariableScope:
    """A prefix for variable names, with what new variables inside it inherit: the reuse flag,
    the default initializer, regularizer, dtype, caching device, partitioner and custom getter."""

    def __init__(self, reuse, name="", initializer=None, regularizer=None, caching_device=None, partitioner=None,
                 custom_getter=None, name_scope="", dtype=dtypes.float32, use_resource=None, constraint=None):
        # TF's arguments, in TF's order
        self.name = name
        self.reuse = reuse
        self.initializer = initializer
        self.original_name_scope = name_scope
        self.caching_device = caching_device  # where a new variable's ``read`` goes (else beside it)
        self.partitioner = partitioner  # new variables of this scope are split into shards by it
        self.regularizer = regularizer  # applied to each new variable, its loss collected
        self.custom_getter = custom_getter  # called instead of the store, with the store's getter
        self.dtype = dtypes.as_dtype(dtype)  # get_variable's dtype when none is given
        self.use_resource = use_resource  # new variables are resource variables (None: the default's say)
        self.constraint = constraint  # applied by the optimizers to the new variables after each update

    def set_regularizer(self, regularizer):
        self.regularizer = regularizer

    def set_constraint(self, constraint):
        self.constraint = constraint

    def set_custom_getter(self, custom_getter):
        self.custom_getter = custom_getter

    def set_dtype(self, dtype):
        self.dtype = dtypes.as_dtype(dtype)

    def set_use_resource(self, use_resource):
        self.use_resource = use_resource

    def set_partitioner(self, partitioner):
        self.partitioner = partitioner

    def reuse_variables(self):
        """From here on, ``get_variable`` in this scope returns existing variables (and fails for
        new names), as re-entering it with ``reuse=True`` would."""
        self.reuse = True

    def set_initializer(self, initializer):
        self.initializer = initializer

    def set_caching_device(self, caching_device):
        """New variables of this scope (and scopes inside it) get their ``read`` Identity on
        ``caching_device`` (a device or a device function), not colocated with the variable."""
        self.caching_device = caching_device

    def get_collection(self, name):
        """The items of collection ``name`` whose names start with this scope's name."""
        scope = self.name + "/" if self.name else ""
        return get_default_graph().get_collection(name, scope)

    def global_variables(self):
        return self.get_collection(GraphKeys.GLOBAL_VARIABLES)

    def trainable_variables(self):
        return self.get_collection(GraphKeys.TRAINABLE_VARIABLES)

    def local_variables(self):
        return self.get_collection(GraphKeys.LOCAL_VARIABLES)

    def __repr__(self):
        return f"<VariableScope {self.name!r} reuse={self.reuse}>"


def get_variable_scope():
    graph = get_default_graph()
    stack = graph.variable_scope_stack
    if stack:
        return stack[-1]
    if graph.root_variable_scope is None:
        graph.root_variable_scope = VariableScope(False, name="")
    return graph.root_variable_scope


class variable_scope:  # noqa: N801 - TF's name for it
    """Opens a variable scope (and a name scope, as TF's ``variable_scope`` does). ``initializer``,
    ``regularizer``, ``caching_device``, ``partitioner``, ``dtype``, ``constraint`` replace the
    enclosing scope's for the variables made inside; ``custom_getter`` is chained with the enclosing
    one (it gets a getter that calls the outer getter, which calls the store). Leaving it while a
    scope opened inside it is still open is TF's RuntimeError, and changes nothing."""

    def __init__(self, name_or_scope=None, default_name=None, values=None, initializer=None, regularizer=None,
                 caching_device=None, partitioner=None, custom_getter=None, reuse=None, dtype=None,
                 use_resource=None, constraint=None, auxiliary_name_scope=True):
        if not isinstance(auxiliary_name_scope, bool):
            raise TypeError(f"The auxiliary_name_scope must be `True` or `False`, while get {auxiliary_name_scope}")
        self._kwargs = dict(name_or_scope=name_or_scope, default_name=default_name, values=values,
                            initializer=initializer, regularizer=regularizer, caching_device=caching_device,
                            partitioner=partitioner, custom_getter=custom_getter, reuse=reuse, dtype=dtype,
                            use_resource=use_resource, constraint=constraint,
                            auxiliary_name_scope=auxiliary_name_scope)
        self._opened = []  # (context, scope, graph) of each entry, innermost last

    def __enter__(self):
        context = _open_variable_scope(**self._kwargs)
        scope = context.__enter__()
        self._opened.append((context, scope, get_default_graph()))
        return scope

    def __exit__(self, exc_type, exc_value, tb):
        context, scope, graph = self._opened[-1]
        stack = graph.variable_scope_stack
        if not stack or stack[-1] is not scope:
            raise RuntimeError("Improper nesting of variable_scope.")
        self._opened.pop()
        return context.__exit__(exc_type, exc_value, tb)


@contextlib.contextmanager
def _open_variable_scope(name_or_scope, default_name, values, initializer, regularizer, caching_device, partitioner,
                         custom_getter, reuse, dtype, use_resource, constraint, auxiliary_name_scope):
    """What entering ``variable_scope`` does (TF's ``variable_scope.__enter__``): the name scope, then
    the variable scope, both left on exit."""
    if custom_getter is not None and not callable(custom_getter):
        raise ValueError(f"Passed a custom_getter which is not callable: {custom_getter}")
    overrides = {"initializer": initializer, "regularizer": regularizer, "caching_device": caching_device,
                 "partitioner": partitioner, "custom_getter": custom_getter,
                 "dtype": None if dtype is None else dtypes.as_dtype(dtype), "use_resource": use_resource,
                 "constraint": constraint}
    if default_name is None and name_or_scope is None:
        raise TypeError("If default_name is None then name_or_scope is required")
    if reuse is False:
        reuse = None
    if not (reuse is True or reuse is None or reuse is AUTO_REUSE):
        raise ValueError("The reuse parameter must be True or False or None.")
    graph = _graph_of(values) if values else get_default_graph()
    with contextlib.ExitStack() as stack:
        stack.enter_context(graph.as_default())  # always, as TF: init_scope reads what it records
        current_name_scope = None
        if not auxiliary_name_scope:  # stay in the current name scope
            ns = graph.get_name_scope()
            current_name_scope = name_scope(ns + "/" if ns else ns)
        if name_or_scope is not None:
            if not isinstance(name_or_scope, (VariableScope, str)):
                raise TypeError("VariableScope: name_or_scope must be a string or VariableScope.")
            is_scope = isinstance(name_or_scope, VariableScope)
            ns_name = name_or_scope.name.split("/")[-1] if is_scope else name_or_scope
            old_name_scope = None
            if ns_name or current_name_scope is not None:
                entered = stack.enter_context(current_name_scope or name_scope(ns_name))
                old_name_scope = name_or_scope.original_name_scope if is_scope else entered
            scope = stack.enter_context(_pure_variable_scope(graph, name_or_scope, reuse, old_name_scope,
                                                             overrides))
        else:
            if reuse:
                raise ValueError("reuse=True cannot be used without a name_or_scope")
            entered = stack.enter_context(current_name_scope or name_scope(default_name))
            unique = _get_unique_variable_scope(graph, default_name)
            scope = stack.enter_context(_pure_variable_scope(graph, unique, None, entered, overrides))
        yield scope


def _maybe_wrap_custom_getter(custom_getter, old_getter):
    """``custom_getter`` calling ``old_getter`` as its getter (TF's chaining of nested scopes' getters:
    the inner one runs first, and its getter runs the outer one, which runs the store)."""
    if old_getter is None:
        return custom_getter

    def wrapped_custom_getter(getter, *args, **kwargs):
        return custom_getter(functools.partial(old_getter, getter), *args, **kwargs)
    return wrapped_custom_getter


def _inherit(base, name, reuse, name_scope, overrides):
    """A new VariableScope ``name`` with ``base``'s settings, those given in ``overrides`` replacing them."""
    new = VariableScope(reuse, name=name, initializer=base.initializer, regularizer=base.regularizer,
                        caching_device=base.caching_device, partitioner=base.partitioner,
                        custom_getter=base.custom_getter, name_scope=name_scope, dtype=base.dtype,
                        use_resource=base.use_resource, constraint=base.constraint)
    for key, value in (overrides or {}).items():
        if value is not None:
            setattr(new, key, _maybe_wrap_custom_getter(value, base.custom_getter) if key == "custom_getter" else value)
    return new


@contextlib.contextmanager
def _pure_variable_scope(graph, name_or_scope, reuse, old_name_scope, overrides=None):
    """The variable scope alone (TF's ``_pure_variable_scope``): pushes it, counts it as opened,
    and on exit forgets what was opened inside it."""
    old = get_variable_scope()
    counts = graph.variable_scopes_count
    if isinstance(name_or_scope, VariableScope):
        new = _inherit(name_or_scope, name_or_scope.name, reuse or name_or_scope.reuse,
                       name_or_scope.original_name_scope, overrides)
        counts[new.name] = counts.get(new.name, 0) + 1
        saved_counts = dict(counts)
    else:
        full = f"{old.name}/{name_or_scope}" if old.name else name_or_scope
        new = _inherit(old, full, reuse or old.reuse, name_or_scope if old_name_scope is None else old_name_scope,
                       overrides)
        counts[full] = counts.get(full, 0) + 1
    scopes = graph.variable_scope_stack
    scopes.append(new)
    try:
        yield new
    finally:
        if not scopes or scopes[-1] is not new:
            raise RuntimeError("Improper nesting of variable_scope.")
        scopes.pop()
        if isinstance(name_or_scope, VariableScope):
            graph.variable_scopes_count = saved_counts
        else:
            prefix = new.name + "/"
            counts = graph.variable_scopes_count  # a re-entered scope inside may have replaced the dict
            for k in counts:
                if k.startswith(prefix):
                    counts[k] = 0


def _get_unique_variable_scope(graph, prefix):
    """``prefix``, or ``prefix_1``, ``prefix_2``... : a variable scope not yet opened here."""
    current = get_variable_scope()
    counts = graph.variable_scopes_count
    name = f"{current.name}/{prefix}" if current.name else prefix
    if counts.get(name, 0) == 0:
        return prefix
    idx = 1
    while counts.get(f"{name}_{idx}", 0) > 0:
        idx += 1
    return f"{prefix}_{idx}"


def get_variable(name, shape=None, dtype=None, initializer=None, regularizer=None, trainable=None,
                 collections=None, caching_device=None, partitioner=None, validate_shape=True, use_resource=None,
                 custom_getter=None, constraint=None, synchronization=VariableSynchronization.AUTO,
                 aggregation=VariableAggregation.NONE):
    """The variable ``<scope>/<name>``: created on first use, returned again when reuse is on. What is
    not given comes from the variable scope (TF's ``VariableScope.get_variable``); a custom getter
    (the scope's, chained, or this call's) is called instead of the store, with the store's getter."""
    scope = get_variable_scope()
    regularizer = scope.regularizer if regularizer is None else regularizer
    caching_device = scope.caching_device if caching_device is None else caching_device
    partitioner = scope.partitioner if partitioner is None else partitioner
    custom_getter = scope.custom_getter if custom_getter is None else custom_getter
    use_resource = scope.use_resource if use_resource is None else use_resource
    full = f"{scope.name}/{name}" if scope.name else name
    with name_scope(None):
        if dtype is not None and initializer is not None and not callable(initializer):
            init_dtype = convert_to_tensor(initializer).dtype.base_dtype
            if init_dtype != dtypes.as_dtype(dtype):
                raise ValueError(f"Initializer type '<dtype: '{init_dtype.name}'>' and explicit dtype "
                                 f"'<dtype: '{dtypes.as_dtype(dtype).name}'>' "
                                 "don't match.")
        initializer = scope.initializer if initializer is None else initializer
        constraint = scope.constraint if constraint is None else constraint
        dtype = scope.dtype if dtype is None else dtype
        synchronization, aggregation, trainable = validate_synchronization_aggregation_trainable(
            synchronization, aggregation, trainable, full)
        kwargs = {"name": full, "shape": shape, "dtype": dtypes.as_dtype(dtype).base_dtype, "initializer": initializer,
                  "regularizer": regularizer, "reuse": scope.reuse, "trainable": trainable,
                  "collections": collections, "caching_device": caching_device, "partitioner": partitioner,
                  "validate_shape": validate_shape, "use_resource": use_resource, "synchronization": synchronization,
                  "aggregation": aggregation}
        if custom_getter is None:
            return _true_getter(constraint=constraint, **kwargs)
        if not callable(custom_getter):
            raise ValueError(f"Passed a custom_getter which is not callable: {custom_getter}")
        if _takes(custom_getter, "constraint"):  # TF passes it only to getters that can take it
            kwargs["constraint"] = constraint
        return custom_getter(getter=_true_getter, **kwargs)


def get_local_variable(name, shape=None, dtype=None, initializer=None, regularizer=None, trainable=False,
                       collections=None, caching_device=None, partitioner=None, validate_shape=True,
                       use_resource=None, custom_getter=None, constraint=None,
                       synchronization=VariableSynchronization.AUTO, aggregation=VariableAggregation.NONE):
    """``get_variable`` for a *local* variable: added to LOCAL_VARIABLES (besides ``collections``) and
    never trainable (TF ignores ``trainable`` here too: it always passes False)."""
    del trainable  # TF's get_local_variable: trainable=False whatever is given
    collections = list(collections or []) + [GraphKeys.LOCAL_VARIABLES]
    return get_variable(name, shape=shape, dtype=dtype, initializer=initializer, regularizer=regularizer,
                        trainable=False, collections=collections, caching_device=caching_device,
                        partitioner=partitioner, validate_shape=validate_shape, use_resource=use_resource,
                        custom_getter=custom_getter, constraint=constraint, synchronization=synchronization,
                        aggregation=aggregation)


def no_regularizer(_):
    """A regularizer that gives no loss: ``regularizer=no_regularizer`` turns a scope's off."""
    return None


class _VariableStore:
    """TF's default variable store as ``variable_scope._get_default_variable_store()`` hands it out:
    ``get_variable`` by full name; with ``reuse=None`` it returns an existing variable (no check)."""

    @property
    def _vars(self):
        """{full name: variable} of the variables made through get_variable in the default graph."""
        return get_default_graph().variable_store

    def get_variable(self, name, shape=None, dtype=dtypes.float32, initializer=None, regularizer=None, reuse=None,
                     trainable=None, collections=None, caching_device=None, partitioner=None, validate_shape=True,
                     use_resource=None, custom_getter=None, constraint=None,
                     synchronization=VariableSynchronization.AUTO, aggregation=VariableAggregation.NONE):
        reject("_VariableStore.get_variable", custom_getter=(custom_getter, None))
        synchronization, aggregation, trainable = validate_synchronization_aggregation_trainable(
            synchronization, aggregation, trainable, name)
        return _true_getter(name, shape, dtype, initializer, regularizer, AUTO_REUSE if reuse is None else reuse,
                            trainable, collections, caching_device, partitioner, validate_shape, use_resource,
                            constraint, synchronization, aggregation)


def _get_default_variable_store():
    return _VariableStore()


def _takes(fn, name):
    """Whether ``fn`` accepts the keyword ``name`` (by name, or through ``**kwargs``)."""
    try:
        params = inspect.signature(fn).parameters.values()
    except (TypeError, ValueError):
        return False
    return any(p.name == name or p.kind is inspect.Parameter.VAR_KEYWORD for p in params)


def _needs_no_arguments(fn):
    """Whether ``fn`` can be called with no arguments (every parameter has a default)."""
    try:
        params = inspect.signature(fn).parameters.values()
    except (TypeError, ValueError):
        return False
    return all(p.default is not p.empty or p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD) for p in params)


def _true_getter(name, shape=None, dtype=dtypes.float32, initializer=None, regularizer=None, reuse=None,
                 trainable=None, collections=None, caching_device=None, partitioner=None, validate_shape=True,
                 use_resource=None, constraint=None, synchronization=VariableSynchronization.AUTO,
                 aggregation=VariableAggregation.NONE):
    """The variable store's getter (what a custom getter is handed as ``getter``): finds the
    variable ``name`` (a full name), or makes it."""
    synchronization, aggregation, trainable = validate_synchronization_aggregation_trainable(
        synchronization, aggregation, trainable, name)
    made = {"constraint": constraint, "synchronization": synchronization, "aggregation": aggregation}
    graph = get_default_graph()
    full = name
    is_scalar = isinstance(shape, (list, tuple)) and not shape
    if partitioner is not None and not is_scalar:
        if not callable(partitioner):
            raise ValueError(f"Partitioner must be callable, but received: {partitioner}")
        with name_scope(None):
            return _get_partitioned_variable(graph, reuse, full, shape, dtype, initializer, regularizer, trainable,
                                             collections, caching_device, validate_shape, partitioner, use_resource,
                                             made)
    if reuse is True and full in graph.partitioned_variable_store:  # reused without its partitioner
        return _get_partitioned_variable(graph, reuse, full, shape, dtype, initializer, regularizer, trainable,
                                         collections, caching_device, validate_shape, None, use_resource, made)
    if initializer is not None and not callable(initializer) and shape is not None:
        raise ValueError("If initializer is a constant, do not specify shape.")
    if full in graph.variable_store:
        if reuse in (True, AUTO_REUSE):
            found = graph.variable_store[full]
            if shape is not None and not TensorShape(shape).is_compatible_with(found.get_shape()):
                raise ValueError(f"Trying to share variable {full}, but specified shape {TensorShape(shape)} and "
                                 f"found shape {found.get_shape()}.")
            want = dtypes.float32 if dtype is None else dtypes.as_dtype(dtype)
            if not want.is_compatible_with(found.dtype):
                raise ValueError(f"Trying to share variable {full}, but specified dtype {want.name} and found "
                                 f"dtype {found.dtype.name}.")
            return found
        # TF ends the message with where the variable was first made (its op's traceback)
        where = getattr(getattr(graph.variable_store[full], "op", None), "traceback", None)
        origin = f'\n\n  File "{where[0]}", line {where[1]}\n' if where else ""
        raise ValueError(f"Variable {full} already exists, disallowed. Did you mean to set reuse=True "
                         f"or reuse=tf.AUTO_REUSE in VarScope? Originally defined at:{origin}")
    if reuse is True:
        raise ValueError(f"Variable {full} does not exist, or was not created with tf.get_variable(). "
                         "Did you mean to set reuse=tf.AUTO_REUSE in VarScope?")
    dtype = dtypes.float32 if dtype is None else dtypes.as_dtype(dtype).base_dtype
    if shape is not None:  # a list of ints, a TensorShape, Dimensions; an unknown shape says nothing
        shape = TensorShape(shape)
        shape = shape.as_list() if shape.ndims is not None else None
    if initializer is None and shape is None:
        raise ValueError(f"Variable {full} did not get an initializer, so its `shape` argument must be specified.")
    init = _default_initializer(initializer, dtype)
    if callable(init):
        if shape is not None and None not in shape:
            initial = lambda: init(list(shape), dtype=dtype)  # noqa: E731 - built under the variable's scope
        elif _needs_no_arguments(init):  # it makes the value itself (TF's `lambda: value`)
            reject("tf.get_variable with an initializer of no arguments", shape=(shape, None))  # a partial shape
            initial, dtype = init, None
        else:
            raise ValueError("The initializer passed is not valid. It should be a callable with no arguments and the "
                             "shape should not be provided or an instance of `tf.keras.initializers.*' and `shape` "
                             "should be fully defined.")
    else:
        initial, dtype = init, None
    with name_scope(None):
        var = Variable(initial, trainable=trainable, collections=collections, name=full, dtype=dtype,
                       caching_device=caching_device, validate_shape=validate_shape, use_resource=use_resource,
                       **made)
    graph.variable_store[full] = var
    _regularize(graph, var, full, regularizer)
    return var


def _regularize(graph, var, name, regularizer):
    """TF's ``_get_single_variable``: the regularizer is called once where get_variable runs (to see
    whether it gives a loss; those ops stay in the graph), then again beside the variable, in
    ``<name>/Regularizer/``, for the loss collected in REGULARIZATION_LOSSES, and again at each use of it."""
    if regularizer is None or regularizer(var) is None:
        return

    def build():
        with colocate_with(var.op), name_scope(name + "/Regularizer/"):
            return regularizer(var)

    # TF collects a thunk, not the tensor: each use of the loss builds it again (lazy_tensor.py)
    graph.add_to_collection(GraphKeys.REGULARIZATION_LOSSES, LazyEvalTensor(build))


def _default_initializer(init, dtype):
    """``init``, or get_variable's default for ``dtype`` (Glorot uniform for floats, else zeros); an
    initializer class is instantiated."""
    if init is None:
        init = init_ops.GlorotUniform() if dtype.is_floating else init_ops.Zeros()
    return init() if isinstance(init, type) else init


def _get_partitioned_variable(graph, reuse, full, shape, dtype, initializer, regularizer, trainable, collections,
                              caching_device, validate_shape, partitioner, use_resource=None, made=None):
    """The shards of ``full`` (TF's ``_get_partitioned_variable``): found again under reuse, else one
    variable ``full/part_i`` per slice, each initialised with its slice of the initializer."""
    if full in graph.variable_store:
        raise ValueError(f"A partitioner was provided, but an unpartitioned version of the variable was found: "
                         f"{full}.  Perhaps a variable of the same name was already created without partitioning?")
    dtype = dtypes.float32 if dtype is None else dtypes.as_dtype(dtype).base_dtype
    shape = TensorShape(shape)
    if isinstance(initializer, Tensor):
        shape = shape.merge_with(initializer.shape)
    partitions = call_partitioner(partitioner, shape, dtype) if reuse is not True or partitioner else None
    existing = graph.partitioned_variable_store.get(full)
    if existing is not None:
        if reuse not in (True, AUTO_REUSE):
            raise ValueError(f"Partitioned variable with name {full} already exists. Did you mean to set reuse=True "
                             f"or reuse=tf.AUTO_REUSE in VarScope?")
        if not shape.is_compatible_with(existing.get_shape()):
            raise ValueError(f"Trying to reuse partitioned variable {full}, but specified shape {shape} and found "
                             f"shape {existing.get_shape()}.")
        if partitions is not None and existing._get_partitions() != partitions:
            raise ValueError(f"Trying to reuse partitioned variable {full}, but specified partitions {partitions} "
                             f"and found partitions {existing._get_partitions()}.")
        return existing
    if reuse is True:
        raise ValueError(f"PartitionedVariable {full} does not exist, or was not created with tf.get_variable(). Did "
                         f"you mean to set reuse=False or reuse=tf.AUTO_REUSE in VarScope?")
    init = _default_initializer(initializer, dtype)
    full_shape = shape.as_list()
    shards = []
    for i, (offset, part_shape) in enumerate(iter_slices(full_shape, partitions)):
        part = f"{full}/part_{i}"
        info = PartitionInfo(full_shape, offset)
        part_dtype = dtype
        with name_scope(part + "/PartitionedInitializer"):
            if callable(init):
                initial = (lambda init=init, s=part_shape, info=info: init(list(s), dtype=dtype, partition_info=info))
            else:  # a value: this shard's slice of it
                value = init if isinstance(init, Tensor) else convert_to_tensor(init, dtype=dtype)
                initial, part_dtype = array_ops.slice(value, offset, part_shape), None
        with name_scope(None):
            var = Variable(initial, trainable=trainable, collections=collections, name=part, dtype=part_dtype,
                           caching_device=caching_device, validate_shape=validate_shape, use_resource=use_resource,
                           **(made or {}))
        var._save_slice_info = SaveSliceInfo(full, full_shape, offset, part_shape)
        graph.variable_store[part] = var
        with name_scope(None):
            _regularize(graph, var, part, regularizer)
        shards.append(var)
    partitioned = PartitionedVariable(full, shape, dtype, shards, partitions)
    graph.partitioned_variable_store[full] = partitioned
    return partitioned
