"""``tf.nn.bidirectional_dynamic_rnn``: a forward ``dynamic_rnn`` in ``bidirectional_rnn/fw`` and a
backward one in ``bidirectional_rnn/bw`` over the inputs reversed in time (``ReverseSequence``
when the lengths are given, else ``ReverseV2``), its outputs reversed back, as TF's rnn.py builds it."""
from .control_flow import _flatten, _pack
from .reverse_ops import reverse, reverse_sequence
from .rnn import dynamic_rnn
from .rnn_cell_wrappers import assert_like_rnncell
from .variable_scope import variable_scope


def _reverse(input_, seq_lengths, seq_axis, batch_axis):
    if seq_lengths is not None:
        return reverse_sequence(input=input_, seq_lengths=seq_lengths, seq_axis=seq_axis, batch_axis=batch_axis)
    return reverse(input_, axis=[seq_axis])


def bidirectional_dynamic_rnn(cell_fw, cell_bw, inputs, sequence_length=None, initial_state_fw=None,
                              initial_state_bw=None, dtype=None, parallel_iterations=None, swap_memory=False,
                              time_major=False, scope=None):
    """((output_fw, output_bw), (output_state_fw, output_state_bw)) of the two directions."""
    assert_like_rnncell("cell_fw", cell_fw)
    assert_like_rnncell("cell_bw", cell_bw)

    with variable_scope(scope or "bidirectional_rnn"):
        # Forward direction
        with variable_scope("fw") as fw_scope:
            output_fw, output_state_fw = dynamic_rnn(
                cell=cell_fw, inputs=inputs, sequence_length=sequence_length, initial_state=initial_state_fw,
                dtype=dtype, parallel_iterations=parallel_iterations, swap_memory=swap_memory,
                time_major=time_major, scope=fw_scope)

        # Backward direction
        time_axis, batch_axis = (0, 1) if time_major else (1, 0)
        with variable_scope("bw") as bw_scope:
            inputs_reverse = _pack(inputs, [_reverse(t, sequence_length, time_axis, batch_axis)
                                            for t in _flatten(inputs)])
            tmp, output_state_bw = dynamic_rnn(
                cell=cell_bw, inputs=inputs_reverse, sequence_length=sequence_length,
                initial_state=initial_state_bw, dtype=dtype, parallel_iterations=parallel_iterations,
                swap_memory=swap_memory, time_major=time_major, scope=bw_scope)

    output_bw = _reverse(tmp, sequence_length, time_axis, batch_axis)
    return (output_fw, output_bw), (output_state_fw, output_state_bw)
