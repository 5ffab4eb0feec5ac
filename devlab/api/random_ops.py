"""Random tensors. devlab seeds every random op (from the graph seed and the op's name when no
seed is given), so a notebook prints the same numbers on every run."""
from ..framework import dtypes
from ..framework.scopes import name_scope
from ..framework.tensor import Tensor
from . import math_ops
from .array_ops import constant
from ..ops.build import apply_op_output, convert_to_tensor


def _shape_tensor(shape):
    """The shape as the int32 tensor TF feeds a random op (a Const named ``shape``)."""
    if isinstance(shape, Tensor):
        return shape
    return convert_to_tensor(shape, dtype=dtypes.int32, name="shape")  # a scalar fails the op's rank check


def _random(op_type, shape_t, dtype, seed, extra=()):
    attrs = {"dtype": dtypes.as_dtype(dtype), "seed": seed}
    return apply_op_output(op_type, [shape_t, *extra], attrs, op_type)


def random_uniform(shape, minval=0, maxval=None, dtype=dtypes.float32, seed=None, name=None):
    """Uniform in [minval, maxval). As in TF, the default range [0, 1) is the RandomUniform op
    alone; other bounds add ``min``/``max`` Consts and the arithmetic that rescales it."""
    dtype = dtypes.as_dtype(dtype)
    if maxval is None:
        if dtype.is_integer:
            raise ValueError(f"Must specify maxval for integer dtype {dtype!r}")
        maxval = 1
    with name_scope(name, "random_uniform", [shape, minval, maxval]) as scope:
        shape_t = _shape_tensor(shape)
        min_is_zero = isinstance(minval, int) and minval == 0
        max_is_one = isinstance(maxval, int) and maxval == 1
        if not min_is_zero or not max_is_one or dtype.is_integer:
            minval = convert_to_tensor(minval, dtype=dtype, name="min")
            maxval = convert_to_tensor(maxval, dtype=dtype, name="max")
        if dtype.is_integer:
            return apply_op_output("RandomUniformInt", [shape_t, minval, maxval],
                                   {"dtype": dtype, "seed": seed}, scope)
        rnd = _random("RandomUniform", shape_t, dtype, seed)
        if min_is_zero:
            return rnd if max_is_one else math_ops.multiply(rnd, maxval)
        return math_ops.add(rnd * (maxval - minval), minval, name=scope)


def random_normal(shape, mean=0.0, stddev=1.0, dtype=dtypes.float32, seed=None, name=None):
    with name_scope(name, "random_normal", [shape, mean, stddev]) as scope:
        shape_t = _shape_tensor(shape)
        m = convert_to_tensor(mean, dtype=dtype, name="mean")
        s = convert_to_tensor(stddev, dtype=dtype, name="stddev")
        rnd = _random("RandomStandardNormal", shape_t, dtype, seed)
        return math_ops.add(rnd * s, m, name=scope)


def truncated_normal(shape, mean=0.0, stddev=1.0, dtype=dtypes.float32, seed=None, name=None):
    with name_scope(name, "truncated_normal", [shape, mean, stddev]) as scope:
        shape_t = _shape_tensor(shape)
        m = convert_to_tensor(mean, dtype=dtype, name="mean")
        s = convert_to_tensor(stddev, dtype=dtype, name="stddev")
        rnd = _random("TruncatedNormal", shape_t, dtype, seed)
        return math_ops.add(rnd * s, m, name=scope)


def set_random_seed(seed):
    """The graph-level seed every random op of the default graph derives its own from."""
    from ..framework.graph import get_default_graph
    get_default_graph().seed = seed
