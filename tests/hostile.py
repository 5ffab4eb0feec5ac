"""Random hostile arguments for the public ``tf.*`` functions, and one checked call of a function.

``FUNCTIONS`` is every public op-building function of ``devlab`` (``tf.*``, ``tf.nn.*``,
``tf.math.*``), found by walking the namespaces, less the few that build no op (collections,
scopes, sessions, files); ``arguments(fn)`` draws its arguments from its ``inspect.signature``:
ints (huge and negative too), floats (inf, nan), numpy scalars and arrays of odd dtypes,
strings, None, lists, nested lists and tensors. ``call(fn, args, kwargs)`` builds the op in a
fresh graph and runs what it returned, under a time limit and a memory bound, and says what
went wrong: an exception that is not TensorFlow's (TypeError, ValueError, NotImplementedError or
a ``tf.errors`` class), a hang, or an allocation over the bound.

``tests/test_hostile_arguments.py`` asserts on it; run this file to count failures over many
calls (the figures of issue 26): ``python tests/hostile.py --calls 12000 --common``.
"""
import collections
import inspect
import os
import signal
import sys
import traceback
import tracemalloc
import warnings

import numpy as np
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import devlab as tf
from devlab.ops import allocation

TIME_LIMIT_S = 5
MAX_TENSOR_BYTES = 64 << 20  # devlab's allocation bound during the fuzz (DEVLAB_MAX_TENSOR_BYTES)
MEMORY_BOUND = 4 * MAX_TENSOR_BYTES  # what one call may allocate at its peak (tracemalloc)

# Functions that build no op from their arguments (or read files, start sessions, change global
# state): calling them with junk says nothing about argument validation.
NOT_OPS = {
    "add_to_collection", "add_to_collections", "as_dtype", "colocate_with", "control_dependencies", "device",
    "dimension_value", "disable_eager_execution", "disable_v2_behavior", "executing_eagerly", "explain",
    "get_collection", "get_collection_ref", "get_default_graph", "get_default_session", "get_tower_context",
    "get_variable_scope", "global_variables", "import_graph_def", "init_scope", "load_graph",
    "load_ipython_extension", "local_variables", "modelled_run", "moving_average_variables",
    "reset_default_graph", "set_random_seed", "trainable_variables", "unload_ipython_extension",
    "variable_creator_scope", "variable_scope", "fixed_size_partitioner", "module_getattr", "py_func",
    "while_loop", "cond", "case", "gradients", "dynamic_rnn", "static_rnn",
    "enable_resource_variables", "disable_resource_variables", "resource_variables_enabled",
}

# The 30 common functions of issue 26's measurement.
COMMON = ["argmax", "split", "squeeze", "pad", "expand_dims", "slice", "range", "constant", "fill", "tile",
          "random_normal", "stack", "zeros", "ones", "reshape", "concat", "transpose", "matmul", "reduce_sum",
          "reduce_mean", "cast", "gather", "one_hot", "cumsum", "where", "clip_by_value", "ones_like",
          "zeros_like", "add_n", "identity"]


def _public_functions():
    found = {}
    for prefix, module in (("", tf), ("nn.", tf.nn), ("math.", tf.math)):
        for name in dir(module):
            if name.startswith("_") or name in NOT_OPS:
                continue
            try:
                fn = getattr(module, name)
            except Exception:  # noqa: BLE001 - a lazily unimplemented name
                continue
            if inspect.isfunction(fn) and fn not in found.values():
                found[prefix + name] = fn
    return found


FUNCTIONS = _public_functions()


def function(name):
    """``tf.<name>`` (dotted for tf.nn / tf.math), or None where devlab has no such function."""
    if name in FUNCTIONS:
        return FUNCTIONS[name]
    for prefix in ("math.", "nn."):
        if prefix + name in FUNCTIONS:
            return FUNCTIONS[prefix + name]
    fn = getattr(tf, name, None)
    return fn if inspect.isfunction(fn) else None


# -- the arguments --------------------------------------------------------------------------
class Recipe:
    """A tensor to make inside the call's graph (a strategy cannot hold tensors of a graph that
    does not exist yet)."""

    def __init__(self, kind, value, dtype=None, shape=None):
        self.kind, self.value, self.dtype, self.shape = kind, value, dtype, shape

    def make(self):
        if self.kind == "placeholder":
            return tf.placeholder(self.dtype, self.shape)
        if self.kind == "variable":
            return tf.Variable(self.value)
        return tf.constant(self.value)

    def __repr__(self):
        if self.kind == "placeholder":
            return f"tf.placeholder(tf.{self.dtype.name}, {self.shape!r})"
        return f"tf.{'Variable' if self.kind == 'variable' else 'constant'}({self.value!r})"


