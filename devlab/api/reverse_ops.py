"""``tf.reverse_sequence`` and ``tf.reverse``: the ReverseSequence and ReverseV2 ops as TF's
generated wrappers build them (``bidirectional_dynamic_rnn`` feeds its backward cell through one)."""
from ..ops.build import op_output


def reverse_sequence(input, seq_lengths, seq_axis=None, batch_axis=None, name=None,  # noqa: A002 - TF's name
                     seq_dim=None, batch_dim=None):
    """Reverses the first ``seq_lengths[b]`` steps along ``seq_axis`` of each entry ``b`` along ``batch_axis``."""
    if seq_axis is not None and seq_dim is not None:
        raise ValueError("Cannot specify both 'seq_axis' and 'seq_dim'")
    if batch_axis is not None and batch_dim is not None:
        raise ValueError("Cannot specify both 'batch_axis' and 'batch_dim'")
    seq_axis = seq_dim if seq_axis is None else seq_axis
    batch_axis = batch_dim if batch_axis is None else batch_axis
    if not isinstance(seq_axis, int) or isinstance(seq_axis, bool):
        raise TypeError(f"Expected int for argument 'seq_dim' not {seq_axis!r}.")
    batch_axis = 0 if batch_axis is None else batch_axis
    if not isinstance(batch_axis, int) or isinstance(batch_axis, bool):
        raise TypeError(f"Expected int for argument 'batch_dim' not {batch_axis!r}.")
    return op_output("ReverseSequence", name, [("input", input, None), ("seq_lengths", seq_lengths, None)],
                     {"seq_dim": seq_axis, "batch_dim": batch_axis})


def reverse(tensor, axis, name=None):
    """``tensor`` reversed along the dimensions ``axis``."""
    return op_output("ReverseV2", name, [("tensor", tensor, None), ("axis", axis, None)])
