"""Gradient rules, one per op type, each written with the graph-building ops themselves
(autograd's ``defvjp``): a rule takes the forward op and the gradient of its output and
returns one gradient per input (None where an input gets none).

Ops without a rule are either not differentiable (``NOT_DIFFERENTIABLE``) or unknown, which
``gradients`` reports as TensorFlow does.
"""
from . import array_ops as A
from . import math_ops as M
from .build import apply_op_output


def mul(a, b):
    """``a * b`` named as TF's operator names it (``mul``)."""
    return M.multiply(a, b, name="mul")


def unbroadcast(grad, x):
    """Sums ``grad`` over the axes along which ``x`` was broadcast, back to ``x``'s shape."""
    gs, xs = grad.shape.dims, x.shape.dims
    if gs is None or xs is None or gs == xs:
        return grad
    lead = len(gs) - len(xs)
    axes = list(range(lead)) + [i + lead for i, d in enumerate(xs) if d == 1 and gs[i + lead] != 1]
    if not axes:
        return grad
    summed = M.reduce_sum(grad, axes)
    return A.reshape(summed, [-1 if d is None else d for d in xs])


def _reduced_shape(x, axis):
    dims = x.shape.dims
    axes = range(len(dims)) if axis is None else [a % len(dims) for a in axis]
    return [1 if i in axes else (-1 if d is None else d) for i, d in enumerate(dims)]


