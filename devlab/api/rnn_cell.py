"""``tf.nn.rnn_cell``'s cells: ``BasicRNNCell``, ``GRUCell``, ``BasicLSTMCell``, ``LSTMCell`` and
``LSTMStateTuple``, built op for op as TF 1.x builds them (tf_keras's ``legacy_rnn``).

Each cell's ``call`` is one step: the input and the previous output are concatenated, multiplied
by one kernel (``[input depth + units, gates * units]``), a bias is added, and the gates are
split out of the result. Naming and variable reuse come from ``rnn_cell_base.py``.
"""
import collections

from ..framework import dtypes
from . import array_ops, init_ops, math_ops, nn_ops
from .array_ops import constant
from .control_flow import _flatten
from .rnn_cell_base import LayerRNNCell, check_supported_dtypes

_LSTMStateTuple = collections.namedtuple("LSTMStateTuple", ("c", "h"))


class LSTMStateTuple(_LSTMStateTuple):
    """An LSTM's state: ``c`` (the cell's memory) and ``h`` (its output)."""
    __slots__ = ()

    @property
    def dtype(self):
        c, h = self
        if c.dtype != h.dtype:
            raise TypeError(f"Inconsistent internal state: {c.dtype} vs {h.dtype}")
        return c.dtype


def _check_inputs_dtypes(inputs):
    for t in _flatten(inputs):
        check_supported_dtypes(t.dtype)


def _depth(inputs_shape):
    dims = inputs_shape.sizes
    if dims is None or dims[-1] is None:
        raise ValueError(f"Expected inputs.shape[-1] to be known, saw shape: {tuple(dims or ())}")
    return dims[-1]


class BasicRNNCell(LayerRNNCell):
    """``output = new_state = activation(W [inputs, state] + b)``."""

    def __init__(self, num_units, activation=None, reuse=None, name=None, dtype=None, **kwargs):
        super().__init__(_reuse=reuse, name=name, dtype=dtype, **kwargs)
        check_supported_dtypes(self.dtype)
        self.input_ndim = 2
        self._num_units = num_units
        self._activation = activation or math_ops.tanh

    @property
    def state_size(self):
        return self._num_units

    @property
    def output_size(self):
        return self._num_units

    def build(self, inputs_shape):
        depth = _depth(inputs_shape)
        self._kernel = self.add_variable("kernel", shape=[depth + self._num_units, self._num_units])
        self._bias = self.add_variable("bias", shape=[self._num_units],
                                       initializer=init_ops.zeros_initializer(dtype=self.dtype))

    def call(self, inputs, state):
        _check_inputs_dtypes([inputs, state])
        gate_inputs = math_ops.matmul(array_ops.concat([inputs, state], 1), self._kernel)
        gate_inputs = nn_ops.bias_add(gate_inputs, self._bias)
        output = self._activation(gate_inputs)
        return output, output


