"""Building math ops: elementwise arithmetic, ``matmul``, ``add_n`` and reductions.

Each function opens TF's name scope (``Add``, ``MatMul``...) so constants made from Python
values are named inside it (``b/y`` for ``tf.add(a, 2.0, name="b")``), as TensorFlow names them.
"""
import builtins

from ..framework import dtypes
from ..framework.scopes import name_scope
from ..framework.tensor import Tensor
from .array_ops import cast, op_output  # noqa: F401 - TF's math_ops.cast
from .elementwise import binary, unary
from ..ops.build import apply_op_output, convert_to_tensor
from ..unimplemented import reject


add = binary("AddV2", "Add")
subtract = binary("Sub", "Sub")
multiply = binary("Mul", "Mul")
_TRUEDIV = {"int8": "float32", "int16": "float32", "uint8": "float32", "int32": "float64", "int64": "float64"}


def truediv(x, y, name=None):
    """x / y as Python 3 divides: integer tensors are cast to floats first (int32 to float64)."""
    with name_scope(name, "truediv", [x, y]) as scope:
        x = convert_to_tensor(x, name="x")
        y = convert_to_tensor(y, preferred_dtype=x.dtype.base_dtype, name="y")
        if x.dtype.base_dtype != y.dtype.base_dtype:
            raise TypeError(f"`x` and `y` must have the same dtype, got {x.dtype.base_dtype!r} != "
                            f"{y.dtype.base_dtype!r}.")
        target = _TRUEDIV.get(x.dtype.base_dtype.name)
        if target is not None:
            x, y = cast(x, target), cast(y, target)
        return apply_op_output("RealDiv", [x, y], None, scope)


truediv.op_type = None  # operators must call it: it may add casts
maximum = binary("Maximum", "Maximum")
minimum = binary("Minimum", "Minimum")
pow = binary("Pow", "Pow")  # noqa: A001 - TF's name
equal = binary("Equal", "Equal")
not_equal = binary("NotEqual", "NotEqual")
greater = binary("Greater", "Greater")
less = binary("Less", "Less")
greater_equal = binary("GreaterEqual", "GreaterEqual")
less_equal = binary("LessEqual", "LessEqual")
logical_and = binary("LogicalAnd", "LogicalAnd")
logical_or = binary("LogicalOr", "LogicalOr")
floordiv = binary("FloorDiv", "floordiv")
floor_div = binary("FloorDiv", "FloorDiv")
# tf.mod and tf.floormod are gen_math_ops.floor_mod, named as the op type (``x % y`` is "mod")
floormod = mod = binary("FloorMod", "FloorMod")
squared_difference = binary("SquaredDifference", "SquaredDifference")


def div_no_nan(x, y, name=None):
    """x / y, and 0 where y is 0; integer tensors are cast to floats first, as ``truediv`` does."""
    with name_scope(name, "div_no_nan", [x, y]) as scope:
        x = convert_to_tensor(x, name="x")
        y = convert_to_tensor(y, dtype=x.dtype.base_dtype, name="y")
        target = _TRUEDIV.get(x.dtype.base_dtype.name)
        if target is not None:
            x, y = cast(x, target), cast(y, target)
        return apply_op_output("DivNoNan", [x, y], None, scope)


realdiv = binary("RealDiv", "RealDiv")
_xlogy = binary("Xlogy", "Xlogy")
_xlog1py = binary("Xlog1py", "Xlog1py")
_xdivy = binary("Xdivy", "Xdivy")


def xlogy(x, y, name=None):
    """x * log(y), 0 where x is 0 (``tf.math.xlogy``: one Xlogy op, no scope of its own, as TF's)."""
    return _xlogy(x, y, name=name)


def xlog1py(x, y, name=None):
    """x * log1p(y), 0 where x is 0 (``tf.math.xlog1py``: an Xlog1py in the scope ``xlog1py``)."""
    with name_scope(name, "xlog1py", [x]):
        return _xlog1py(x, y)


