"""``tf.nn.dynamic_rnn`` and ``tf.nn.static_rnn``, built op for op as TF 1.x builds them.

``dynamic_rnn`` turns the batch-major inputs time-major, unstacks them into a TensorArray (one
slot per time step), and runs the cell in a ``tf.while_loop`` over the time steps: each step reads
its input from that array, calls the cell, and writes the output to another TensorArray, which
is stacked (and turned batch-major) after the loop. Gradients flow back through the loop's
gradient loop and the arrays' gradient arrays. ``static_rnn`` calls the cell once per input, in
Python: no loop, one copy of the cell's ops per step.

Both set a caching device on their variable scope outside loops (``lambda op: op.device``), so
each variable's ``read`` runs where the cell runs (its ``DeviceWrapper``'s device), as in TF.
"""
from ..framework import dtypes
from ..framework.graph import get_default_graph
from ..framework.scopes import colocate_with, control_dependencies, name_scope
from ..framework.tensor import Tensor
from ..framework.tensor_shape import TensorShape
from . import array_ops, math_ops
from ..ops.build import convert_to_tensor
from .control_flow import _flatten, _pack, cond, while_loop
from .asserts import Assert
from .rnn_cell_base import concat_shapes
from .rnn_cell_wrappers import assert_like_rnncell
from .tensor_array_ops import TensorArray
from ..ops.tensor_util import constant_value
from .variable_scope import variable_scope


def _str(x):
    """A tensor as TF's messages print one: ``Tensor("x:0", shape=(2, 3), dtype=float32)``."""
    if not isinstance(x, Tensor):
        return str(x)
    return f'Tensor("{x.name}", shape={x.shape}, dtype={x.dtype.name})'


def _transpose_batch_time(x):
    """``x`` with its first two dims swapped (the static shape kept)."""
    dims = x.shape.sizes
    if dims is not None and len(dims) < 2:
        return x
    x_rank = array_ops.rank(x)
    x_t = array_ops.transpose(x, array_ops.concat(([1, 0], array_ops.range(2, x_rank)), axis=0))
    if dims is not None:
        x_t.set_shape([dims[1], dims[0]] + list(dims[2:]))
    return x_t


def _best_effort_input_batch_size(flat_input):
    """The batch size (dim 1 of time-major inputs): an int when known, else a tensor."""
    for input_ in flat_input:
        dims = input_.shape.sizes
        if dims is None:
            continue
        if len(dims) < 2:
            raise ValueError(f"Input tensor should have rank >= 2. Received input={input_} of rank {len(dims)}")
        if dims[1] is not None:
            return dims[1]
    return array_ops.shape(flat_input[0])[1]


def _infer_state_dtype(explicit_dtype, state):
    if explicit_dtype is not None:
        return dtypes.as_dtype(explicit_dtype)
    types = [t.dtype for t in _flatten(state)]
    if not types:
        raise ValueError(f"Unable to infer dtype from argument state={state}.")
    if any(t != types[0] for t in types):
        raise ValueError(f"Argument state={state} has tensors of different inferred dtypes. Unable to infer a "
                         f"single representative dtype. Dtypes received: {types}")
    return types[0]


def _should_cache(graph_context):
    """Variables get a caching device unless the RNN is built inside a while loop."""
    return graph_context is None or graph_context.while_context() is None


def _initial_state(cell, initial_state, batch_size, dtype):
    if initial_state is not None:
        return initial_state
    if not dtype:
        raise ValueError("If no initial_state is provided, argument `dtype` must be specified")
    if getattr(cell, "get_initial_state", None) is not None:
        return cell.get_initial_state(inputs=None, batch_size=batch_size, dtype=dtype)
    return cell.zero_state(batch_size, dtype)


def dynamic_rnn(cell, inputs, sequence_length=None, initial_state=None, dtype=None, parallel_iterations=None,
                swap_memory=False, time_major=False, scope=None):
    """Runs ``cell`` over the time steps of ``inputs`` in a while loop; returns (outputs, final state)."""
    assert_like_rnncell("cell", cell)
    with variable_scope(scope or "rnn") as varscope:
        graph = get_default_graph()
        if _should_cache(graph._get_control_flow_context()) and varscope.caching_device is None:
            varscope.set_caching_device(lambda op: op.device)
        flat_input = _flatten(inputs)
        if not time_major:
            flat_input = [convert_to_tensor(x) for x in flat_input]
            flat_input = tuple(_transpose_batch_time(x) for x in flat_input)
        parallel_iterations = parallel_iterations or 32
        if sequence_length is not None:
            sequence_length = array_ops.cast(sequence_length, dtypes.int32)
            if sequence_length.shape.ndims not in (None, 1):
                raise ValueError(f"Argument sequence_length must be a vector of length batch_size. Received "
                                 f"sequence_length={sequence_length} of shape: {sequence_length.shape}")
            sequence_length = array_ops.identity(sequence_length, name="sequence_length")
        batch_size = _best_effort_input_batch_size(flat_input)
        state = _initial_state(cell, initial_state, batch_size, dtype)
        if sequence_length is not None:  # one length per example, checked when the graph runs
            with control_dependencies([_assert_has_shape(sequence_length, [batch_size])]):
                sequence_length = array_ops.identity(sequence_length, name="CheckSeqLen")
        inputs = _pack(inputs, list(flat_input))
        outputs, final_state = _dynamic_rnn_loop(cell, inputs, state, parallel_iterations, swap_memory,
                                                 sequence_length, dtype)
        if not time_major:
            outputs = _pack(outputs, [_transpose_batch_time(x) for x in _flatten(outputs)])
        return outputs, final_state