class GRUCell(LayerRNNCell):
    """A gated recurrent unit: reset and update gates (``gates/``), then a candidate (``candidate/``)."""

    def __init__(self, num_units, activation=None, reuse=None, kernel_initializer=None, bias_initializer=None,
                 name=None, dtype=None, **kwargs):
        super().__init__(_reuse=reuse, name=name, dtype=dtype, **kwargs)
        check_supported_dtypes(self.dtype)
        self.input_ndim = 2
        self._num_units = num_units
        self._activation = activation or math_ops.tanh
        self._kernel_initializer = kernel_initializer
        self._bias_initializer = bias_initializer

    @property
    def state_size(self):
        return self._num_units

    @property
    def output_size(self):
        return self._num_units

    def build(self, inputs_shape):
        depth = _depth(inputs_shape)
        units = self._num_units
        self._gate_kernel = self.add_variable("gates/kernel", shape=[depth + units, 2 * units],
                                              initializer=self._kernel_initializer)
        self._gate_bias = self.add_variable(
            "gates/bias", shape=[2 * units],
            initializer=self._bias_initializer if self._bias_initializer is not None else
            init_ops.constant_initializer(1.0, dtype=self.dtype))
        self._candidate_kernel = self.add_variable("candidate/kernel", shape=[depth + units, units],
                                                   initializer=self._kernel_initializer)
        self._candidate_bias = self.add_variable(
            "candidate/bias", shape=[units],
            initializer=self._bias_initializer if self._bias_initializer is not None else
            init_ops.zeros_initializer(dtype=self.dtype))

    def call(self, inputs, state):
        _check_inputs_dtypes([inputs, state])
        gate_inputs = math_ops.matmul(array_ops.concat([inputs, state], 1), self._gate_kernel)
        gate_inputs = nn_ops.bias_add(gate_inputs, self._gate_bias)
        value = math_ops.sigmoid(gate_inputs)
        r, u = array_ops.split(value=value, num_or_size_splits=2, axis=1)
        r_state = r * state
        candidate = math_ops.matmul(array_ops.concat([inputs, r_state], 1), self._candidate_kernel)
        candidate = nn_ops.bias_add(candidate, self._candidate_bias)
        c = self._activation(candidate)
        new_h = u * state + (1 - u) * c
        return new_h, new_h


class BasicLSTMCell(LayerRNNCell):
    """An LSTM without peepholes or projection: gates i, j, f, o from one kernel; the forget gate's
    bias starts at ``forget_bias``."""

    def __init__(self, num_units, forget_bias=1.0, state_is_tuple=True, activation=None, reuse=None, name=None,
                 dtype=None, **kwargs):
        super().__init__(_reuse=reuse, name=name, dtype=dtype, **kwargs)
        check_supported_dtypes(self.dtype)
        self.input_ndim = 2
        self._num_units = num_units
        self._forget_bias = forget_bias
        self._state_is_tuple = state_is_tuple
        self._activation = activation or math_ops.tanh

    @property
    def state_size(self):
        return LSTMStateTuple(self._num_units, self._num_units) if self._state_is_tuple else 2 * self._num_units

    @property
    def output_size(self):
        return self._num_units

    def build(self, inputs_shape):
        depth = _depth(inputs_shape)
        self._kernel = self.add_variable("kernel", shape=[depth + self._num_units, 4 * self._num_units])
        self._bias = self.add_variable("bias", shape=[4 * self._num_units],
                                       initializer=init_ops.zeros_initializer(dtype=self.dtype))

    def call(self, inputs, state):
        _check_inputs_dtypes([inputs, state])
        one = constant(1, dtype=dtypes.int32)
        if self._state_is_tuple:
            c, h = state
        else:
            c, h = array_ops.split(value=state, num_or_size_splits=2, axis=one)
        gate_inputs = math_ops.matmul(array_ops.concat([inputs, h], 1), self._kernel)
        gate_inputs = nn_ops.bias_add(gate_inputs, self._bias)
        i, j, f, o = array_ops.split(value=gate_inputs, num_or_size_splits=4, axis=one)
        forget_bias_tensor = constant(self._forget_bias, dtype=f.dtype.base_dtype)
        sigmoid, add, multiply = math_ops.sigmoid, math_ops.add, math_ops.multiply
        new_c = add(multiply(c, sigmoid(add(f, forget_bias_tensor))), multiply(sigmoid(i), self._activation(j)))
        new_h = multiply(self._activation(new_c), sigmoid(o))
        new_state = LSTMStateTuple(new_c, new_h) if self._state_is_tuple else array_ops.concat([new_c, new_h], 1)
        return new_h, new_state