def xdivy(x, y, name=None):
    """x / y, 0 where x is 0 (``tf.math.xdivy``: an Xdivy in the scope ``xdivy``)."""
    with name_scope(name, "xdivy", [y]):
        return _xdivy(x, y)
negative = unary("Neg")
_abs = unary("Abs")


def abs(x, name=None):  # noqa: A001 - TF's name
    """|x| elementwise; of a complex x its magnitude, a real tensor (one ``ComplexAbs``)."""
    if isinstance(x, Tensor) and x.dtype.is_complex:
        with name_scope(name, "Abs", [x]) as scope:
            return apply_op_output("ComplexAbs", [x], {"Tout": x.dtype.real_dtype}, scope)
    return _abs(x, name=name)
sign = unary("Sign")
sin = unary("Sin")
cos = unary("Cos")
exp = unary("Exp")
log = unary("Log")
log1p = unary("Log1p")
square = unary("Square")
sqrt = unary("Sqrt")
rsqrt = unary("Rsqrt")
reciprocal = unary("Reciprocal")
logical_not = unary("LogicalNot")
floor = unary("Floor")
ceil = unary("Ceil")
tanh = unary("Tanh")
sigmoid = unary("Sigmoid")
logical_not = unary("LogicalNot")


def divide(x, y, name=None):
    """``x / y`` (TF names the op ``truediv`` unless ``name`` is given)."""
    return truediv(x, y, name=name)


def matmul(a, b, transpose_a=False, transpose_b=False, adjoint_a=False, adjoint_b=False, a_is_sparse=False,
           b_is_sparse=False, output_type=None, grad_a=False, grad_b=False, name=None):
    """Matrix product: ``MatMul`` for two matrices, ``BatchMatMulV2`` when either input may have
    batch dims (rank above 2, or unknown), as TF chooses."""
    reject("tf.matmul", a_is_sparse=(bool(a_is_sparse), False), b_is_sparse=(bool(b_is_sparse), False),
           output_type=(output_type, None), grad_a=(bool(grad_a), False), grad_b=(bool(grad_b), False))
    with name_scope(name, "MatMul", [a, b]) as scope:
        a = convert_to_tensor(a, name="a")
        b = convert_to_tensor(b, preferred_dtype=a.dtype.base_dtype, name="b")
        ranks = a.shape.ndims, b.shape.ndims
        if any(r is None or r > 2 for r in ranks):
            attrs = {"adj_x": bool(transpose_a or adjoint_a), "adj_y": bool(transpose_b or adjoint_b)}
            return apply_op_output("BatchMatMulV2", [a, b], attrs, scope)
        attrs = {"transpose_a": bool(transpose_a or adjoint_a), "transpose_b": bool(transpose_b or adjoint_b)}
        return apply_op_output("MatMul", [a, b], attrs, scope)


def add_n(inputs, name=None):
    """The elementwise sum of a list of same-shaped tensors (one op, however many inputs)."""
    if not isinstance(inputs, (list, tuple)) and not hasattr(inputs, "__iter__"):
        raise TypeError(f"'{type(inputs).__name__}' object is not iterable")  # TF's words, from Python
    if not inputs or not isinstance(inputs, (list, tuple)):
        raise ValueError("Inputs must be an iterable of at least one Tensor/IndexedSlices with the same dtype "
                         "and shape.")
    if len(inputs) == 1:  # the input itself (dense, if it was an IndexedSlices), renamed only if asked
        from .array_ops import identity
        x = convert_to_tensor(inputs[0])
        return identity(x, name=name) if name else x
    with name_scope(name, "AddN", inputs) as scope:  # an IndexedSlices input is made dense in here
        xs = [convert_to_tensor(x, name=f"inputs_{i}") for i, x in enumerate(inputs)]
        return apply_op_output("AddN", xs, {"N": len(xs)}, scope)