def _assert_has_shape(x, shape):
    x_shape = array_ops.shape(x)
    packed_shape = array_ops.stack(shape)
    return Assert(math_ops.reduce_all(math_ops.equal(x_shape, packed_shape)),
                  [f"Expected shape for Tensor {x.name} is ", packed_shape, " but saw shape: ", x_shape])


def _dynamic_rnn_loop(cell, inputs, initial_state, parallel_iterations, swap_memory, sequence_length, dtype):
    state = initial_state
    state_size = cell.state_size
    flat_input = _flatten(inputs)
    flat_output_size = _flatten(cell.output_size)
    input_shape = array_ops.shape(flat_input[0])
    time_steps = input_shape[0]
    batch_size = _best_effort_input_batch_size(flat_input)
    got_shapes = []
    for x in flat_input:
        dims = x.shape.sizes
        if dims is None or len(dims) < 3:
            raise ValueError(f"Shape {x.shape} must have rank at least 3")
        got_shapes.append(dims)
    const_time_steps, const_batch_size = got_shapes[0][:2]
    for x, dims in zip(flat_input, got_shapes):
        if None in dims[2:]:
            raise ValueError(f"Input size (depth of inputs) must be accessible via shape inference, but saw value "
                             f"None for input={_str(x)}.")
        if dims[0] != const_time_steps:
            raise ValueError(f"Time steps is not the same for all the elements in the input in a batch. Received "
                             f"time steps={dims[0]} for input={_str(x)}.")
        if dims[1] != const_batch_size:
            raise ValueError(f"Batch_size is not the same for all the elements in the input. Received batch "
                             f"size={dims[1]} for input={_str(x)}.")

    state_dtype = _infer_state_dtype(dtype, state)
    zero_output = _pack(cell.output_size, [array_ops.zeros(concat_shapes(batch_size, size), state_dtype)
                                           for size in flat_output_size])
    if sequence_length is not None:
        min_sequence_length = math_ops.reduce_min(sequence_length)
        max_sequence_length = math_ops.reduce_max(sequence_length)
    else:
        max_sequence_length = time_steps
    time = array_ops.constant(0, dtype=dtypes.int32, name="time")
    with name_scope("dynamic_rnn") as base_name:
        pass

    def create_ta(name, element_shape, ta_dtype):
        return TensorArray(dtype=ta_dtype, size=time_steps, element_shape=element_shape,
                           tensor_array_name=base_name + name)

    output_ta = tuple(create_ta(f"output_{i}", TensorShape([const_batch_size]).concatenate(
        _as_dims(size)), state_dtype) for i, size in enumerate(flat_output_size))
    input_ta = tuple(create_ta(f"input_{i}", TensorShape(x.shape.sizes[1:]), x.dtype.base_dtype)
                     for i, x in enumerate(flat_input))
    input_ta = tuple(ta.unstack(x) for ta, x in zip(input_ta, flat_input))

    def time_step(time, output_ta_t, state):
        input_t = tuple(ta.read(time) for ta in input_ta)
        for input_, dims in zip(input_t, got_shapes):
            input_.set_shape(dims[1:])
        input_t = _pack(inputs, list(input_t))

        def call_cell():
            return cell(input_t, state)
        if sequence_length is not None:
            output, new_state = _rnn_step(time, sequence_length, min_sequence_length, max_sequence_length,
                                          zero_output, state, call_cell, state_size, skip_conditionals=True)
        else:
            output, new_state = call_cell()
        output = _flatten(output)
        output_ta_t = tuple(ta.write(time, out) for ta, out in zip(output_ta_t, output))
        return time + 1, output_ta_t, new_state

    loop_bound = math_ops.minimum(time_steps, math_ops.maximum(1, max_sequence_length))
    _, output_final_ta, final_state = while_loop(
        cond=lambda time, *_: time < loop_bound, body=time_step, loop_vars=(time, output_ta, state),
        parallel_iterations=parallel_iterations, maximum_iterations=time_steps, swap_memory=swap_memory)
    final_outputs = tuple(ta.stack() for ta in output_final_ta)
    for output, output_size in zip(final_outputs, flat_output_size):
        shape = concat_shapes([const_time_steps, const_batch_size], output_size, static=True)
        if shape is not None:
            output.set_shape(shape)
    return _pack(cell.output_size, list(final_outputs)), final_state


