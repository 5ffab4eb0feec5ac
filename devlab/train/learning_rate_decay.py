"""``tf.train.exponential_decay``: a learning rate that shrinks with the global step, built as
TF 2.x's ``ExponentialDecay`` schedule builds it (TF1's function calls the schedule at once)."""
from ..framework.scopes import name_scope
from ..ops import array_ops, math_ops
from ..ops.build import apply_op_output, convert_to_tensor


def exponential_decay(learning_rate, global_step, decay_steps, decay_rate, staircase=False, name=None):
    """learning_rate * decay_rate ** (global_step / decay_steps), the exponent floored when
    ``staircase`` (the rate then drops every ``decay_steps`` steps)."""
    if global_step is None:
        raise ValueError("global_step is required for exponential_decay.")
    with name_scope(name or "ExponentialDecay") as scope:
        lr = convert_to_tensor(learning_rate, name="initial_learning_rate")
        dtype = lr.dtype.base_dtype
        steps = array_ops.cast(decay_steps, dtype)
        rate = array_ops.cast(decay_rate, dtype)
        p = array_ops.cast(global_step, dtype) / steps
        if staircase:
            p = apply_op_output("Floor", [p], None, "Floor")
        return math_ops.multiply(lr, math_ops.pow(rate, p), name=scope)
