"""Cheap shape inference for TensorFlow's ops that devlab has no kernel for.

A graph file says each node's op type, inputs and attrs; its output shapes are there only if it
was written with ``add_shapes=True`` (the ``_output_shapes`` attr). Otherwise the shapes are
inferred here, for the ops a model is mostly made of (convolutions, pooling, reshapes, splits,
reductions, their gradients), from the input shapes and from the values of ``Const`` inputs
(a Reshape's target shape, a Split's axis). An op without a rule, or whose rule cannot decide,
gets an unknown shape: a modelled run then counts no bytes for it and says so.

``infer(op_type, inputs, attrs)`` returns one entry per output: a tuple of dims (``None`` for an
unknown dim) or None (unknown rank); or None when there is no rule. An input is anything with
``.dtype`` and ``.shape`` (a TensorShape); ``constant_value(input)`` finds its value when it is
a Const (a graph Tensor) or was given one (the loader's and the modelled run's stand-ins).
"""
import numpy as np

from ..framework.tensor_shape import TensorShape


def constant_value(t):
    """The value of ``t`` if it is known without running anything (a Const), else None."""
    value = getattr(t, "value", None)
    if value is not None:
        return value
    op = getattr(t, "op", None)
    if op is not None and op.type == "Const":
        return op.attrs.get("value")
    return None


def _dims(t):
    shape = t.shape
    return shape.sizes if isinstance(shape, TensorShape) else TensorShape(shape).sizes


def _ints(t):
    """The Const value of ``t`` as a list of ints, or None."""
    v = constant_value(t)
    if v is None:
        return None
    try:
        return [int(x) for x in np.asarray(v).reshape(-1)]
    except (TypeError, ValueError):
        return None


def _known(dims):
    return dims is not None and all(d is not None for d in dims)


def _product(dims):
    n = 1
    for d in dims:
        n *= d
    return n


# -- the rules: (inputs, attrs) -> [dims per output] ------------------------------------------------
def _same_as_first(inputs, attrs):
    return [_dims(inputs[0])]


def _scalar(inputs, attrs):
    return [()]


def _broadcast(inputs, attrs):
    a, b = _dims(inputs[0]), _dims(inputs[1])
    if a is None or b is None:
        return [None]
    out = []
    for i in range(1, max(len(a), len(b)) + 1):
        x = a[-i] if i <= len(a) else 1
        y = b[-i] if i <= len(b) else 1
        out.append(y if x == 1 else x if y in (1, None) or y == x else None)
    return [tuple(reversed(out))]


def _matmul(inputs, attrs):
    a, b = _dims(inputs[0]), _dims(inputs[1])
    if a is None or b is None or len(a) < 2 or len(b) < 2:
        return [None]
    m = a[-1] if attrs.get("transpose_a") or attrs.get("adj_x") else a[-2]
    n = b[-2] if attrs.get("transpose_b") or attrs.get("adj_y") else b[-1]
    batch = a[:-2] if len(a) >= len(b) else b[:-2]
    return [tuple(batch) + (m, n)]


def _layout(attrs):
    fmt = attrs.get("data_format", b"NHWC")
    fmt = fmt.decode() if isinstance(fmt, bytes) else str(fmt)
    return fmt.startswith("NCHW")