def _as_dims(size):
    if isinstance(size, Tensor):
        value = constant_value(size)
        return TensorShape(None if value is None else list(value.reshape(-1)))
    return TensorShape(size if isinstance(size, (list, tuple, TensorShape)) else [size])


def _rnn_step(time, sequence_length, min_sequence_length, max_sequence_length, zero_output, state, call_cell,
              state_size, skip_conditionals=False):
    """One step with sequence lengths: past its length, an example keeps its state and outputs
    zeros (``where(time >= length, old, new)``, beside the new value)."""
    flat_state = _flatten(state)
    flat_zero_output = _flatten(zero_output)
    copy_cond = time >= sequence_length

    def copy_one_through(output, new_output):
        if isinstance(output, TensorArray) or output.shape.ndims == 0:
            return new_output
        with colocate_with(new_output):
            return array_ops.where(copy_cond, output, new_output)

    def copy_some_through(flat_new_output, flat_new_state):
        return ([copy_one_through(z, n) for z, n in zip(flat_zero_output, flat_new_output)] +
                [copy_one_through(s, n) for s, n in zip(flat_state, flat_new_state)])

    def maybe_copy_some_through():
        new_output, new_state = call_cell()
        flat_new_state, flat_new_output = _flatten(new_state), _flatten(new_output)
        return cond(time < min_sequence_length, lambda: flat_new_output + flat_new_state,
                    lambda: copy_some_through(flat_new_output, flat_new_state))

    if skip_conditionals:
        new_output, new_state = call_cell()
        final = copy_some_through(_flatten(new_output), _flatten(new_state))
    else:
        final = cond(time >= max_sequence_length, lambda: flat_zero_output + flat_state, maybe_copy_some_through)
    final_output, final_state = final[:len(flat_zero_output)], final[len(flat_zero_output):]
    for output, zero in zip(final_output, flat_zero_output):
        output.set_shape(zero.shape)
    for substate, old in zip(final_state, flat_state):
        if not isinstance(substate, TensorArray):
            substate.set_shape(old.shape)
    return _pack(zero_output, final_output), _pack(state, final_state)


def static_rnn(cell, inputs, initial_state=None, dtype=None, sequence_length=None, scope=None):
    """Calls ``cell`` on each of ``inputs`` (a list, one tensor per time step), reusing its
    variables after the first step; returns (the list of outputs, the final state)."""
    assert_like_rnncell("cell", cell)
    if not isinstance(inputs, (list, tuple)):
        raise TypeError(f"Argument `inputs` must be a sequence. Received: {_str(inputs)}")
    if not inputs:
        raise ValueError("Argument `inputs` must not be empty.")
    outputs = []
    with variable_scope(scope or "rnn") as varscope:
        if _should_cache(get_default_graph()._get_control_flow_context()) and varscope.caching_device is None:
            varscope.set_caching_device(lambda op: op.device)
        first_input = inputs
        while isinstance(first_input, (list, tuple)):
            first_input = first_input[0]
        first_input = convert_to_tensor(first_input)
        dims = first_input.shape.sizes
        fixed_batch_size = dims[0] if dims else None
        if dims is not None and len(dims) != 1:
            for x in _flatten(inputs):
                x_dims = convert_to_tensor(x).shape.sizes
                for i, size in enumerate((x_dims or [None, None])[1:]):
                    if size is None:
                        raise ValueError(f"Input size (dimension {i} of input {x}) must be accessible via shape "
                                         f"inference, but saw value None.")
        batch_size = fixed_batch_size if fixed_batch_size else array_ops.shape(first_input)[0]
        state = _initial_state(cell, initial_state, batch_size, dtype)
        if sequence_length is not None:
            sequence_length = convert_to_tensor(sequence_length, name="sequence_length")
            if sequence_length.shape.ndims not in (None, 1):
                raise ValueError(f"Argument `sequence_length` must be a vector of length {batch_size}. Received "
                                 f"sequence_length={sequence_length}.")
            flat_output_size = _flatten(cell.output_size)
            zero_outputs = []
            for size in flat_output_size:
                output = array_ops.zeros(concat_shapes(batch_size, size), _infer_state_dtype(dtype, state))
                static = concat_shapes(fixed_batch_size, size, static=True) if fixed_batch_size else None
                if static is not None:
                    output.set_shape(static)
                zero_outputs.append(output)
            zero_output = _pack(cell.output_size, zero_outputs)
            sequence_length = array_ops.cast(sequence_length, dtypes.int32)
            min_sequence_length = math_ops.reduce_min(sequence_length)
            max_sequence_length = math_ops.reduce_max(sequence_length)
        for time, input_ in enumerate(inputs):
            if time > 0:
                varscope.reuse_variables()

            def call_cell(input_=input_, state=state):
                return cell(input_, state)
            if sequence_length is not None:
                output, state = _rnn_step(time, sequence_length, min_sequence_length, max_sequence_length,
                                          zero_output, state, call_cell, cell.state_size)
            else:
                output, state = call_cell()
            outputs.append(output)
        return outputs, state
