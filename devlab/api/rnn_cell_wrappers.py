"""Cells made of cells: ``MultiRNNCell`` (a stack of layers), and the wrappers ``DeviceWrapper``,
``DropoutWrapper`` and ``ResidualWrapper`` (TF 1.x ``tf.nn.rnn_cell``).

``DeviceWrapper(cell, "/gpu:1")`` is the model parallelism of GNMT and the seq2seq tutorials:
every op of ``cell``, at every time step, is built inside ``tf.device("/gpu:1")``, so a stack of
wrapped layers puts one layer per device; its zero state is made there too. The wrappers add no
variable scope of their own, so the wrapped cell's variables keep their names.
"""
import hashlib

from ..framework.scopes import device, name_scope
from . import array_ops, nn_impl
from ..ops.build import convert_to_tensor
from .control_flow import _flatten, _pack
from .rnn_cell import LSTMStateTuple
from .rnn_cell_base import RNNCell
from ..ops.tensor_util import constant_value
from .variable_scope import variable_scope
from ..unimplemented import argument, reject


def assert_like_rnncell(cell_name, cell):
    """TF's TypeError for an object that is not a cell."""
    conditions = [hasattr(cell, "output_size"), hasattr(cell, "state_size"),
                  hasattr(cell, "get_initial_state") or hasattr(cell, "zero_state"), callable(cell)]
    messages = ["'output_size' property is missing", "'state_size' property is missing",
                "either 'zero_state' or 'get_initial_state' method is required", "is not callable"]
    if not all(conditions):
        missing = [m for m, ok in zip(messages, conditions) if not ok]
        raise TypeError(f"The argument {cell_name!r} ({cell}) is not an RNNCell: {', '.join(missing)}.")


class MultiRNNCell(RNNCell):
    """Cells applied one after the other, each in its scope ``cell_<i>``; the state is the tuple of
    the cells' states."""

    def __init__(self, cells, state_is_tuple=True):
        super().__init__()
        if not cells:
            raise ValueError("Must specify at least one cell for MultiRNNCell.")
        if not isinstance(cells, (list, tuple)):
            raise TypeError(f"cells must be a list or tuple, but saw: {cells}.")
        self._cells = cells
        self._state_is_tuple = state_is_tuple
        if not state_is_tuple and any(isinstance(c.state_size, tuple) for c in cells):
            raise ValueError(f"Some cells return tuples of states, but the flag state_is_tuple is not set.  State "
                             f"sizes are: {[c.state_size for c in cells]}")

    @property
    def state_size(self):
        if self._state_is_tuple:
            return tuple(cell.state_size for cell in self._cells)
        return sum(cell.state_size for cell in self._cells)

    @property
    def output_size(self):
        return self._cells[-1].output_size

    @property
    def trainable_weights(self):
        if not self.trainable:
            return []
        return [w for cell in self._cells for w in getattr(cell, "trainable_weights", [])]

    def zero_state(self, batch_size, dtype):
        with name_scope(type(self).__name__ + "ZeroState"):
            if self._state_is_tuple:
                return tuple(cell.zero_state(batch_size, dtype) for cell in self._cells)
            return super().zero_state(batch_size, dtype)

    def call(self, inputs, state):
        cur_state_pos, cur_inp, new_states = 0, inputs, []
        for i, cell in enumerate(self._cells):
            with variable_scope(f"cell_{i}"):
                if self._state_is_tuple:
                    if not isinstance(state, (list, tuple)):
                        raise ValueError(f"Expected state to be a tuple of length {len(self.state_size)}, but "
                                         f"received: {state}")
                    cur_state = state[i]
                else:
                    cur_state = array_ops.slice(state, [0, cur_state_pos], [-1, cell.state_size])
                    cur_state_pos += cell.state_size
                cur_inp, new_state = cell(cur_inp, cur_state)
                new_states.append(new_state)
        return cur_inp, tuple(new_states) if self._state_is_tuple else array_ops.concat(new_states, 1)


class _Wrapper(RNNCell):
    """A cell around another: the same sizes; calling it calls the wrapped cell (no scope of its own)."""

    def __init__(self, cell, dtype=None, **kwargs):
        super().__init__(dtype=dtype, **kwargs)
        assert_like_rnncell("cell", cell)
        self.cell = cell

    @property
    def wrapped_cell(self):
        return self.cell

    @property
    def state_size(self):
        return self.cell.state_size

    @property
    def output_size(self):
        return self.cell.output_size

    @property
    def trainable_weights(self):
        return getattr(self.cell, "trainable_weights", [])

    def __call__(self, inputs, state, scope=None):
        return self._call_wrapped_cell(inputs, state, self.cell.__call__, scope=scope)

    def zero_state(self, batch_size, dtype):
        with name_scope(type(self).__name__ + "ZeroState"):
            return self.cell.zero_state(batch_size, dtype)


class DeviceWrapper(_Wrapper):
    """Runs ``cell`` (and makes its zero state) on ``device``."""

    def __init__(self, cell, device, **kwargs):  # noqa: A002 - TF's argument name
        super().__init__(cell, **kwargs)
        self._device = device

    def zero_state(self, batch_size, dtype):
        with name_scope(type(self).__name__ + "ZeroState"), device(self._device):
            return self.cell.zero_state(batch_size, dtype)

    def _call_wrapped_cell(self, inputs, state, cell_call_fn, **kwargs):
        with device(self._device):
            return cell_call_fn(inputs, state, **kwargs)


