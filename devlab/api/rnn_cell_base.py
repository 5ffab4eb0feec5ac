"""The base of ``tf.nn.rnn_cell``'s cells: how a cell names its variables and ops.

TF 1.x cells are legacy ``tf.layers`` layers (tf_keras's ``legacy_tf_layers.base.Layer``). The
first call of a cell opens a variable scope named after it (``lstm_cell``, or the ``name`` given,
made unique like any ``default_name`` scope) and keeps it: its variables are ``<scope>/kernel``
and ``<scope>/bias``, made by ``build`` on that first call, and every later call reuses them. An
``RNNCell`` that is not a layer of its own (``MultiRNNCell``) first re-enters the variable scope
that was current at its first call, which opens a name scope named after its last component:
inside ``dynamic_rnn``'s loop, the ops of ``rnn/multi_rnn_cell/cell_0/lstm_0`` are named
``rnn/while/rnn/multi_rnn_cell/cell_0/lstm_0/...`` while its variables stay
``rnn/multi_rnn_cell/cell_0/lstm_0/kernel``.
"""
import re

from ..unimplemented import argument, reject
from ..framework import dtypes
from ..framework.scopes import name_scope
from ..framework.tensor import Tensor
from ..framework.tensor_shape import TensorShape
from . import array_ops
from .array_ops import constant, zeros
from ..ops.build import convert_to_tensor
from .control_flow import _flatten, _pack
from ..ops.tensor_util import constant_value
from .variable_scope import get_variable, get_variable_scope, variable_scope


def _snake_case(name):
    """Keras's layer names: ``LSTMCell`` -> ``lstm_cell``."""
    intermediate = re.sub("(.)([A-Z][a-z0-9]+)", r"\1_\2", name)
    return re.sub("([a-z])([A-Z])", r"\1_\2", intermediate).lower()


class RNNCell:
    """A cell: ``(output, new_state) = cell(inputs, state)``, with ``state_size``, ``output_size``
    and ``zero_state``. Subclasses implement ``call`` (and ``build`` to make variables)."""

    def __init__(self, trainable=True, name=None, dtype=None, _reuse=None, _scope=None, **kwargs):
        for key in kwargs:  # Keras Layer's other arguments (input_shape, activity_regularizer...)
            raise argument(key, f"tf.nn.rnn_cell.{type(self).__name__}")
        self.trainable = trainable
        self.name = name
        self._base_name = name or _snake_case(type(self).__name__)
        self.dtype = None if dtype is None else dtypes.as_dtype(dtype)
        self._reuse = _reuse
        self._scope = None
        self._current_scope = None
        self.built = False
        self._trainable_weights = []
        self.input_ndim = None  # the rank the inputs must have (Keras's InputSpec), if any
        if _scope is not None:
            with variable_scope(_scope) as captured:
                self._scope = captured

    # -- what a cell is ------------------------------------------------------------------------------
    @property
    def state_size(self):
        raise NotImplementedError("Abstract method")

    @property
    def output_size(self):
        raise NotImplementedError("Abstract method")

    @property
    def trainable_weights(self):
        return list(self._trainable_weights) if self.trainable else []

    @property
    def trainable_variables(self):
        return self.trainable_weights

    @property
    def weights(self):
        return self.trainable_weights

    def build(self, inputs_shape):
        """Makes the variables, on the first call (a plain RNNCell makes none here)."""
        self.built = True

    def call(self, inputs, state):
        raise NotImplementedError("Abstract method")

    # -- calling ---------------------------------------------------------------------------------------
    def __call__(self, inputs, state, scope=None):
        """Runs the cell: inside the variable scope current at its first call (or ``scope``)."""
        if scope is not None:
            with variable_scope(scope) as scope:
                return self._layer_call(inputs, state, scope=scope)
        captured = getattr(self, "_rnncell_scope", None)
        if captured is None:
            captured = self._rnncell_scope = get_variable_scope()
        with variable_scope(captured):
            return self._layer_call(inputs, state)

    def _set_scope(self, scope=None):
        """The cell's own variable scope, fixed at its first use."""
        if self._scope is None:
            if self._reuse:
                with variable_scope(scope if scope is not None else self._base_name) as captured:
                    self._scope = captured
            else:
                with variable_scope(scope, default_name=self._base_name) as captured:
                    self._scope = captured

    def _layer_call(self, inputs, state, scope=None):
        """tf.layers' ``Layer.__call__``: in the cell's scope (reusing once built), build on the
        first call, then ``call``, all in the name scope the cell's scope was opened with."""
        self._set_scope(scope)
        with variable_scope(self._scope, reuse=True if self.built else self._reuse,
                            auxiliary_name_scope=False) as current:
            self._current_scope = current
            with name_scope(current.original_name_scope):
                inputs = _pack(inputs, [convert_to_tensor(x) for x in _flatten(inputs)])
                self._check_inputs(inputs)
                if not self.built:
                    first = _flatten(inputs)[0]
                    self.build(first.shape)
                    self.built = True
                return self.call(inputs, state)

    def _check_inputs(self, inputs):
        """Keras's ``InputSpec(ndim=...)`` check, in its words."""
        if self.input_ndim is None:
            return
        for i, x in enumerate(_flatten(inputs)):
            ndim = x.shape.ndims
            if ndim is not None and ndim != self.input_ndim:
                raise ValueError(f"Input {i} of layer {self.name or self._base_name} is incompatible with the "
                                 f"layer: expected ndim={self.input_ndim}, found ndim={ndim}. Full shape received: "
                                 f"{tuple(x.shape.sizes)}")

    def add_variable(self, name, shape, dtype=None, initializer=None, regularizer=None, trainable=None,
                     constraint=None, use_resource=None, synchronization=None, aggregation=None, partitioner=None,
                     **kwargs):
        """A variable ``<cell scope>/<name>`` (tf.layers' ``add_weight``, its arguments in TF's
        order): the scope's initializer when none is given. Regularizers, constraints, resource
        variables and partitioners of a cell's weights are not implemented and say so."""
        api = f"{type(self).__name__}.add_weight"
        reject(api, regularizer=(regularizer, None), constraint=(constraint, None),
               synchronization=(synchronization, None), aggregation=(aggregation, None),
               partitioner=(partitioner, None))
        if use_resource:
            raise argument("use_resource", api)
        for key in kwargs:
            raise argument(key, api)
        trainable = True if trainable is None else trainable
        self._set_scope(None)
        with variable_scope(self._scope, reuse=self.built or self._reuse, auxiliary_name_scope=False) as current:
            self._current_scope = current
            with name_scope(current.original_name_scope):
                if initializer is None:
                    initializer = current.initializer
                var = get_variable(name, shape, dtype=dtype or self.dtype or dtypes.float32, initializer=initializer,
                                   trainable=trainable and self.trainable)
        if trainable and self.trainable and all(var is not v for v in self._trainable_weights):
            self._trainable_weights.append(var)
        return var

    add_weight = add_variable

    # -- the initial state -----------------------------------------------------------------------------
    def get_initial_state(self, inputs=None, batch_size=None, dtype=None):
        if inputs is not None:
            inputs = convert_to_tensor(inputs, name="inputs")
            batch_size = inputs.shape.sizes[0] if inputs.shape.sizes and inputs.shape.sizes[0] is not None else \
                array_ops.shape(inputs)[0]
            dtype = inputs.dtype
        if batch_size is None or dtype is None:
            raise ValueError(f"batch_size and dtype cannot be None while constructing initial state: "
                             f"batch_size={batch_size}, dtype={dtype}")
        return self.zero_state(batch_size, dtype)

    def zero_state(self, batch_size, dtype):
        """Zeros shaped ``[batch_size, s]`` for each ``s`` of ``state_size``."""
        with name_scope(type(self).__name__ + "ZeroState"):
            return zero_state_tensors(self.state_size, batch_size, dtype)


