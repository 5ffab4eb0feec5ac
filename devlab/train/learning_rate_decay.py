"""``tf.train``'s learning-rate schedules (``exponential_decay``, ``piecewise_constant``,
``polynomial_decay``, ``inverse_time_decay``, ``natural_exp_decay``, ``cosine_decay``,
``cosine_decay_restarts``, ``linear_cosine_decay``): a learning rate that changes with the global
step, built as TF 2.x's schedules of the same names build it (TF1's functions call the schedule at
once), so their ops read the step where they are placed."""
import math

from ..framework import dtypes
from ..framework.scopes import name_scope
from ..api import array_ops, math_ops
from ..ops.build import apply_op_output, convert_to_tensor
from ..api.control_flow_case import case


def exponential_decay(learning_rate, global_step, decay_steps, decay_rate, staircase=False, name=None):
    """learning_rate * decay_rate ** (global_step / decay_steps), the exponent floored when
    ``staircase`` (the rate then drops every ``decay_steps`` steps)."""
    if global_step is None:
        raise ValueError("global_step is required for exponential_decay.")
    with name_scope(name or "ExponentialDecay") as scope:
        lr, dtype, rate, p = _decay_inputs(learning_rate, global_step, decay_steps, decay_rate, staircase)
        return math_ops.multiply(lr, math_ops.pow(rate, p), name=scope)


def _decay_inputs(learning_rate, global_step, decay_steps, decay_rate, staircase):
    """The ops every step-ratio schedule starts with, in TF's order: the rate as a tensor, its dtype,
    ``decay_rate`` in that dtype, and ``global_step / decay_steps`` (floored when ``staircase``)."""
    lr = convert_to_tensor(learning_rate, name="initial_learning_rate")
    dtype = lr.dtype.base_dtype
    steps = array_ops.cast(decay_steps, dtype)
    rate = array_ops.cast(decay_rate, dtype)
    p = array_ops.cast(global_step, dtype) / steps
    if staircase:
        p = apply_op_output("Floor", [p], None, "Floor")
    return lr, dtype, rate, p


# -- the other schedules of tf.train, each as TF 2.x's LearningRateSchedule of the same name builds it -----
def _tf_str(dtype):
    return f"<dtype: '{dtype.base_dtype.name}'>"  # how TF's messages print a DType


def piecewise_constant(x, boundaries, values, name=None):
    """values[0] while x <= boundaries[0], values[1] while x <= boundaries[1], ..., values[-1]
    after the last boundary: a ``tf.case`` over the intervals (exclusive, so an Assert checks
    that one interval holds). int32 boundaries are cast to an int64 step."""
    boundaries = [convert_to_tensor(b) for b in _flatten(boundaries)]
    values = [convert_to_tensor(v) for v in _flatten(values)]
    x_recomp = convert_to_tensor(x)
    for i, b in enumerate(boundaries):
        if b.dtype.base_dtype != x_recomp.dtype.base_dtype:
            if b.dtype.base_dtype == dtypes.int32 and x_recomp.dtype.base_dtype == dtypes.int64:
                boundaries[i] = array_ops.cast(b, dtypes.int64)
            else:
                raise ValueError("Boundaries (%s) must have the same dtype as x (%s)."
                                 % (_tf_str(b.dtype), _tf_str(x_recomp.dtype)))
    for v in values[1:]:
        if v.dtype.base_dtype != values[0].dtype.base_dtype:
            raise ValueError("Values must have elements all with the same dtype (%s vs %s)."
                             % (_tf_str(values[0].dtype), _tf_str(v.dtype)))
    with name_scope(name or "PiecewiseConstant"):
        x_recomp = convert_to_tensor(x)
        pred_fn_pairs = [(x_recomp <= boundaries[0], lambda: values[0]),
                         (x_recomp > boundaries[-1], lambda: values[-1])]
        for low, high, v in zip(boundaries[:-1], boundaries[1:], values[1:-1]):
            pred_fn_pairs.append(((x_recomp > low) & (x_recomp <= high), lambda v=v: v))
        return case(pred_fn_pairs, lambda: values[0], exclusive=True)


def _flatten(x):
    return [y for item in x for y in _flatten(item)] if isinstance(x, (list, tuple)) else [x]


def polynomial_decay(learning_rate, global_step, decay_steps, end_learning_rate=0.0001, power=1.0, cycle=False,
                     name=None):
    """From learning_rate to end_learning_rate over decay_steps along (1 - step/decay_steps)^power,
    then flat; ``cycle`` restarts from a multiple of decay_steps instead."""
    with name_scope(name or "PolynomialDecay") as scope:
        lr = convert_to_tensor(learning_rate, name="initial_learning_rate")
        dtype = lr.dtype.base_dtype
        end_lr = array_ops.cast(end_learning_rate, dtype)
        power_t = array_ops.cast(power, dtype)
        step = array_ops.cast(global_step, dtype)
        steps = array_ops.cast(decay_steps, dtype)
        if cycle:
            # the first multiple of decay_steps above the step (1 at step 0)
            multiplier = array_ops.where_v2(math_ops.equal(step, 0), 1.0, math_ops.ceil(step / decay_steps))
            steps = math_ops.multiply(steps, multiplier)
        else:
            step = math_ops.minimum(step, steps)
        p = math_ops.divide(step, steps)
        return math_ops.add(math_ops.multiply(lr - end_lr, math_ops.pow(1 - p, power_t)), end_lr, name=scope)


