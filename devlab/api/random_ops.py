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


DEFAULT_GRAPH_SEED = 87654321
_MAXINT32 = 2**31 - 1


def get_seed(op_seed):
    """TF's ``random_seed.get_seed``: the (seed, seed2) attrs of a random op. With a graph seed, an
    op without its own takes the graph's count of such ops so far; without one, a given op seed
    pairs with TF's default graph seed; neither gives (None, None): unseeded."""
    from ..framework.graph import get_default_graph
    graph = get_default_graph()
    if graph.seed is not None:
        if op_seed is None:
            op_seed = getattr(graph, "_random_ops_seeded", 0)
            graph._random_ops_seeded = op_seed + 1
        seeds = graph.seed % _MAXINT32, op_seed % _MAXINT32
    elif op_seed is not None:
        seeds = DEFAULT_GRAPH_SEED, op_seed % _MAXINT32
    else:
        seeds = None, None
    return (0, _MAXINT32) if seeds == (0, 0) else seeds


def random_shuffle(value, seed=None, name=None):
    """The rows of ``value`` in a random order: TF's RandomShuffle, drawing TF's own numbers for a
    given seed (``tf.set_random_seed`` and/or ``seed``), so a seeded shuffle matches TF's."""
    seed1, seed2 = get_seed(seed)
    value = convert_to_tensor(value, name="value")
    return apply_op_output("RandomShuffle", [value], {"seed": seed1 or 0, "seed2": seed2 or 0},
                           name or "RandomShuffle")


def _random(op_type, shape_t, dtype, seed, extra=()):
    get_seed(seed)  # counts the op as TF does (devlab draws these numbers from its own generator)
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
            get_seed(seed)
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
