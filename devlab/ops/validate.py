"""Argument validation against TensorFlow's OpDef, in one place: ``apply_op`` calls ``check`` for
every op before its shape rule runs, so every ``tf.*`` function inherits it.

As TF's op-def layer (``op_def_library.py``) and the first lines of its shape functions do, it
checks, in this order: each list input's length against its minimum (``ConcatV2`` takes 2 or
more), each input's dtype against the types the OpDef allows (``data/tf_op_defs.json``), each int attr against its minimum (``num_split`` >= 1), then each input's rank against what the op's shape
function requires (``RANKS``: Fill's ``dims`` is a vector, its ``value`` a scalar). A failed rank
check is a ``ShapeError``, so ``apply_op`` names the node as TF does; nothing is added to the
graph, and no numpy code ever sees an argument of the wrong kind.
"""
import functools

from .recorded import OP_DEFS
from .shapes import ShapeError

_REDUCTIONS = ("Sum", "Mean", "Max", "Min", "Prod", "Any", "All", "EuclideanNorm")
_RANDOM = ("RandomStandardNormal", "RandomUniform", "TruncatedNormal", "RandomUniformInt")

RANKS = {
    # op type: {input index (negative: from the end): rank, or (">=", r) / ("<=", r)}, from TF's shape fns
    "Fill": {0: 1, 1: 0},
    "Tile": {1: 1},
    "Reshape": {1: 1},
    "Transpose": {1: 1},
    "ConcatV2": {-1: 0},
    "GatherV2": {0: (">=", 1), 2: 0},
    "Pad": {1: 2}, "PadV2": {1: 2, 2: 0}, "MirrorPad": {1: 2},
    "Slice": {1: 1, 2: 1},
    "StridedSlice": {1: 1, 2: 1, 3: 1},
    "BroadcastTo": {1: 1},
    "InvertPermutation": {0: 1},
    "GatherNd": {0: (">=", 1), 1: (">=", 1)},
    "MatMul": {0: 2, 1: 2},
    "SplitV": {1: 1},
    "ArgMax": {1: ("<=", 1)},
    **{op: {1: ("<=", 1)} for op in _REDUCTIONS},
    **{op: {0: 1} for op in _RANDOM},
}


MAX_OUTPUTS = 100_000  # TF refuses 2**31 outputs; devlab fewer, as each is a Python object (and a hang)


def make_int(value, arg_name):
    """An int attr as TF's op-def layer takes it (``_MakeInt``): anything ``int()`` accepts but a
    string, else TF's TypeError naming the argument."""
    if isinstance(value, (str, bytes)):
        raise TypeError(f"Expected int for argument '{arg_name}' not {value!r}.")
    try:
        return int(value)
    except (ValueError, TypeError, OverflowError):
        raise TypeError(f"Expected int for argument '{arg_name}' not {value!r}.") from None


def check(op_type, inputs, attrs):
    """TF's TypeError or ValueError for arguments its OpDef or shape function rejects up front."""
    plan = _plan(op_type)
    if plan is not None:
        _check_inputs(op_type, plan, inputs, attrs)
        _check_attrs(op_type, plan, attrs)
    for i, want in RANKS.get(op_type, {}).items():
        if -len(inputs) <= i < len(inputs):
            _check_rank(inputs[i], want)


class _Arg:
    """One input argument of an OpDef, as the checks read it."""
    __slots__ = ("name", "fixed", "type_attr", "allowed", "is_ref", "is_list", "minimum", "count_attr")

    def __init__(self, arg, attr_of):
        self.name, self.fixed, self.type_attr = arg["name"], arg.get("type"), arg.get("type_attr")
        allowed = attr_of.get(self.type_attr, {}).get("allowed")
        self.allowed = tuple(allowed) if allowed else None
        self.is_ref = bool(arg.get("is_ref"))
        self.is_list = "number_attr" in arg or "type_list_attr" in arg
        self.count_attr = arg.get("number_attr")
        self.minimum = attr_of.get(self.count_attr, {}).get("minimum", 0)