class LayerRNNCell(RNNCell):
    """A cell that is a layer of its own (LSTMCell, GRUCell...): called straight in its scope."""

    def __call__(self, inputs, state, scope=None):
        return self._layer_call(inputs, state, scope=scope)


def zero_state_tensors(state_size, batch_size, dtype):
    """TF's ``_zero_state_tensors``: ``zeros(concat(batch_size, s))`` for each ``s``, with the static
    shape set (the Consts TF makes on the way are made too)."""
    def one(s):
        size = zeros(concat_shapes(batch_size, s), dtype=dtype)
        size.set_shape(concat_shapes(batch_size, s, static=True))
        return size
    return _pack(state_size, [one(s) for s in _flatten(state_size)])


def concat_shapes(prefix, suffix, static=False):
    """TF's ``rnn_cell_impl._concat``: ``prefix`` and ``suffix`` (ints, shapes or tensors) joined,
    as a tensor, or as a list of dims when ``static``. Consts are made either way, as in TF."""
    def part(x):
        if isinstance(x, Tensor):
            static_value = constant_value(x)
            if x.shape.ndims == 0:
                x = array_ops.expand_dims(x, 0)
            elif x.shape.ndims != 1:
                raise ValueError(f"prefix tensor must be either a scalar or vector, but saw tensor: {x}")
            return x, (None if static_value is None else list(static_value.reshape(-1)))
        shape = TensorShape(x if isinstance(x, (list, tuple, TensorShape)) or x is None else [x])
        dims = shape.sizes
        return (constant(list(dims), dtype=dtypes.int32) if shape.is_fully_defined() else None), dims
    p, p_static = part(prefix)
    s, s_static = part(suffix)
    if static:
        if p_static is None or s_static is None:
            return None
        return [None if d is None else int(d) for d in list(p_static) + list(s_static)]
    if p is None or s is None:
        raise ValueError(f"Provided a prefix or suffix of None: {prefix} and {suffix}")
    return array_ops.concat((p, s), 0)


def check_supported_dtypes(dtype):
    if dtype is None:
        return
    dtype = dtypes.as_dtype(dtype)
    if not (dtype.is_floating or dtype.name.startswith("complex")):
        raise ValueError(f"RNN cell only supports floating point inputs, but saw dtype: {dtype}")