class LSTMCell(LayerRNNCell):
    """An LSTM with optional peepholes (``w_f_diag``...), cell clipping and a projection of its output."""

    def __init__(self, num_units, use_peepholes=False, cell_clip=None, initializer=None, num_proj=None,
                 proj_clip=None, num_unit_shards=None, num_proj_shards=None, forget_bias=1.0, state_is_tuple=True,
                 activation=None, reuse=None, name=None, dtype=None, **kwargs):
        super().__init__(_reuse=reuse, name=name, dtype=dtype, **kwargs)
        check_supported_dtypes(self.dtype)
        if num_unit_shards is not None or num_proj_shards is not None:
            raise NotImplementedError("devlab's LSTMCell does not shard its variables (num_unit_shards, "
                                      "num_proj_shards)")
        self.input_ndim = 2
        self._num_units = num_units
        self._use_peepholes = use_peepholes
        self._cell_clip = cell_clip
        self._initializer = initializer
        self._num_proj = num_proj
        self._proj_clip = proj_clip
        self._forget_bias = forget_bias
        self._state_is_tuple = state_is_tuple
        self._activation = activation or math_ops.tanh
        if num_proj:
            self._state_size = LSTMStateTuple(num_units, num_proj) if state_is_tuple else num_units + num_proj
            self._output_size = num_proj
        else:
            self._state_size = LSTMStateTuple(num_units, num_units) if state_is_tuple else 2 * num_units
            self._output_size = num_units

    @property
    def state_size(self):
        return self._state_size

    @property
    def output_size(self):
        return self._output_size

    def build(self, inputs_shape):
        depth = _depth(inputs_shape)
        h_depth = self._num_units if self._num_proj is None else self._num_proj
        self._kernel = self.add_variable("kernel", shape=[depth + h_depth, 4 * self._num_units],
                                         initializer=self._initializer)
        self._bias = self.add_variable("bias", shape=[4 * self._num_units],
                                       initializer=init_ops.zeros_initializer(dtype=self.dtype))
        if self._use_peepholes:
            self._w_f_diag = self.add_variable("w_f_diag", shape=[self._num_units], initializer=self._initializer)
            self._w_i_diag = self.add_variable("w_i_diag", shape=[self._num_units], initializer=self._initializer)
            self._w_o_diag = self.add_variable("w_o_diag", shape=[self._num_units], initializer=self._initializer)
        if self._num_proj is not None:
            self._proj_kernel = self.add_variable("projection/kernel", shape=[self._num_units, self._num_proj],
                                                  initializer=self._initializer)

    def call(self, inputs, state):
        _check_inputs_dtypes([inputs, state])
        num_proj = self._num_units if self._num_proj is None else self._num_proj
        sigmoid = math_ops.sigmoid
        if self._state_is_tuple:
            c_prev, m_prev = state
        else:
            c_prev = array_ops.slice(state, [0, 0], [-1, self._num_units])
            m_prev = array_ops.slice(state, [0, self._num_units], [-1, num_proj])
        if inputs.shape.sizes is None or len(inputs.shape.sizes) != 2 or inputs.shape.sizes[1] is None:
            raise ValueError("Could not infer input size from inputs.get_shape()[-1]")
        lstm_matrix = math_ops.matmul(array_ops.concat([inputs, m_prev], 1), self._kernel)
        lstm_matrix = nn_ops.bias_add(lstm_matrix, self._bias)
        i, j, f, o = array_ops.split(value=lstm_matrix, num_or_size_splits=4, axis=1)
        if self._use_peepholes:
            c = (sigmoid(f + self._forget_bias + self._w_f_diag * c_prev) * c_prev +
                 sigmoid(i + self._w_i_diag * c_prev) * self._activation(j))
        else:
            c = sigmoid(f + self._forget_bias) * c_prev + sigmoid(i) * self._activation(j)
        if self._cell_clip is not None:
            c = math_ops.clip_by_value(c, -self._cell_clip, self._cell_clip)
        if self._use_peepholes:
            m = sigmoid(o + self._w_o_diag * c) * self._activation(c)
        else:
            m = sigmoid(o) * self._activation(c)
        if self._num_proj is not None:
            m = math_ops.matmul(m, self._proj_kernel)
            if self._proj_clip is not None:
                m = math_ops.clip_by_value(m, -self._proj_clip, self._proj_clip)
        new_state = LSTMStateTuple(c, m) if self._state_is_tuple else array_ops.concat([c, m], 1)
        return m, new_state