class ResidualWrapper(_Wrapper):
    """Adds the cell's inputs to its outputs (or applies ``residual_fn(inputs, outputs)``)."""

    def __init__(self, cell, residual_fn=None, **kwargs):
        super().__init__(cell, **kwargs)
        self._residual_fn = residual_fn

    def _call_wrapped_cell(self, inputs, state, cell_call_fn, **kwargs):
        outputs, new_state = cell_call_fn(inputs, state, **kwargs)

        def default(inputs, outputs):
            flat_in, flat_out = _flatten(inputs), _flatten(outputs)
            for x, y in zip(flat_in, flat_out):
                if not x.shape.is_compatible_with(y.shape):
                    raise ValueError(f"Shapes {x.shape} and {y.shape} are incompatible")
            return _pack(outputs, [x + y for x, y in zip(flat_in, flat_out)])
        return (self._residual_fn or default)(inputs, outputs), new_state


class DropoutWrapper(_Wrapper):
    """Dropout on the cell's inputs, outputs and state (only where a keep probability is below 1;
    of an LSTM's state only ``h``), with TF's per-tensor seeds."""

    def __init__(self, cell, input_keep_prob=1.0, output_keep_prob=1.0, state_keep_prob=1.0,
                 variational_recurrent=False, input_size=None, dtype=None, seed=None,
                 dropout_state_filter_visitor=None, **kwargs):
        super().__init__(cell, dtype=dtype, **kwargs)
        if variational_recurrent:
            raise argument("variational_recurrent", "tf.nn.rnn_cell.DropoutWrapper")
        reject("tf.nn.rnn_cell.DropoutWrapper", input_size=(input_size, None))  # used only when variational
        if dropout_state_filter_visitor is not None and not callable(dropout_state_filter_visitor):
            raise TypeError("dropout_state_filter_visitor must be callable")
        self._dropout_state_filter = dropout_state_filter_visitor or _default_dropout_state_filter
        with name_scope("DropoutWrapperInit"):  # TF converts each probability to a tensor here
            for prob, attr in ((input_keep_prob, "input_keep_prob"), (state_keep_prob, "state_keep_prob"),
                               (output_keep_prob, "output_keep_prob")):
                tensor = convert_to_tensor(prob)
                value = constant_value(tensor)
                if value is not None:
                    if value < 0 or value > 1:
                        raise ValueError(f"Parameter {attr} must be between 0 and 1: {int(value)}")
                    setattr(self, f"_{attr}", float(value))
                else:
                    setattr(self, f"_{attr}", tensor)
        self._seed = seed

    def _gen_seed(self, salt_prefix, index):
        if self._seed is None:
            return None
        string = (str(self._seed) + f"{salt_prefix}_{index}").encode("utf-8")
        return int(hashlib.md5(string).hexdigest()[:8], 16) & 0x7FFFFFFF

    def _dropout(self, values, salt_prefix, keep_prob, keep=None):
        """``values`` with dropout where ``keep`` (the same structure, True/False) says so."""
        flat = _flatten(values)
        mask = [True] * len(flat) if keep is None else _flatten(keep)
        out = [nn_impl.dropout(v, rate=1.0 - keep_prob, seed=self._gen_seed(salt_prefix, i)) if do else v
               for i, (do, v) in enumerate(zip(mask, flat))]
        return _pack(values, out)

    def _call_wrapped_cell(self, inputs, state, cell_call_fn, **kwargs):
        def should(p):
            return not isinstance(p, float) or p < 1
        if should(self._input_keep_prob):
            inputs = self._dropout(inputs, "input", self._input_keep_prob)
        output, new_state = cell_call_fn(inputs, state, **kwargs)
        if should(self._state_keep_prob):
            new_state = self._dropout(new_state, "state", self._state_keep_prob,
                                      _state_filter(self._dropout_state_filter, new_state))
        if should(self._output_keep_prob):
            output = self._dropout(output, "output", self._output_keep_prob)
        return output, new_state


def _default_dropout_state_filter(substate):
    if isinstance(substate, LSTMStateTuple):
        return LSTMStateTuple(c=False, h=True)
    return True


def _state_filter(visitor, structure):
    """Which tensors of ``structure`` (a state) get dropout, as a structure of True/False: TF's
    ``get_traverse_shallow_structure`` with the visitor, spread down to every tensor."""
    answer = visitor(structure)
    if not isinstance(structure, (list, tuple)):
        return answer
    if isinstance(answer, bool):
        parts = [_state_filter(visitor, branch) if answer else _all(branch, False) for branch in structure]
    else:
        parts = [_state_filter(visitor, branch) if flag else _all(branch, False) for flag, branch in
                 zip(answer, structure)]
    return type(structure)(*parts) if hasattr(structure, "_fields") else type(structure)(parts)


def _all(structure, flag):
    return _pack(structure, [flag] * len(_flatten(structure)))