def inverse_time_decay(learning_rate, global_step, decay_steps, decay_rate, staircase=False, name=None):
    """learning_rate / (1 + decay_rate * step / decay_steps), the ratio floored when ``staircase``."""
    with name_scope(name or "InverseTimeDecay") as scope:
        lr, dtype, rate, p = _decay_inputs(learning_rate, global_step, decay_steps, decay_rate, staircase)
        one = array_ops.cast(array_ops.constant(1), dtype)
        return math_ops.divide(lr, math_ops.add(one, math_ops.multiply(rate, p)), name=scope)


def natural_exp_decay(learning_rate, global_step, decay_steps, decay_rate, staircase=False, name=None):
    """learning_rate * e^(-decay_rate * step / decay_steps): an exponential decay whose rate is the
    tensor exp(-decay_rate), built first, outside the schedule's scope."""
    natural_exp_rate = math_ops.exp(math_ops.negative(decay_rate))
    return exponential_decay(learning_rate, global_step, decay_steps, natural_exp_rate, staircase=staircase,
                             name=name)


def cosine_decay(learning_rate, global_step, decay_steps, alpha=0.0, name=None):
    """learning_rate * ((1 - alpha) * (1 + cos(pi * min(step, decay_steps) / decay_steps)) / 2 + alpha)
    (Loshchilov & Hutter's SGDR, without restarts)."""
    with name_scope(name or "CosineDecay"):
        lr = convert_to_tensor(learning_rate, name="initial_learning_rate")
        dtype = lr.dtype.base_dtype
        steps = array_ops.cast(decay_steps, dtype)
        step = math_ops.minimum(array_ops.cast(global_step, dtype), steps)
        completed_fraction = step / steps
        cosine_decayed = 0.5 * (1.0 + math_ops.cos(array_ops.constant(math.pi) * completed_fraction))
        decayed = (1 - alpha) * cosine_decayed + alpha
        return math_ops.multiply(lr, decayed)


def cosine_decay_restarts(learning_rate, global_step, first_decay_steps, t_mul=2.0, m_mul=1.0, alpha=0.0, name=None):
    """Cosine decay with warm restarts (SGDR): a cosine from learning_rate down over
    first_decay_steps, then again over t_mul times as many steps from m_mul times the rate, and
    so on. Which period the step is in is found in a ``tf.cond`` (t_mul == 1: equal periods)."""
    from ..api.control_flow import cond
    with name_scope(name or "SGDRDecay") as scope:
        lr = convert_to_tensor(learning_rate, name="initial_learning_rate")
        dtype = lr.dtype.base_dtype
        first_steps = array_ops.cast(first_decay_steps, dtype)
        alpha_t = array_ops.cast(alpha, dtype)
        t_mul_t = array_ops.cast(t_mul, dtype)
        m_mul_t = array_ops.cast(m_mul, dtype)
        completed_fraction = array_ops.cast(global_step, dtype) / first_steps

        def compute_step(completed_fraction, geometric=False):
            if geometric:  # periods growing by t_mul: the restart index from a geometric sum
                i_restart = math_ops.floor(math_ops.log(1.0 - completed_fraction * (1.0 - t_mul_t)) /
                                           math_ops.log(t_mul_t))
                sum_r = (1.0 - t_mul_t ** i_restart) / (1.0 - t_mul_t)
                completed_fraction = (completed_fraction - sum_r) / t_mul_t ** i_restart
            else:
                i_restart = math_ops.floor(completed_fraction)
                completed_fraction -= i_restart
            return i_restart, completed_fraction

        i_restart, completed_fraction = cond(math_ops.equal(t_mul_t, 1.0),
                                             lambda: compute_step(completed_fraction, geometric=False),
                                             lambda: compute_step(completed_fraction, geometric=True))
        m_fac = m_mul_t ** i_restart
        cosine_decayed = 0.5 * m_fac * (1.0 + math_ops.cos(array_ops.constant(math.pi) * completed_fraction))
        decayed = (1 - alpha_t) * cosine_decayed + alpha_t
        return math_ops.multiply(lr, decayed, name=scope)


def linear_cosine_decay(learning_rate, global_step, decay_steps, num_periods=0.5, alpha=0.0, beta=0.001, name=None):
    """learning_rate * ((alpha + linear) * cosine + beta): a linear fall to 0 over decay_steps times
    a cosine of ``num_periods`` periods (Bello et al.'s neural optimizer search)."""
    with name_scope(name or "LinearCosineDecay") as scope:
        lr = convert_to_tensor(learning_rate, name="initial_learning_rate")
        dtype = lr.dtype.base_dtype
        steps = array_ops.cast(decay_steps, dtype)
        periods = array_ops.cast(num_periods, dtype)
        alpha_t = array_ops.cast(alpha, dtype)
        beta_t = array_ops.cast(beta, dtype)
        step = math_ops.minimum(array_ops.cast(global_step, dtype), steps)
        linear_decayed = (steps - step) / steps
        completed_fraction = step / steps
        fraction = 2.0 * periods * completed_fraction
        cosine_decayed = 0.5 * (1.0 + math_ops.cos(array_ops.constant(math.pi) * fraction))
        return math_ops.multiply(lr, (alpha_t + linear_decayed) * cosine_decayed + beta_t, name=scope)