def _mean_grad(op, grad):
    """The sum's gradient divided by how many elements each output averaged."""
    x, y = op.inputs[0], op.outputs[0]
    if x.shape.is_fully_defined():
        count = float(x.shape.num_elements() // max(y.shape.num_elements(), 1))
    else:  # a dimension is only known at run time: count with Size ops
        count = M.truediv(A.cast(A.size(x), x.dtype), A.cast(A.size(y), x.dtype))
    return [M.truediv(_broadcast_back(op, grad), count)]


def _broadcast_back(op, grad):
    """The gradient of a reduction, spread back over the reduced axes."""
    x = op.inputs[0]
    return M.multiply(A.ones_like(x), A.reshape(grad, _reduced_shape(x, op.get_attr("axis"))))


def _max_grad(op, grad):
    x, y = op.inputs[0], op.outputs[0]
    shape = _reduced_shape(x, op.get_attr("axis"))
    mask = A.cast(M.equal(x, A.reshape(y, shape)), x.dtype)
    count = M.reduce_sum(mask, op.get_attr("axis"), keepdims=True)
    return [M.truediv(mul(mask, A.reshape(grad, shape)), count)]


def _matmul_grad(op, grad):
    a, b = op.inputs
    ta, tb = op.get_attr("transpose_a"), op.get_attr("transpose_b")
    if not ta and not tb:
        return [M.matmul(grad, b, transpose_b=True), M.matmul(a, grad, transpose_a=True)]
    if not ta and tb:
        return [M.matmul(grad, b), M.matmul(grad, a, transpose_a=True)]
    if ta and not tb:
        return [M.matmul(b, grad, transpose_b=True), M.matmul(a, grad)]
    return [M.matmul(b, grad, transpose_a=True, transpose_b=True), M.matmul(grad, a, transpose_a=True, transpose_b=True)]


def _softmax_grad(op, grad):
    y = op.outputs[0]
    return [mul(M.subtract(grad, M.reduce_sum(mul(grad, y), -1, keepdims=True)), y)]


def _xent_grad(op, grad_loss, grad_backprop=None):
    return [mul(A.expand_dims(grad_loss, -1), op.outputs[1]), None]


def _transpose_grad(op, grad):
    perm = op.get_attr("perm")
    inverse = [perm.index(i) for i in range(len(perm))]
    return [A.transpose(grad, inverse)]


def _cast_grad(op, grad):
    src = op.get_attr("SrcT")
    return [A.cast(grad, src) if src.is_floating else None]


def _minmax_grad(compare):
    def rule(op, grad):
        x, y = op.inputs
        mask = A.cast(compare(x, y), grad.dtype)
        return [unbroadcast(mul(grad, mask), x), unbroadcast(M.subtract(grad, mul(grad, mask)), y)]
    return rule


GRADIENTS = {
    "Identity": lambda op, g: [g],
    "AddV2": lambda op, g: [unbroadcast(g, op.inputs[0]), unbroadcast(g, op.inputs[1])],
    "Sub": lambda op, g: [unbroadcast(g, op.inputs[0]), unbroadcast(M.negative(g), op.inputs[1])],
    "Mul": lambda op, g: [unbroadcast(mul(g, op.inputs[1]), op.inputs[0]),
                          unbroadcast(mul(op.inputs[0], g), op.inputs[1])],
    "RealDiv": lambda op, g: [unbroadcast(M.truediv(g, op.inputs[1]), op.inputs[0]),
                              unbroadcast(mul(g, M.truediv(M.negative(op.outputs[0]), op.inputs[1])),
                                          op.inputs[1])],
    "Pow": lambda op, g: [unbroadcast(mul(g, mul(op.inputs[1], M.pow(op.inputs[0], M.subtract(op.inputs[1], 1.0)))), op.inputs[0]),
                          unbroadcast(mul(g, mul(op.outputs[0], M.log(op.inputs[0]))), op.inputs[1])],
    "Maximum": _minmax_grad(lambda x, y: M.greater(x, y)),
    "Minimum": _minmax_grad(lambda x, y: M.less(x, y)),
    "Neg": lambda op, g: [M.negative(g)],
    "Abs": lambda op, g: [mul(g, M.sign(op.inputs[0]))],
    "Sin": lambda op, g: [mul(g, M.cos(op.inputs[0]))],
    "Cos": lambda op, g: [mul(g, M.negative(M.sin(op.inputs[0])))],
    "Exp": lambda op, g: [mul(g, op.outputs[0])],
    "Log": lambda op, g: [mul(g, M.reciprocal(op.inputs[0]))],
    "Square": lambda op, g: [mul(g, mul(op.inputs[0], 2.0))],
    "Sqrt": lambda op, g: [M.truediv(mul(g, 0.5), op.outputs[0])],
    "Rsqrt": lambda op, g: [mul(g, mul(M.pow(op.outputs[0], 3.0), -0.5))],
    "Reciprocal": lambda op, g: [mul(g, M.negative(M.square(op.outputs[0])))],
    "Tanh": lambda op, g: [apply_op_output("TanhGrad", [op.outputs[0], g])],
    "Sigmoid": lambda op, g: [apply_op_output("SigmoidGrad", [op.outputs[0], g])],
    "Relu": lambda op, g: [apply_op_output("ReluGrad", [g, op.outputs[0]])],
    "Softmax": _softmax_grad,
    "SoftmaxCrossEntropyWithLogits": _xent_grad,
    "MatMul": _matmul_grad,
    "AddN": lambda op, g: [g] * len(op.inputs),
    "Sum": lambda op, g: [_broadcast_back(op, g)],
    "Mean": _mean_grad,
    "Max": _max_grad,
    "Min": _max_grad,
    "Reshape": lambda op, g: [A.reshape(g, [-1 if d is None else d for d in op.inputs[0].shape.dims])],
    "ExpandDims": lambda op, g: [A.reshape(g, [-1 if d is None else d for d in op.inputs[0].shape.dims])],
    "Transpose": _transpose_grad,
    "Cast": _cast_grad,
    "PlaceholderWithDefault": lambda op, g: [g],
}

# Ops whose outputs carry no gradient (integer, boolean, shape or source ops).
NOT_DIFFERENTIABLE = {
    "Const", "Placeholder", "VariableV2", "Assign", "AssignAdd", "AssignSub", "Fill", "RandomUniform",
    "RandomStandardNormal", "TruncatedNormal", "StopGradient", "Shape", "Size", "Rank", "ZerosLike", "OnesLike",
    "Equal", "Greater", "Less", "ArgMax", "OneHot", "NoOp", "Sign", "AsString", "StringJoin", "ScalarSummary",
    "PyFunc", "PyFuncStateless", "IsVariableInitialized", "ApplyGradientDescent", "ApplyMomentum", "ApplyAdam",
}