ODD_INTS = [0, 1, -1, 2, 3, 2**31, 2**31 - 1, -2**31, 2**32, 2**63, -2**63 - 1, 10**6, 10**12, -171239814893]
ODD_FLOATS = [0.0, -0.0, 0.5, 1e6, 1e300, float("inf"), float("-inf"), float("nan")]
NP_SCALARS = [np.float32(0), np.float16("inf"), np.float64("nan"), np.int8(-128), np.uint8(255), np.int64(2**62),
              np.uint64(2**64 - 1), np.bool_(True), np.complex64(1j), np.str_("-1"), np.int32(-1)]
DTYPES = [tf.float32, tf.float64, tf.int32, tf.int64, tf.bool, tf.string, tf.float16, tf.uint8, tf.int8]

scalars = st.one_of(
    st.integers(min_value=-2**70, max_value=2**70), st.sampled_from(ODD_INTS), st.integers(-3, 4),
    st.floats(allow_nan=True, allow_infinity=True), st.sampled_from(ODD_FLOATS), st.sampled_from(NP_SCALARS),
    st.text(max_size=3), st.sampled_from(["", "-1", "0", "a"]), st.binary(max_size=2), st.none(), st.booleans(),
)
small_shapes = hnp.array_shapes(min_dims=0, max_dims=3, min_side=0, max_side=3)
odd_dtypes = st.sampled_from([np.bool_, np.int8, np.uint16, np.int32, np.int64, np.uint64, np.float16, np.float32,
                              np.float64, np.complex64, np.dtype("U2"), np.dtype("S2")])
arrays = odd_dtypes.flatmap(lambda d: hnp.arrays(d, small_shapes))
lists = st.recursive(scalars, lambda inner: st.lists(inner, max_size=4), max_leaves=8)
numeric = st.one_of(st.integers(-3, 4), st.floats(-3, 3), st.lists(st.integers(-3, 4), max_size=4),
                    st.lists(st.lists(st.floats(-3, 3), min_size=2, max_size=2), min_size=1, max_size=3))
tensors = st.one_of(
    numeric.map(lambda v: Recipe("const", v)),
    arrays.filter(lambda a: a.dtype.kind not in "cU").map(lambda a: Recipe("const", a)),
    st.builds(lambda d, s: Recipe("placeholder", None, d, s), st.sampled_from(DTYPES),
              st.one_of(st.none(), st.lists(st.one_of(st.none(), st.integers(0, 3)), max_size=3))),
    numeric.map(lambda v: Recipe("variable", v)),
)
values = st.one_of(scalars, arrays, lists, tensors, st.sampled_from(DTYPES), st.lists(tensors, min_size=1, max_size=3))


def arguments(fn):
    """A strategy for (args, kwargs) of ``fn``: its required parameters positionally, and some of
    its optional ones by keyword."""
    params = [p for p in inspect.signature(fn).parameters.values()
              if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)]
    required = [p for p in params if p.default is p.empty and p.kind != p.KEYWORD_ONLY]
    optional = [p.name for p in params if p.default is not p.empty and p.name != "name"]
    return st.tuples(
        st.tuples(*[values for _ in required]),
        st.dictionaries(st.sampled_from(optional), values, max_size=3) if optional else st.just({}),
    )


# -- one checked call -----------------------------------------------------------------------
class Hang(BaseException):
    """The call ran past TIME_LIMIT_S (a BaseException, so no ``except Exception`` swallows it)."""


_FIRED = [False]  # the alarm went off (its Hang may land in a callback that swallows it, e.g. a weakref's)


def _alarm(signum, frame):
    _FIRED[0] = True
    raise Hang()


def _materialize(value):
    if isinstance(value, Recipe):
        return value.make()
    if isinstance(value, list) and value and all(isinstance(v, Recipe) for v in value):
        return [v.make() for v in value]
    return value


def _fetches(result):
    out = result if isinstance(result, (list, tuple)) else [result]
    return [r for r in out if isinstance(r, (tf.Tensor, tf.Operation)) and not _needs_feed(r)]


def _needs_feed(r):
    graph = r.graph
    return any(op.type == "Placeholder" for op in graph.get_operations())


ALLOWED = (TypeError, ValueError, NotImplementedError, tf.errors.OpError)

# Python's own words: a TypeError/ValueError that says one of these leaked from devlab's code
# instead of naming the argument as TensorFlow does.
INTERNAL_WORDS = ("object is not iterable", "invalid literal for int()", "object is not subscriptable",
                  "unsupported operand type", "not supported between instances of",
                  "cannot be interpreted as an integer", "only integer scalar arrays", "object has no attribute",
                  "could not convert string to float", "unhashable type", "has no len()",
                  "setting an array element with a sequence", "cannot convert float", "math domain error",
                  "too many values to unpack", "not enough values to unpack", "positional argument",
                  "NoneType")


CALLS = collections.Counter()  # calls made, and problems found, by kind (printed at exit with HOSTILE_COUNT=1)