def _reduction(op_type, default_name):
    def build(input_tensor, axis=None, keepdims=None, name=None, reduction_indices=None, keep_dims=None):
        axis = reduction_indices if axis is None else axis
        keep = bool(keepdims if keepdims is not None else keep_dims)
        every_axis = axis is None
        if every_axis:
            axis = _all_axes(input_tensor)
        with name_scope(name, default_name, [input_tensor]) as scope:
            x = convert_to_tensor(input_tensor, name="input")
            if isinstance(axis, (list, tuple)) and not axis:
                # TF converts ``[]`` first without a dtype (float32, not an index type), then again
                # as int32: its graph keeps both Consts, the first one unused.
                convert_to_tensor(axis, name="reduction_indices")
            axes = convert_to_tensor(axis, preferred_dtype=None if isinstance(axis, Tensor) else dtypes.int32,
                                     name="reduction_indices")  # then the OpDef's check of its type
            out = apply_op_output(op_type, [x, axes], {"keep_dims": keep}, scope)
        if every_axis and not keep and not out.shape.is_fully_defined():
            out.set_shape(())  # reducing every axis gives a scalar, whatever the rank (TF's _may_reduce_to_scalar)
        return out
    build.__name__ = "reduce_" + default_name.lower()
    build.__doc__ = f"Reduces with ``{op_type}`` over ``axis`` (every axis when None)."
    return build


def _all_axes(x):
    """TF's reduction axes when none are given: a Const [0, ..., rank-1] if the rank is known
    (and not 0), else ``range(0, rank(x))`` computed at run time. Anything with a ``shape`` counts
    (a Variable too, as TF's ``_ReductionDims`` reads ``x.shape.rank``)."""
    from .array_ops import constant, range as range_, rank
    shape = getattr(x, "shape", None)
    if getattr(shape, "ndims", None):
        return constant(list(builtins.range(x.shape.ndims)), dtype="int32")
    return range_(0, rank(x))


reduce_sum = _reduction("Sum", "Sum")
reduce_mean = _reduction("Mean", "Mean")
reduce_max = _reduction("Max", "Max")
reduce_min = _reduction("Min", "Min")
reduce_prod = _reduction("Prod", "Prod")
reduce_any = _reduction("Any", "Any")
reduce_all = _reduction("All", "All")
_euclidean_norm = _reduction("EuclideanNorm", "EuclideanNorm")


def reduce_euclidean_norm(input_tensor, axis=None, keepdims=False, name=None):
    """sqrt(sum(|x|²)) over ``axis`` (every axis when None): one ``EuclideanNorm`` op (``tf.math``'s)."""
    return _euclidean_norm(input_tensor, axis=axis, keepdims=bool(keepdims), name=name)


_AXIS_TYPES = ("int8", "uint8", "int16", "uint16", "int32", "int64")


def argmax(input, axis=None, name=None, dimension=None, output_type=dtypes.int64):  # noqa: A002
    axis = 0 if (dimension if axis is None else axis) is None else (dimension if axis is None else axis)
    if hasattr(axis, "dtype"):  # TF's argmax: an int, or a tensor (numpy value) of an integer type
        if str(getattr(axis.dtype, "name", axis.dtype)).replace("_ref", "") not in _AXIS_TYPES:
            raise TypeError(f"axis tensor dtypes {axis.dtype!r} is not supported")
    elif not isinstance(axis, int):
        raise TypeError("axis must be int or Tensor with integer datatype")
    return op_output("ArgMax", name, [("input", input, None), ("dimension", axis, None)],
                     {"output_type": dtypes.as_dtype(output_type)})


def cumsum(x, axis=0, exclusive=False, reverse=False, name=None):
    """Running sums of ``x`` along ``axis`` (one Cumsum op): ``exclusive`` leaves each element out
    of its own sum, ``reverse`` sums from the end."""
    with name_scope(name, "Cumsum", [x]) as scope:
        x = convert_to_tensor(x, name="x")
        return op_output("Cumsum", scope, [("x", x, None), ("axis", axis, None)],
                         {"exclusive": bool(exclusive), "reverse": bool(reverse)})


