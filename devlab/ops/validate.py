"""Argument validation against TensorFlow's OpDef, in one place: ``apply_op`` calls ``check`` for
every op before its shape rule runs, so every ``tf.*`` function inherits it.

As TF's op-def layer (``op_def_library.py``) and the first lines of its shape functions do, it
checks, in this order: each list input's length against its minimum (``ConcatV2`` takes 2 or
more), each input's dtype against the types the OpDef allows (``data/tf_op_defs.json``), each int attr against its minimum (``num_split`` >= 1), then each input's rank against what the op's shape
function requires (``RANKS``: Fill's ``dims`` is a vector, its ``value`` a scalar). A failed rank
check is a ``ShapeError``, so ``apply_op`` names the node as TF does; nothing is added to the
graph, and no numpy code ever sees an argument of the wrong kind.
"""
from .recorded import OP_DEFS
from .shapes import ShapeError

_REDUCTIONS = ("Sum", "Mean", "Max", "Min", "Prod", "Any", "All")
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


def check(op_type, inputs, attrs):
    """TF's TypeError or ValueError for arguments its OpDef or shape function rejects up front."""
    op_def = OP_DEFS.get(op_type)
    if op_def is not None:
        _check_inputs(op_type, op_def, inputs, attrs)
        _check_attrs(op_type, op_def, attrs)
    for i, want in RANKS.get(op_type, {}).items():
        if -len(inputs) <= i < len(inputs):
            _check_rank(inputs[i], want)


def _check_attrs(op_type, op_def, attrs):
    for out in op_def.get("outputs", ()):
        n = attrs.get(out.get("number_attr"))
        if isinstance(n, int) and n >= 2**31:
            raise ValueError(f"Number of outputs is too big: {n}")
    for attr in op_def.get("attrs", ()):
        value = attrs.get(attr["name"])
        if attr.get("type") == "int" and "minimum" in attr and isinstance(value, int) and value < attr["minimum"]:
            raise ValueError(f"Attr '{attr['name']}' of '{op_type}' Op passed {value} less than minimum "
                             f"{attr['minimum']}.")


def _check_inputs(op_type, op_def, inputs, attrs):
    """Each input's dtype against its argument's (a fixed type, or a type attr's allowed list)."""
    args = op_def.get("inputs", ())
    lists = [a for a in args if "number_attr" in a or "type_list_attr" in a]
    if len(lists) > 1:
        return
    n = len(inputs) - (len(args) - len(lists))
    if n < 0 or (not lists and n):
        return  # devlab builds this op with other inputs than TF's OpDef names: nothing to compare
    attr_of = {a["name"]: a for a in op_def.get("attrs", ())}
    seen = {}  # type attr: the dtype its first input gave it (a mismatch is _check_same_dtype's)
    i = 0
    for arg in args:
        count = n if arg in lists else 1
        if arg in lists and "number_attr" in arg:
            minimum = attr_of.get(arg["number_attr"], {}).get("minimum", 0)
            if count < minimum:
                raise ValueError(f"List argument '{arg['name']}' to '{op_type}' Op with length {count} shorter than "
                                 f"minimum length {minimum}.")
        for t in inputs[i:i + count]:
            if arg.get("is_ref") and not t.dtype.is_ref:
                raise TypeError(f"'{op_type}' Op requires that input '{arg['name']}' be a mutable tensor (e.g.: a "
                                "tf.Variable)")
            name = t.dtype.base_dtype.name
            if seen.setdefault(arg.get("type_attr"), name) == name:
                _check_type(op_type, arg, attr_of, name)
        i += count


def _check_type(op_type, arg, attr_of, name):
    if "type" in arg and arg["type"] != name:
        raise TypeError(f"Input '{arg['name']}' of '{op_type}' Op has type {name} that does not match expected type "
                        f"of {arg['type']}.")
    allowed = attr_of.get(arg.get("type_attr"), {}).get("allowed")
    if allowed and name not in allowed:
        raise TypeError(f"Value passed to parameter '{arg['name']}' has DataType {name} not in list of allowed "
                        f"values: {', '.join(allowed)}")


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