def _window(size, k, stride, dilation, padding):
    if size is None:
        return None
    if padding == "VALID":
        return (size - (k - 1) * dilation - 1) // stride + 1
    return -(-size // stride)  # SAME (and EXPLICIT, approximately)


def _padding(attrs):
    p = attrs.get("padding", b"SAME")
    return p.decode() if isinstance(p, bytes) else str(p)


def _conv2d(inputs, attrs):
    x, w = _dims(inputs[0]), _dims(inputs[1])
    if x is None or w is None or len(x) != 4 or len(w) != 4:
        return [None]
    nchw = _layout(attrs)
    strides = list(attrs.get("strides") or [1, 1, 1, 1])
    dilations = list(attrs.get("dilations") or [1, 1, 1, 1])
    h, wd = (2, 3) if nchw else (1, 2)
    oh = _window(x[h], w[0], strides[h], dilations[h], _padding(attrs))
    ow = _window(x[wd], w[1], strides[wd], dilations[wd], _padding(attrs))
    return [(x[0], w[3], oh, ow) if nchw else (x[0], oh, ow, w[3])]


def _pool(inputs, attrs):
    x = _dims(inputs[0])
    if x is None or len(x) != 4:
        return [None]
    nchw = _layout(attrs)
    k = list(attrs.get("ksize") or [1, 1, 1, 1])
    s = list(attrs.get("strides") or [1, 1, 1, 1])
    h, w = (2, 3) if nchw else (1, 2)
    out = list(x)
    out[h] = _window(x[h], k[h], s[h], 1, _padding(attrs))
    out[w] = _window(x[w], k[w], s[w], 1, _padding(attrs))
    return [tuple(out)]


def _from_const_input(index):
    def rule(inputs, attrs):
        dims = _ints(inputs[index]) if index < len(inputs) else None
        return [None if dims is None else tuple(dims)]
    return rule


def _bias_add_grad(inputs, attrs):
    x = _dims(inputs[0])
    if x is None:
        return [None]
    return [(x[1] if _layout(attrs) and len(x) > 2 else x[-1],)]


def _reshape(inputs, attrs):
    target = _ints(inputs[1])
    if target is None:
        return [None]
    x = _dims(inputs[0])
    if -1 in target and _known(x):
        known = _product(d for d in target if d != -1)
        target = [(_product(x) // known if known else 0) if d == -1 else d for d in target]
    return [tuple(None if d == -1 else d for d in target)]


def _axis(value, rank):
    return value % rank if rank and value < 0 else value


def _split(inputs, attrs):
    n = int(attrs.get("num_split", 1))
    axis, x = _ints(inputs[0]), _dims(inputs[1])
    if axis is None or x is None:
        return [None] * n
    a = _axis(axis[0], len(x))
    out = list(x)
    out[a] = None if x[a] is None else x[a] // n
    return [tuple(out)] * n


def _split_v(inputs, attrs):
    n = int(attrs.get("num_split", 1))
    x, sizes, axis = _dims(inputs[0]), _ints(inputs[1]), _ints(inputs[2])
    if x is None or sizes is None or axis is None or len(sizes) != n:
        return [None] * n
    a = _axis(axis[0], len(x))
    if -1 in sizes and x[a] is not None:
        sizes = [x[a] - (sum(sizes) + 1) if s == -1 else s for s in sizes]
    return [tuple(x[:a]) + (s,) + tuple(x[a + 1:]) for s in sizes]


def _concat(inputs, attrs):
    axis = _ints(inputs[-1])
    parts = [_dims(t) for t in inputs[:-1]]
    if axis is None or any(p is None for p in parts) or not parts:
        return [None]
    a = _axis(axis[0], len(parts[0]))
    out = list(parts[0])
    sizes = [p[a] for p in parts]
    out[a] = None if None in sizes else sum(sizes)
    return [tuple(out)]


def _pack(inputs, attrs):
    x = _dims(inputs[0])
    if x is None:
        return [None]
    a = int(attrs.get("axis", 0))
    a = a + len(x) + 1 if a < 0 else a
    return [tuple(x[:a]) + (len(inputs),) + tuple(x[a:])]


def _expand_dims(inputs, attrs):
    x, axis = _dims(inputs[0]), _ints(inputs[1])
    if x is None or axis is None:
        return [None]
    a = axis[0] + len(x) + 1 if axis[0] < 0 else axis[0]
    return [tuple(x[:a]) + (1,) + tuple(x[a:])]


def _squeeze(inputs, attrs):
    x = _dims(inputs[0])
    if x is None:
        return [None]
    axes = [_axis(int(a), len(x)) for a in attrs.get("squeeze_dims") or []]
    return [tuple(d for i, d in enumerate(x) if not (i in axes if axes else d == 1))]


def _reduce(inputs, attrs):
    x, axes = _dims(inputs[0]), _ints(inputs[1])
    if x is None or axes is None:
        return [None]
    axes = {_axis(a, len(x)) for a in axes}
    if attrs.get("keep_dims"):
        return [tuple(1 if i in axes else d for i, d in enumerate(x))]
    return [tuple(d for i, d in enumerate(x) if i not in axes)]


def _arg_reduce(inputs, attrs):
    x, axis = _dims(inputs[0]), _ints(inputs[1])
    if x is None or axis is None:
        return [None]
    a = _axis(axis[0], len(x))
    return [tuple(d for i, d in enumerate(x) if i != a)]


def _tile(inputs, attrs):
    x, m = _dims(inputs[0]), _ints(inputs[1])
    if x is None or m is None or len(m) != len(x):
        return [None]
    return [tuple(None if d is None else d * k for d, k in zip(x, m))]


def _transpose(inputs, attrs):
    x, perm = _dims(inputs[0]), _ints(inputs[1])
    if x is None or perm is None or len(perm) != len(x):
        return [None]
    return [tuple(x[p] for p in perm)]


def _shape(inputs, attrs):
    x = _dims(inputs[0])
    return [None if x is None else (len(x),)]


def _shape_n(inputs, attrs):
    return [None if _dims(t) is None else (len(_dims(t)),) for t in inputs]


def _sparse_xent(inputs, attrs):
    x = _dims(inputs[0])
    if x is None:
        return [None, None]
    return [tuple(x[:-1]), x]


def _xent(inputs, attrs):
    x = _dims(inputs[0])
    if x is None:
        return [None, None]
    return [tuple(x[:-1]), x]


def _switch(inputs, attrs):
    x = _dims(inputs[0])
    return [x, x]


def _merge(inputs, attrs):
    return [_dims(inputs[0]), ()]


def _from_shape_attr(name):
    def rule(inputs, attrs):
        shape = attrs.get(name)
        return [None if shape is None else tuple(None if d is not None and d < 0 else d for d in shape)]
    return rule


def _const(inputs, attrs):
    value = attrs.get("value")
    return [None if value is None else tuple(np.shape(value))]


def _one_hot(inputs, attrs):
    x, depth = _dims(inputs[0]), _ints(inputs[1])
    if x is None or depth is None:
        return [None]
    a = int(attrs.get("axis", -1))
    a = len(x) if a < 0 else a
    return [tuple(x[:a]) + (depth[0],) + tuple(x[a:])]


def _slice(inputs, attrs):
    x, begin, size = _dims(inputs[0]), _ints(inputs[1]), _ints(inputs[2])
    if size is None:
        return [None]
    if x is not None and begin is not None:
        return [tuple((d - b if d is not None else None) if s == -1 else s for d, b, s in zip(x, begin, size))]
    return [tuple(None if s == -1 else s for s in size)]


def _gather(inputs, attrs):
    params, idx = _dims(inputs[0]), _dims(inputs[1])
    axis = _ints(inputs[2]) if len(inputs) > 2 else [0]
    if params is None or idx is None or axis is None:
        return [None]
    a = _axis(axis[0], len(params))
    return [tuple(params[:a]) + tuple(idx) + tuple(params[a + 1:])]


UNARY = (
    "Identity", "StopGradient", "Snapshot", "PreventGradient", "Neg", "Abs", "Sign", "Exp", "Log", "Log1p",
    "Sqrt", "Rsqrt", "Square", "Reciprocal", "Inv", "Tanh", "Sigmoid", "Relu", "Relu6", "Elu", "Selu",
    "LeakyRelu", "Softplus", "Softsign", "Softmax", "LogSoftmax", "Sin", "Cos", "Tan", "Floor", "Ceil",
    "Round", "Rint", "Erf", "IsNan", "IsInf", "IsFinite", "LogicalNot", "ZerosLike", "OnesLike", "Cast",
    "Enter", "RefEnter", "Exit", "RefExit", "NextIteration", "RefNextIteration", "RefIdentity",
    "CheckNumerics", "Print", "EnsureShape", "Invert", "Lgamma", "Digamma", "Atan", "Asin", "Acos",
    "Sinh", "Cosh", "Asinh", "Acosh", "Atanh", "Expm1", "Bitcast", "LRN", "Dropout",
    # gradients shaped like their forward input
    "ReluGrad", "Relu6Grad", "EluGrad", "SeluGrad", "LeakyReluGrad", "SoftplusGrad", "SoftsignGrad",
    "TanhGrad", "SigmoidGrad", "RsqrtGrad", "SqrtGrad", "ReciprocalGrad", "MaxPoolGrad", "AvgPoolGrad",
    "MaxPoolGradGrad", "LRNGrad", "FusedBatchNormGrad", "BiasAdd", "BiasAddV1", "ClipByValue",
    # variable updates return the variable
    "Assign", "AssignAdd", "AssignSub", "ApplyGradientDescent", "ApplyMomentum", "ApplyAdam",
    "ApplyAdagrad", "ApplyRMSProp", "ApplyAdadelta", "ApplyFtrl", "ApplyProximalAdagrad",
    "ApplyCenteredRMSProp", "ApplyAdaMax", "ApplyPowerSign", "ApplyAddSign", "ScatterUpdate",
    "ScatterAdd", "ScatterSub", "ScatterMul", "ScatterDiv", "ScatterNdUpdate", "ScatterNdAdd",
    "ResourceApplyGradientDescent",
)
BINARY = (
    "Add", "AddV2", "Sub", "Mul", "RealDiv", "Div", "DivNoNan", "FloorDiv", "FloorMod", "Mod", "TruncateDiv",
    "Maximum", "Minimum", "Pow", "SquaredDifference", "Equal", "NotEqual", "Less", "LessEqual", "Greater",
    "GreaterEqual", "LogicalAnd", "LogicalOr", "Atan2", "BitwiseAnd", "BitwiseOr", "BitwiseXor",
    "MulNoNan", "Xdivy", "Xlogy", "TruncateMod", "ApproximateEqual",
)
SCALAR = ("Size", "Rank", "LoopCond", "L2Loss", "IsVariableInitialized", "ScalarSummary", "HistogramSummary",
          "MergeSummary", "AudioSummary", "ImageSummary")

RULES = {
    **{op: _same_as_first for op in UNARY},
    **{op: _broadcast for op in BINARY},
    **{op: _scalar for op in SCALAR},
    "AddN": _same_as_first, "MatMul": _matmul, "BatchMatMul": _matmul, "BatchMatMulV2": _matmul,
    "BatchMatMulV3": _matmul, "Conv2D": _conv2d, "MaxPool": _pool, "AvgPool": _pool,
    "Conv2DBackpropInput": _from_const_input(0), "Conv2DBackpropFilter": _from_const_input(1),
    "BiasAddGrad": _bias_add_grad, "Reshape": _reshape, "Split": _split, "SplitV": _split_v,
    "ConcatV2": _concat, "Pack": _pack, "ExpandDims": _expand_dims, "Squeeze": _squeeze,
    "Sum": _reduce, "Mean": _reduce, "Max": _reduce, "Min": _reduce, "Prod": _reduce, "All": _reduce,
    "Any": _reduce, "EuclideanNorm": _reduce, "ArgMax": _arg_reduce, "ArgMin": _arg_reduce, "Tile": _tile,
    "Transpose": _transpose,
    "Shape": _shape, "ShapeN": _shape_n, "SparseSoftmaxCrossEntropyWithLogits": _sparse_xent,
    "SoftmaxCrossEntropyWithLogits": _xent, "Switch": _switch, "RefSwitch": _switch, "Merge": _merge,
    "RefMerge": _merge, "Placeholder": _from_shape_attr("shape"), "VariableV2": _from_shape_attr("shape"),
    "PlaceholderWithDefault": _same_as_first, "Const": _const, "Fill": _from_const_input(0),
    "TruncatedNormal": _from_const_input(0), "RandomUniform": _from_const_input(0),
    "RandomStandardNormal": _from_const_input(0), "RandomUniformInt": _from_const_input(0),
    "OneHot": _one_hot, "Slice": _slice, "GatherV2": _gather, "Gather": _gather,
    "NoOp": lambda inputs, attrs: [], "ControlTrigger": lambda inputs, attrs: [],
}


def infer(op_type, inputs, attrs):
    """Output dims per output (None where unknown), or None when ``op_type`` has no rule here."""
    rule = RULES.get(op_type)
    if rule is None:
        return None
    try:
        return rule(inputs, attrs)
    except (IndexError, KeyError, TypeError, ValueError, ZeroDivisionError):
        return None  # a shape the rule did not expect: unknown, never a failure