def call(fn, args, kwargs):
    """Calls ``fn`` in a fresh graph, then runs what it returned; returns None when all went as TF
    would have it, else (kind, exception or None, text): kind is "internal", "confusing", "hang"
    or "memory"."""
    old = signal.signal(signal.SIGALRM, _alarm)
    started = tracemalloc.is_tracing()
    if not started:
        tracemalloc.start()
    tracemalloc.reset_peak()
    env = os.environ.get(allocation.ENV)
    os.environ[allocation.ENV] = str(MAX_TENSOR_BYTES)
    _FIRED[0] = False
    signal.setitimer(signal.ITIMER_REAL, TIME_LIMIT_S)
    try:
        with tf.Graph().as_default(), warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            a = [_materialize(v) for v in args]
            kw = {k: _materialize(v) for k, v in kwargs.items()}
            result = fn(*a, **kw)
            fetches = _fetches(result)
            if fetches:
                with tf.Session() as s:
                    if any(v.op.type == "VariableV2" for v in tf.global_variables()):
                        s.run(tf.global_variables_initializer())
                    s.run(fetches)
        problem = None
    except Hang:
        problem = ("hang", None, f"ran over {TIME_LIMIT_S} s")
    except ALLOWED as e:
        problem = _judge(e)
    except Exception as e:  # noqa: BLE001 - the point: anything else is a leak
        problem = ("internal", e, _where(e))
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)
        if env is None:
            del os.environ[allocation.ENV]
        else:
            os.environ[allocation.ENV] = env
        peak = tracemalloc.get_traced_memory()[1]
        if not started:
            tracemalloc.stop()
    if _FIRED[0] and (problem is None or problem[0] != "hang"):
        problem = ("hang", None, f"ran over {TIME_LIMIT_S} s")
    if problem is None and peak > MEMORY_BOUND:
        problem = ("memory", None, f"allocated {peak} bytes at the peak (bound {MEMORY_BOUND})")
    CALLS["calls"] += 1
    if problem is not None:
        CALLS[problem[0]] += 1
    return problem


if os.environ.get("HOSTILE_COUNT"):
    import atexit
    atexit.register(lambda: print(f"\nhostile calls: {dict(CALLS)}", file=sys.__stderr__))


def _judge(e):
    cause = e.__cause__ or e.__context__
    if isinstance(e, tf.errors.OpError) and isinstance(cause, MemoryError):
        return ("memory", e, "numpy tried the allocation: " + _where(cause))
    if isinstance(e, tf.errors.InternalError):
        return ("internal", e, _where(cause or e))
    text = str(e)
    if any(w in text for w in INTERNAL_WORDS):
        return ("confusing", e, _where(e))
    return None


def _where(e):
    """The innermost devlab frame of the traceback: where the leak comes from."""
    frames = [f for f in traceback.extract_tb(e.__traceback__) if "devlab" in f.filename]
    f = frames[-1] if frames else None
    place = f"{os.path.relpath(f.filename)}:{f.lineno}" if f else "?"
    return f"{type(e).__name__} at {place}: {str(e).splitlines()[0][:160] if str(e) else ''}"


def describe(name, args, kwargs):
    parts = [repr(a) for a in args] + [f"{k}={v!r}" for k, v in kwargs.items()]
    return f"tf.{name}({', '.join(parts)})"


# -- counting (issue 26's figures) ----------------------------------------------------------
def count(names, calls):
    """Calls each of ``names`` ``calls // len(names)`` times with newly drawn arguments; prints the
    number of internal tracebacks, confusing messages, hangs and memory overruns, by place (a
    function devlab lacks counts as missing)."""
    per = max(1, calls // len(names))
    tally, places, made = collections.Counter(), collections.defaultdict(list), [0]
    for name in names:
        fn = function(name)
        if fn is None:
            tally["missing function"] += per
            continue

        _counter(fn, name, per, tally, places, made)()
    print(f"{made[0]} calls to {len(names)} functions")
    for kind in ("internal", "confusing", "hang", "memory", "missing function"):
        print(f"  {kind}: {tally[kind]}")
    for (kind, place), examples in sorted(places.items(), key=lambda kv: -len(kv[1])):
        print(f"  {len(examples):5d} {kind:9s} {place}   e.g. {examples[0][:150]}")
    return tally


def _counter(fn, name, per, tally, places, made):
    from hypothesis import HealthCheck, given, settings

    @settings(max_examples=per, database=None, deadline=None, derandomize=False,
              suppress_health_check=list(HealthCheck))
    @given(arguments(fn))
    def run(drawn):
        made[0] += 1
        problem = call(fn, *drawn)
        if problem is not None:
            kind, _, text = problem
            tally[kind] += 1
            places[(kind, text.split(": ")[0])].append(describe(name, *drawn))
    return run


if __name__ == "__main__":
    import argparse
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=12000)
    parser.add_argument("--common", action="store_true", help="only the 30 common functions of issue 26")
    opts = parser.parse_args()
    count(COMMON if opts.common else sorted(FUNCTIONS), opts.calls)
    sys.exit(0)