@functools.lru_cache(maxsize=None)
def _plan(op_type):
    """(input args, list args, output count attrs, {int attr: minimum}) of TF's OpDef, or None."""
    op_def = OP_DEFS.get(op_type)
    if op_def is None:
        return None
    attr_of = {a["name"]: a for a in op_def.get("attrs", ())}
    args = tuple(_Arg(a, attr_of) for a in op_def.get("inputs", ()))
    counts = tuple(o["number_attr"] for o in op_def.get("outputs", ()) if "number_attr" in o)
    minimums = {a["name"]: a["minimum"] for a in attr_of.values() if a.get("type") == "int" and "minimum" in a}
    return args, sum(a.is_list for a in args), counts, minimums


def _check_attrs(op_type, plan, attrs):
    _, _, counts, minimums = plan
    for name in counts:
        n = attrs.get(name)
        if isinstance(n, int) and n >= MAX_OUTPUTS:
            raise ValueError(f"Number of outputs is too big: {n}" + (
                "" if n >= 2**31 else f" (devlab makes at most {MAX_OUTPUTS} outputs of one op)"))
    for name, minimum in minimums.items():
        value = attrs.get(name)
        if isinstance(value, int) and value < minimum:
            raise ValueError(f"Attr '{name}' of '{op_type}' Op passed {value} less than minimum {minimum}.")


def _check_inputs(op_type, plan, inputs, attrs):
    """Each input's dtype against its argument's (a fixed type, or a type attr's allowed list)."""
    args, lists, _, _ = plan
    if lists > 1:
        _check_list_lengths(op_type, args, lists, inputs, attrs)
        return
    n = len(inputs) - (len(args) - lists)
    if n < 0 or (not lists and n):
        return  # devlab builds this op with other inputs than TF's OpDef names: nothing to compare
    seen = {}  # type attr: the dtype its first input gave it (a mismatch is _check_same_dtype's)
    i = 0
    for arg in args:
        count = n if arg.is_list else 1
        if arg.is_list and count < arg.minimum:
            raise ValueError(f"List argument '{arg.name}' to '{op_type}' Op with length {count} shorter than "
                             f"minimum length {arg.minimum}.")
        for t in inputs[i:i + count]:
            dtype = t.dtype
            if arg.is_ref and not dtype.is_ref:
                raise TypeError(f"'{op_type}' Op requires that input '{arg.name}' be a mutable tensor (e.g.: a "
                                "tf.Variable)")
            name = dtype.base_dtype.name
            if seen.setdefault(arg.type_attr, name) == name:
                _check_type(op_type, arg, name)
        i += count


def _check_list_lengths(op_type, args, lists, inputs, attrs):
    """Ops with several list inputs of one length attr (DynamicStitch's indices and data): the
    inputs are N of each, so their count says whether the second list matched the first."""
    listed = [a for a in args if a.is_list]
    per = attrs.get(listed[0].count_attr)
    if per is None or any(a.count_attr != listed[0].count_attr for a in listed):
        return
    other = len(inputs) - (len(args) - lists) - per * (lists - 1)
    if other != per:
        raise ValueError(f"List argument '{listed[-1].name}' to '{op_type}' Op with length {other} must match length "
                         f"{per} of argument '{listed[0].name}'.")


def _check_type(op_type, arg, name):
    if arg.fixed is not None and arg.fixed != name:
        raise TypeError(f"Input '{arg.name}' of '{op_type}' Op has type {name} that does not match expected type "
                        f"of {arg.fixed}.")
    if arg.allowed and name not in arg.allowed:
        raise TypeError(f"Value passed to parameter '{arg.name}' has DataType {name} not in list of allowed "
                        f"values: {', '.join(arg.allowed)}")


def _check_rank(t, want):
    sizes = t.shape.sizes
    if sizes is None:
        return
    rank = len(sizes)
    how, r = want if isinstance(want, tuple) else ("==", want)
    if how == "==" and rank != r:
        raise ShapeError(f"Shape must be rank {r} but is rank {rank}")
    if how == ">=" and rank < r:
        raise ShapeError(f"Shape must be at least rank {r} but is rank {rank}")
    if how == "<=" and rank > r:
        raise ShapeError(f"Shape must be at most rank {r} but is rank {rank}")
