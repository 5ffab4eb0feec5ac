"""Random tensors. devlab seeds every random op (from the graph seed and the op's name when no
seed is given), so a notebook prints the same numbers on every run."""
from ..framework import dtypes
from ..framework.scopes import name_scope
from . import math_ops
from .array_ops import constant
from .build import apply_op_output


def _shape(shape):
    """The static shape, and the Const TF feeds to a random op (named ``shape``)."""
    shape = tuple(int(d) for d in shape)
    return shape, constant(list(shape), dtype=dtypes.int32, name="shape")


def _random(op_type, shape, shape_t, dtype, seed):
    attrs = {"shape": shape, "dtype": dtypes.as_dtype(dtype), "seed": seed}
    return apply_op_output(op_type, [shape_t], attrs, op_type)


def random_uniform(shape, minval=0, maxval=None, dtype=dtypes.float32, seed=None, name=None):
    with name_scope(name, "random_uniform", []) as scope:
        shape, shape_t = _shape(shape)
        lo = constant(minval, dtype=dtype, name="min")
        hi = constant(1 if maxval is None else maxval, dtype=dtype, name="max")
        rnd = _random("RandomUniform", shape, shape_t, dtype, seed)
        return math_ops.add(math_ops.multiply(rnd, math_ops.subtract(hi, lo, name="sub"), name="mul"), lo, name=scope)


def random_normal(shape, mean=0.0, stddev=1.0, dtype=dtypes.float32, seed=None, name=None):
    with name_scope(name, "random_normal", []) as scope:
        shape, shape_t = _shape(shape)
        m = constant(mean, dtype=dtype, name="mean")
        s = constant(stddev, dtype=dtype, name="stddev")
        rnd = _random("RandomStandardNormal", shape, shape_t, dtype, seed)
        return math_ops.add(math_ops.multiply(rnd, s, name="mul"), m, name=scope)


def truncated_normal(shape, mean=0.0, stddev=1.0, dtype=dtypes.float32, seed=None, name=None):
    with name_scope(name, "truncated_normal", []) as scope:
        shape, shape_t = _shape(shape)
        m = constant(mean, dtype=dtype, name="mean")
        s = constant(stddev, dtype=dtype, name="stddev")
        rnd = _random("TruncatedNormal", shape, shape_t, dtype, seed)
        return math_ops.add(math_ops.multiply(rnd, s, name="mul"), m, name=scope)


def set_random_seed(seed):
    """The graph-level seed every random op of the default graph derives its own from."""
    from ..framework.graph import get_default_graph
    get_default_graph().seed = seed