def clip_by_value(t, clip_value_min, clip_value_max, name=None):
    """min(max(t, clip_value_min), clip_value_max), built as TF builds it: Minimum, then Maximum."""
    with name_scope(name, "clip_by_value", [t, clip_value_min, clip_value_max]) as scope:
        values = convert_to_tensor(t, name="t")
        return maximum(minimum(values, clip_value_max), clip_value_min, name=scope)



def unsorted_segment_sum(data, segment_ids, num_segments, name=None):
    """out[i] = the sum of the rows of ``data`` whose ``segment_ids`` are i."""
    return op_output("UnsortedSegmentSum", name, [("data", data, None), ("segment_ids", segment_ids, None),
                                                  ("num_segments", num_segments, None)])


# -- reductions built from other ops ------------------------------------------------------------------
def reduce_logsumexp(input_tensor, axis=None, keepdims=False, name=None, reduction_indices=None, keep_dims=None):
    """log(sum(exp(x))) without overflow: the max (where finite) is taken out first and added back.
    The max is a StopGradient, so the gradient is softmax-shaped, as TF's."""
    from . import array_ops
    axis = reduction_indices if axis is None else axis
    keepdims = bool(keep_dims) if keepdims is None else keepdims
    with name_scope(name, "ReduceLogSumExp", [input_tensor]) as scope:
        raw_max = reduce_max(input_tensor, axis=axis, keepdims=True)
        is_finite = op_output("IsFinite", None, [("x", raw_max, None)])
        finite_max = op_output("SelectV2", None, [("condition", is_finite, None), ("t", raw_max, None),
                                                  ("e", 0, raw_max.dtype.base_dtype)])
        my_max = array_ops.stop_gradient(finite_max)
        result = log(reduce_sum(exp(subtract(input_tensor, my_max)), axis=axis, keepdims=keepdims))
        if not keepdims:
            shape = apply_op_output("Shape", [result], {"out_type": dtypes.int32}, "Shape")
            my_max = array_ops.reshape(my_max, shape)
        return add(result, my_max, name=scope)


def count_nonzero(input_tensor=None, axis=None, keepdims=None, dtype=dtypes.int64, name=None, reduction_indices=None,
                  keep_dims=None, input=None):  # noqa: A002 - TF's name
    """How many elements are not zero (or true), over ``axis``: a Sum of the int64 cast of NotEqual."""
    from . import array_ops
    input_tensor = input if input_tensor is None else input_tensor
    axis = reduction_indices if axis is None else axis
    keepdims = bool(keep_dims) if keepdims is None else keepdims
    with name_scope(name, "count_nonzero", [input_tensor]):
        x = convert_to_tensor(input_tensor, name="input")
        if x.dtype.base_dtype == dtypes.bool:
            predicate = x
        else:
            predicate = not_equal(x, array_ops.zeros([], dtype=x.dtype.base_dtype))
        return array_ops.cast(reduce_sum(array_ops.cast(predicate, dtypes.int64), axis=axis, keepdims=keepdims),
                              dtype=dtype)


def _as_indexed_slices(x, optimize=True):
    """``x`` as IndexedSlices: every row of a tensor, indices ``range(shape[0])`` (TF's helper its
    tests and gradient code use). ``optimize`` folds a fully known shape into a Const, as ``shape`` does."""
    from ..framework.indexed_slices import IndexedSlices
    from .array_ops import range as range_, shape
    if not isinstance(x, (Tensor, IndexedSlices)):
        raise TypeError(f"Not a Tensor or IndexedSlices: {type(x)}.")
    if isinstance(x, IndexedSlices):
        return x
    x_shape = shape(x) if optimize else apply_op_output("Shape", [x], {"out_type": dtypes.int32}, "Shape")
    return IndexedSlices(x, range_(0, x_shape[0]), x_shape)
