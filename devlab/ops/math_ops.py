"""Building math ops: elementwise arithmetic, ``matmul``, ``add_n`` and reductions.

Each function opens TF's name scope (``Add``, ``MatMul``...) so constants made from Python
values are named inside it (``b/y`` for ``tf.add(a, 2.0, name="b")``), as TensorFlow names them.
"""
from ..framework.scopes import name_scope
from .build import apply_op_output, convert_to_tensor


def _binary(op_type, scope_name):
    def build(x, y, name=None):
        with name_scope(name, scope_name, [x, y]) as scope:
            x = convert_to_tensor(x, name="x")
            y = convert_to_tensor(y, preferred_dtype=x.dtype.base_dtype, name="y")
            return apply_op_output(op_type, [x, y], None, scope)
    build.__name__ = scope_name.lower()
    build.__doc__ = f"Elementwise ``{op_type}`` of x and y, with numpy broadcasting."
    build.op_type = op_type  # lets an operator, already in its scope, build the op directly
    return build


def _unary(op_type):
    def build(x, name=None):
        with name_scope(name, op_type, [x]) as scope:
            return apply_op_output(op_type, [convert_to_tensor(x, name="x")], None, scope)
    build.__name__ = op_type.lower()
    build.__doc__ = f"Elementwise ``{op_type}`` of x."
    return build


add = _binary("AddV2", "Add")
subtract = _binary("Sub", "Sub")
multiply = _binary("Mul", "Mul")
truediv = _binary("RealDiv", "truediv")
maximum = _binary("Maximum", "Maximum")
minimum = _binary("Minimum", "Minimum")
pow = _binary("Pow", "Pow")  # noqa: A001 - TF's name
equal = _binary("Equal", "Equal")
greater = _binary("Greater", "Greater")
less = _binary("Less", "Less")

logical_and = _binary("LogicalAnd", "LogicalAnd")
logical_or = _binary("LogicalOr", "LogicalOr")

negative = _unary("Neg")
abs = _unary("Abs")  # noqa: A001
sign = _unary("Sign")
sin = _unary("Sin")
cos = _unary("Cos")
exp = _unary("Exp")
log = _unary("Log")
square = _unary("Square")
sqrt = _unary("Sqrt")
rsqrt = _unary("Rsqrt")
reciprocal = _unary("Reciprocal")
tanh = _unary("Tanh")
sigmoid = _unary("Sigmoid")
logical_not = _unary("LogicalNot")


def divide(x, y, name=None):
    """``x / y`` (TF names the op ``truediv`` unless ``name`` is given)."""
    return truediv(x, y, name=name)


def matmul(a, b, transpose_a=False, transpose_b=False, name=None):
    """Matrix product of two rank-2 tensors."""
    with name_scope(name, "MatMul", [a, b]) as scope:
        a = convert_to_tensor(a, name="a")
        b = convert_to_tensor(b, preferred_dtype=a.dtype.base_dtype, name="b")
        attrs = {"transpose_a": bool(transpose_a), "transpose_b": bool(transpose_b)}
        return apply_op_output("MatMul", [a, b], attrs, scope)


def add_n(inputs, name=None):
    """The elementwise sum of a list of same-shaped tensors (one op, however many inputs)."""
    if not inputs or not isinstance(inputs, (list, tuple)):
        raise ValueError("inputs must be an iterable of at least one Tensor/IndexedSlices with the same dtype and shape")
    xs = [convert_to_tensor(x) for x in inputs]
    if len(xs) == 1:
        from .array_ops import identity
        return identity(xs[0], name=name)
    return apply_op_output("AddN", xs, {"N": len(xs)}, name or "AddN")


def _reduction(op_type, default_name):
    def build(input_tensor, axis=None, keepdims=None, name=None, reduction_indices=None, keep_dims=None):
        from .array_ops import constant
        axis = reduction_indices if axis is None else axis
        keep = bool(keepdims if keepdims is not None else keep_dims)
        x = convert_to_tensor(input_tensor)
        axes = None if axis is None else [int(a) for a in (axis if isinstance(axis, (list, tuple)) else [axis])]
        inputs = [x]
        if axes is None and x.shape.ndims is not None:  # TF makes the "every axis" list a Const first
            inputs.append(constant(list(range(x.shape.ndims)), dtype="int32"))
        with name_scope(name, default_name, [x]) as scope:
            if axes is not None:
                inputs.append(constant(axes if len(axes) > 1 else axes[0], dtype="int32", name="reduction_indices"))
            return apply_op_output(op_type, inputs, {"axis": axes, "keep_dims": keep}, scope)
    build.__name__ = "reduce_" + default_name.lower()
    build.__doc__ = f"Reduces with ``{op_type}`` over ``axis`` (every axis when None)."
    return build


reduce_sum = _reduction("Sum", "Sum")
reduce_mean = _reduction("Mean", "Mean")
reduce_max = _reduction("Max", "Max")
reduce_min = _reduction("Min", "Min")
reduce_prod = _reduction("Prod", "Prod")


def argmax(input, axis=None, name=None, dimension=None, output_type=None):  # noqa: A002
    from ..framework import dtypes
    axis = dimension if axis is None else axis
    return apply_op_output("ArgMax", [convert_to_tensor(input)],
                           {"axis": int(axis or 0), "output_type": dtypes.as_dtype(output_type or dtypes.int64)},
                           name or "ArgMax")
