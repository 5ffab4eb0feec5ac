"""Gradient rules, one per op type, each written with the graph-building ops themselves
(autograd's ``defvjp``): a rule takes the forward op and the gradient of each of its outputs and
returns one gradient per input (None where an input gets none).

The rules build what TensorFlow 2.21's ``math_grad.py``, ``array_grad.py`` and ``nn_grad.py``
build, op for op and name for name (``Sum_grad/Reshape``, ``Sum_grad/Tile``, ``Cos_grad/Neg``
before ``Cos_grad/Sin``...), so the gradient graph and its placement log read as TF's do. Where
TF computes a shape while building, so does a rule (``constant_value``); the ``Shape`` Consts TF
makes on the way are made too. Ops without a rule are either not differentiable
(``NOT_DIFFERENTIABLE``) or unknown, which ``gradients`` reports as TensorFlow does.
"""
import weakref

import numpy as np

from ..framework import dtypes
from ..framework.indexed_slices import IndexedSlices
from ..framework.scopes import colocate_with, control_dependencies
from ..framework.tensor import Tensor
from . import array_ops as A
from . import math_ops as M
from . import nn_ops as N
from .array_ops import op_output
from ..ops.build import apply_op, apply_op_output
from .control_flow_grad import GRADIENTS as CONTROL_FLOW_GRADIENTS
from .control_flow_util import output_context
from .gen_resource_variable_ops import variable_shape
from .tensor_array_grad import GRADIENTS as TENSOR_ARRAY_GRADIENTS
from .tensor_array_grad import NOT_DIFFERENTIABLE as TENSOR_ARRAY_NOT_DIFFERENTIABLE
from ..ops.tensor_util import constant_value
from .grad_shapes import reduced_shape as _reduced_shape
from .sparse_grad import GRADIENTS as SPARSE_GRADIENTS
from .math_grad_more import GRADIENTS as MORE_MATH_GRADIENTS
from .math_grad_more import NOT_DIFFERENTIABLE as MORE_MATH_NOT_DIFFERENTIABLE
from .math_ops_more import conj, imag, mul_no_nan, real
from .sparse_grad import NOT_DIFFERENTIABLE as SPARSE_NOT_DIFFERENTIABLE


def _static(t):
    """The static dims of ``t`` as a tuple, or None when its rank is unknown."""
    return t.shape.sizes


def _fully_equal(x, y, grad):
    """TF's ``_ShapesFullySpecifiedAndEqual``: no broadcasting happened, nothing to reduce."""
    xs = _static(x)
    return xs == _static(y) and xs == _static(grad) and xs is not None and None not in xs


# -- broadcasting binary ops -------------------------------------------------------------------
def _reduction_axes(x_dims, y_dims):
    """The axes along which x and y were broadcast, when the static shapes decide it (else None)."""
    if x_dims is None or y_dims is None:
        return None, None
    rank = max(len(x_dims), len(y_dims))
    x_axes, y_axes = [], []
    for axis in range(rank):
        x_dim = 1 if axis < rank - len(x_dims) else x_dims[axis - (rank - len(x_dims))]
        y_dim = 1 if axis < rank - len(y_dims) else y_dims[axis - (rank - len(y_dims))]
        if x_dim == 1 and y_dim != 1:
            x_axes.append(axis)
        elif y_dim == 1 and x_dim != 1:
            y_axes.append(axis)
        elif x_dim is None or y_dim is None:
            return None, None
    return x_axes, y_axes


def _InferGradientReductionAxes(x_shape, y_shape):  # noqa: N802 - TF's name (math_grad.py), its tests call it
    """The axes x and y were broadcast along, from two TensorShapes; (None, None) when unknown."""
    return _reduction_axes(x_shape.sizes, y_shape.sizes)


def _broadcast_args(x, y):
    """TF's ``SmartBroadcastGradientArgs``: per argument, its shape, the axes to sum over and
    whether a reduction is needed (a ``BroadcastGradientArgs`` op decides at run time when the
    static shapes cannot)."""
    x_shape, y_shape = A.shape(x), A.shape(y)
    x_axes, y_axes = _reduction_axes(_static(x), _static(y))
    if x_axes is None or y_axes is None:
        x_axes, y_axes = apply_op("BroadcastGradientArgs", [x_shape, y_shape], None, "BroadcastGradientArgs").outputs
        return (x_shape, x_axes, True), (y_shape, y_axes, True)
    x_rank, y_rank = len(_static(x)), len(_static(y))
    return (x_shape, x_axes, bool(x_axes) or x_rank < y_rank), (y_shape, y_axes, bool(y_axes) or y_rank < x_rank)


def _reduce_arg(grad, shape_axes_must):
    shape, axes, must_reduce = shape_axes_must
    if grad is not None and must_reduce:
        grad = A.reshape(M.reduce_sum(grad, axes, keepdims=True), shape)
    return grad


def _reduce_args(x, y, gx, gy):
    """The gradients of a broadcasting binary op, summed back to each argument's shape."""
    if gx is None and gy is None:
        return gx, gy
    bx, by = _broadcast_args(x, y)
    return [_reduce_arg(gx, bx), _reduce_arg(gy, by)]


def _add_grad(op, grad):
    x, y = op.inputs
    if _fully_equal(x, y, grad):
        return [grad, grad]
    return _reduce_args(x, y, grad, grad)


def _sub_grad(op, grad):
    x, y = op.inputs
    if _fully_equal(x, y, grad):
        return [grad, -grad]
    return _reduce_args(x, y, grad, -grad)


def _mul_grad(op, grad):
    x, y = op.inputs
    if _fully_equal(x, y, grad) and grad.dtype.base_dtype in (dtypes.int32, dtypes.float32):
        return [M.multiply(grad, y, name="Mul"), M.multiply(grad, x, name="Mul")]
    if x.dtype.is_complex:  # the conjugate direction (a real tensor is its own conjugate: no op)
        x, y = conj(x), conj(y)
    gx = M.multiply(grad, y, name="Mul")
    gy = M.multiply(x, grad, name="Mul")
    return _reduce_args(op.inputs[0], op.inputs[1], gx, gy)


def _real_div_grad(op, grad):
    x, y = op.inputs
    gx = M.realdiv(grad, y)
    gy = grad * M.realdiv(M.realdiv(-x, y), y)
    return _reduce_args(x, y, gx, gy)


def _div_no_nan_grad(op, grad):
    x, y = op.inputs
    gx = M.div_no_nan(grad, y)
    gy = grad * M.div_no_nan(M.div_no_nan(-x, y), y)
    return _reduce_args(x, y, gx, gy)


def _mul_no_nan_grad(op, grad):
    """As Mul's, each product a MulNoNan: where the other factor is 0 the gradient is 0."""
    x, y = op.inputs
    gx, gy = mul_no_nan(grad, y), mul_no_nan(x, grad)
    if isinstance(grad, Tensor) and _fully_equal(x, y, grad):
        return [gx, gy]
    return _reduce_args(x, y, gx, gy)


def _complex_grad(op, grad):
    """The real and imaginary parts of the gradient, each summed back to its input's shape."""
    x, y = op.inputs
    return _reduce_args(x, y, real(grad), imag(grad))


def _pow_grad(op, grad):
    x, y = op.inputs
    gx = grad * y * M.pow(x, y - 1)
    mask = x > 0
    safe_x = A.where(mask, x, A.ones_like(x))
    log_x = A.where(mask, M.log(safe_x), A.zeros_like(x))
    gy = grad * op.outputs[0] * log_x
    return _reduce_args(x, y, gx, gy)


def _min_max_grad(selector):
    """Maximum and Minimum: the gradient goes to x where x >= y (x <= y), else to y. On a tie
    it goes to x only, as in TF."""
    def rule(op, grad):
        x, y = op.inputs
        zeros = A.zeros_like(grad)
        xmask = selector(x, y)
        gx = A.where_v2(xmask, grad, zeros)
        gy = A.where_v2(xmask, zeros, grad)
        return _reduce_args(x, y, gx, gy)
    return rule


def _squared_difference_grad(op, grad):
    x, y = op.inputs
    with control_dependencies([grad]):
        x_grad = _scalar_mul(2.0, grad) * (x - y)
    if _fully_equal(x, y, grad):
        return [x_grad, -x_grad]
    return _reduce_args(x, y, x_grad, -x_grad)


def _scalar_mul(scalar, x):
    """TF's ``scalar_mul``: a Const named ``scalar`` times x (one ``Mul``)."""
    s = A.constant(scalar, dtype=x.dtype.base_dtype, name="scalar")
    return apply_op_output("Mul", [s, x], None, "Mul")


def _floor_mod_grad(op, grad):
    x, y = op.inputs
    floor_xy = M.floor_div(x, y)
    return _reduce_args(x, y, grad, grad * M.negative(floor_xy))


# -- elementwise unary ops -------------------------------------------------------------------------
def _after(grad, build):
    """Builds ``build()`` inside ``control_dependencies([grad])``, as TF's unary rules do so that
    the forward-side ops (Sin of x, 2 * x...) are not computed before the gradient arrives."""
    with control_dependencies([grad]):
        return build()


def _square_grad(op, grad):
    x = op.inputs[0]
    return [_after(grad, lambda: M.multiply(grad, M.multiply(x, A.constant(2.0, dtype=x.dtype.base_dtype))))]


GRADIENTS = {
    "Identity": lambda op, g: [g],
    "EnsureShape": lambda op, g: [g],
    "IdentityN": lambda op, *grads: list(grads),
    "PlaceholderWithDefault": lambda op, g: [g],
    "AddV2": _add_grad,
    "Sub": _sub_grad,
    "Mul": _mul_grad,
    "RealDiv": _real_div_grad,
    "DivNoNan": _div_no_nan_grad,
    "MulNoNan": _mul_no_nan_grad,
    "Complex": _complex_grad,
    "Pow": _pow_grad,
    "Maximum": _min_max_grad(M.greater_equal),
    "Minimum": _min_max_grad(M.less_equal),
    "SquaredDifference": _squared_difference_grad,
    "FloorMod": _floor_mod_grad,
    "FloorDiv": lambda op, g: [None, None],
    "Floor": lambda op, g: [None],
    "Ceil": lambda op, g: [None],
    "AddN": lambda op, g: [g] * len(op.inputs),
    "Neg": lambda op, g: [-g],
    "Abs": lambda op, g: [g * M.sign(op.inputs[0])],
    "Sign": lambda op, g: [A.zeros_like(op.inputs[0])],
    "Square": _square_grad,
    "Sqrt": lambda op, g: [apply_op_output("SqrtGrad", [op.outputs[0], g], None, "SqrtGrad")],
    "Rsqrt": lambda op, g: [apply_op_output("RsqrtGrad", [op.outputs[0], g], None, "RsqrtGrad")],
    "Reciprocal": lambda op, g: [apply_op_output("ReciprocalGrad", [op.outputs[0], g], None, "ReciprocalGrad")],
    "Exp": lambda op, g: [_after(g, lambda: g * op.outputs[0])],
    "Log": lambda op, g: [_after(g, lambda: g * M.reciprocal(op.inputs[0]))],
    "Log1p": lambda op, g: [_after(g, lambda: g * M.reciprocal(1 + op.inputs[0]))],
    "Sin": lambda op, g: [_after(g, lambda: g * M.cos(op.inputs[0]))],
    "Cos": lambda op, g: [_after(g, lambda: -g * M.sin(op.inputs[0]))],
    "Tanh": lambda op, g: [_after(g, lambda: apply_op_output("TanhGrad", [op.outputs[0], g], None, "TanhGrad"))],
    "Sigmoid": lambda op, g: [_after(g, lambda: apply_op_output("SigmoidGrad", [op.outputs[0], g], None,
                                                                "SigmoidGrad"))],
    "Relu": lambda op, g: [apply_op_output("ReluGrad", [g, op.outputs[0]], None, "ReluGrad")],
    "Cast": lambda op, g: [A.cast(g, op.inputs[0].dtype.base_dtype)
                           if op.inputs[0].dtype.is_floating and g.dtype.is_floating else None],
}


# -- matrix products and reductions ------------------------------------------------------------
def _matmul_grad(op, grad):
    a, b = op.inputs
    ta, tb = op.get_attr("transpose_a"), op.get_attr("transpose_b")
    if not ta and not tb:
        return [M.matmul(grad, b, transpose_b=True), M.matmul(a, grad, transpose_a=True)]
    if not ta and tb:
        return [M.matmul(grad, b), M.matmul(grad, a, transpose_a=True)]
    if ta and not tb:
        return [M.matmul(b, grad, transpose_b=True), M.matmul(a, grad)]
    return [M.matmul(b, grad, transpose_a=True, transpose_b=True),
            M.matmul(grad, a, transpose_a=True, transpose_b=True)]


def _batch_matmul_grad(op, grad):
    """As MatMul's, with adjoints; the batch dims a broadcast input lacked are summed away."""
    x, y = op.inputs
    adj_x, adj_y = op.get_attr("adj_x"), op.get_attr("adj_y")
    if not adj_x and not adj_y:
        gx, gy = M.matmul(grad, y, adjoint_b=True), M.matmul(x, grad, adjoint_a=True)
    elif not adj_x:
        gx, gy = M.matmul(grad, y), M.matmul(grad, x, adjoint_a=True)
    elif not adj_y:
        gx, gy = M.matmul(y, grad, adjoint_b=True), M.matmul(x, grad)
    else:
        gx, gy = M.matmul(y, grad, adjoint_a=True, adjoint_b=True), M.matmul(grad, x, adjoint_a=True, adjoint_b=True)
    xs, ys = _static(x), _static(y)
    batched = xs is None or len(xs) > 2 or ys is None or len(ys) > 2
    same_batch = xs is not None and ys is not None and None not in xs[:-2] and None not in ys[:-2] \
        and tuple(xs[:-2]) == tuple(ys[:-2])
    if not batched or same_batch:
        return [gx, gy]
    sx, sy = A.shape(x), A.shape(y)
    rx, ry = apply_op("BroadcastGradientArgs", [sx[:-2], sy[:-2]], None, "BroadcastGradientArgs").outputs
    return [A.reshape(M.reduce_sum(gx, rx), sx), A.reshape(M.reduce_sum(gy, ry), sy)]


_REDUCED_SHAPES = weakref.WeakKeyDictionary()  # graph -> {(input shape, axes): (kept dims, tile scaling)}


def _sum_grad(op, grad):
    """Spread the gradient back over the reduced axes: Reshape to keep the reduced dims as 1, then
    Tile. TF's fast paths: when reducing every dim of a known rank, and when all shapes are known."""
    x, axes_t = op.inputs
    dims = _static(x)
    if dims is not None:
        axes = constant_value(axes_t)
        if axes is not None:
            rank = len(dims)
            if np.array_equal(axes, np.arange(rank)):
                grad = A.reshape(grad, [1] * rank)
                input_shape = A.constant(list(dims), dtype=dtypes.int32) if None not in dims else A.shape(x)
                return [A.tile(grad, input_shape), None]
            if None not in dims:
                axes = tuple(int(a) for a in np.asarray(axes).reshape(-1))
                cache = _REDUCED_SHAPES.setdefault(op.graph, {})
                key = (tuple(dims), axes)
                if key not in cache:  # TF caches these per graph: the next such gradient makes no extra ops
                    kept = _reduced_shape(dims, axes)
                    cache[key] = (tuple(int(d) for d in kept), _tile_scaling(dims, kept))
                kept, scaling = cache[key]
                grad = A.reshape(grad, list(kept))
                return [A.tile(grad, list(scaling)), None]
    input_shape = A.shape(x)
    if not op.get_attr("keep_dims"):
        with colocate_with(input_shape.op):
            kept = _reduced_shape(input_shape, axes_t)
        grad = A.reshape(grad, kept)
    return [apply_op_output("BroadcastTo", [grad, input_shape], None, "BroadcastTo"), None]


def _tile_scaling(dims, kept):
    """TF's ``_SafeShapeDiv(input_shape, kept)``: built as ops (a Maximum and a floordiv), then
    read as constants. The ops stay in the graph, unused, as they do in TF's."""
    scaling = tuple(dims) // M.maximum(np.asarray(kept, dtype=np.int32), 1)
    return tuple(int(v) for v in constant_value_folded(scaling))


def constant_value_folded(t):
    """The value of a small graph of constant arithmetic (Maximum, FloorDiv of Consts)."""
    op = t.op
    if op.type == "Const":
        return np.asarray(op.get_attr("value"))
    a, b = (constant_value_folded(i) for i in op.inputs)
    return {"Maximum": np.maximum, "FloorDiv": np.floor_divide}[op.type](a, b)


def _mean_grad(op, grad):
    sum_grad = _sum_grad(op, grad)[0]
    x, y = op.inputs[0], op.outputs[0]
    in_dims, out_dims = _static(x), _static(y)
    if in_dims is not None and out_dims is not None and None not in in_dims and None not in out_dims:
        factor = int(np.prod(in_dims, dtype=np.int64)) // max(int(np.prod(out_dims, dtype=np.int64)), 1)
        factor = A.constant(factor, dtype=sum_grad.dtype.base_dtype)
    else:
        input_shape = A.shape(x)
        input_rank = A.size(input_shape)
        axes = A.cast(op.inputs[1], input_rank.dtype.base_dtype)
        axes = (axes + input_rank) % input_rank
        factor = M.reduce_prod(A.gather(input_shape, axes))
    return [M.truediv(sum_grad, A.cast(factor, sum_grad.dtype.base_dtype)), None]


def _min_or_max_grad(op, grad):
    """The gradient goes to the elements equal to the result, shared between ties."""
    x, axes = op.inputs
    input_shape = A.shape(x)
    y = op.outputs[0]
    if not op.get_attr("keep_dims"):
        kept = _reduced_shape(input_shape, axes)
        y = A.reshape(y, kept)
        grad = A.reshape(grad, kept)
    else:
        kept = A.shape(y)
    indicators = A.cast(M.equal(y, x), grad.dtype.base_dtype)
    num_selected = A.reshape(M.reduce_sum(indicators, axes), kept)
    return [M.divide(indicators, num_selected) * grad, None]


def _x_times_grad(partials):
    """TF's rule for Xlogy, Xlog1py and Xdivy: ``partials(x, y, not_zero_x)`` gives d/dx and d/dy,
    each times the gradient, summed over the broadcast axes (a BroadcastGradientArgs op) and reshaped."""
    def rule(op, grad):
        x, y = op.inputs
        sx, sy = A.shape(x), A.shape(y)
        rx, ry = apply_op("BroadcastGradientArgs", [sx, sy], None, "BroadcastGradientArgs").outputs
        with control_dependencies([grad]):
            dtype = x.dtype.base_dtype
            not_zero_x = A.cast(M.not_equal(x, A.cast(0.0, dtype=dtype)), dtype=dtype)
            partial_x, partial_y = partials(x, y, not_zero_x)
            return [A.reshape(M.reduce_sum(partial_x * grad, rx), sx),
                    A.reshape(M.reduce_sum(partial_y * grad, ry), sy)]
    return rule


def _euclidean_norm_grad(op, grad):
    """x / (norm / grad), the norm and its gradient reshaped to keep the reduced dims (TF's rule)."""
    x, axes = op.inputs
    y = op.outputs[0]
    if not op.get_attr("keep_dims"):
        kept = _reduced_shape(A.shape(x), axes)
        y = A.reshape(y, kept)
        grad = A.reshape(grad, kept)
    return [M.truediv(x, y / grad), None]


GRADIENTS.update({
    "MatMul": _matmul_grad,
    "EuclideanNorm": _euclidean_norm_grad,
    "Xlogy": _x_times_grad(lambda x, y, nz: (M._xlogy(nz, y), M._xdivy(x, y))),
    "Xlog1py": _x_times_grad(lambda x, y, nz: (M._xlog1py(nz, y), M._xdivy(x, y + 1.0))),
    "Xdivy": _x_times_grad(lambda x, y, nz: (M._xdivy(nz, y), M._xdivy(M.negative(x), y ** 2))),
    "BatchMatMulV2": _batch_matmul_grad,
    "Sum": _sum_grad,
    "Mean": _mean_grad,
    "Max": _min_or_max_grad,
    "Min": _min_or_max_grad,
})


# -- shapes, slices, gathers -----------------------------------------------------------------
def _reshape_grad(op, grad):
    x = op.inputs[0]
    dims = _static(x)
    if dims is not None and None in dims:
        unknown = [i for i, d in enumerate(dims) if d is None]
        if len(unknown) == 1 and 0 not in dims:
            return [A.reshape(grad, [-1 if d is None else d for d in dims]), None]
    return [A.reshape(grad, A.shape(x)), None]


def _to_input_shape(op, grad):
    return A.reshape(grad, A.shape(op.inputs[0]))


def _transpose_grad(op, grad):
    return [A.transpose(grad, A.invert_permutation(op.inputs[1])), None]


def _tile_grad(op, grad):
    """Sum the tiled copies back: reshape to [multiple, dim, multiple, dim...], sum every other axis."""
    x, multiples = op.inputs
    input_shape = A.shape(x, out_type=multiples.dtype.base_dtype)
    split_shape = A.reshape(A.transpose(A.stack([multiples, input_shape])), [-1])
    axes = A.range(0, A.size(split_shape), 2)
    input_grad = M.reduce_sum(A.reshape(grad, split_shape), axes)
    input_grad.set_shape(x.shape)
    return [input_grad, None]


def _pad_grad(op, grad):
    """The slice of the gradient where the input sits (between the paddings)."""
    x, paddings = op.inputs[0], op.inputs[1]
    pad_before = A.slice(paddings, [0, 0], A.stack([A.rank(x), 1]))
    begin = A.reshape(pad_before, [-1])
    sizes = A.shape(x, out_type=begin.dtype.base_dtype)
    return [A.slice(grad, begin, sizes)] + [None] * (len(op.inputs) - 1)


def _slice_grad(op, grad):
    """Pad the gradient with zeros back to the input's shape."""
    x, begin = op.inputs[0], op.inputs[1]
    input_rank = A.rank(x)
    slice_size = A.shape(op.outputs[0], out_type=begin.dtype.base_dtype)
    shape = A.stack([input_rank, 1])
    before_pad = A.reshape(begin, shape)
    after_pad = A.reshape(A.shape(x, out_type=begin.dtype.base_dtype) - slice_size - begin, shape)
    paddings = A.concat([before_pad, after_pad], 1)
    return [A.pad(grad, paddings), None, None]


def _strided_slice_grad(op, grad):
    x, begin, end, strides = op.inputs
    shape = A.shape(x, out_type=begin.dtype.base_dtype)

    def static(t):
        value = constant_value(t)
        return t if value is None else value
    masks = {k: op.get_attr(k) for k in ("begin_mask", "end_mask", "ellipsis_mask", "new_axis_mask",
                                         "shrink_axis_mask")}
    out = op_output("StridedSliceGrad", None, [("shape", static(shape), None), ("begin", static(begin), None),
                                               ("end", static(end), None), ("strides", static(strides), None),
                                               ("dy", grad, None)], masks)
    return [out, None, None, None]


def _strided_slice_grad_grad(op, grad):
    """StridedSliceGrad scatters ``dy`` into zeros; its gradient slices ``grad`` back out the
    same way (TF's ``_StridedSliceGradGrad``): second derivatives, e.g. ``tf.hessians``."""
    begin, end, strides = op.inputs[1:4]
    masks = {k: op.get_attr(k) for k in ("begin_mask", "end_mask", "ellipsis_mask", "new_axis_mask",
                                         "shrink_axis_mask")}
    return [None, None, None, None, A.strided_slice(grad, begin, end, strides, **masks)]


def _prevent_gradient_grad(op, _):
    raise LookupError(f"Gradient explicitly disabled. Reason: {op.get_attr('message')}")


def _concat_grad(op, grad):
    """Slice the gradient at each input's offset (ConcatOffset), as TF does for up to 16 inputs."""
    values, axis = op.inputs[:-1], op.inputs[-1]
    if len(values) == 1:
        return [grad, None]
    if axis.op.type == "Const" and output_context(grad.op) is not output_context(axis.op):
        # An axis from another loop context is copied here rather than entered (TF's rule).
        axis = A.constant(constant_value(axis), dtype=axis.dtype.base_dtype)
    non_neg_axis = axis % A.rank(values[0])
    sizes = []
    for v in values:  # TF stops at the first shape it cannot fold, and takes them all from ShapeN
        sizes.append(A.shape(v))
        if sizes[-1].op.type != "Const":
            sizes = A.shape_n(values)
            break
    if len(sizes) > 16:
        sizes_t = A.squeeze(A.slice(A.stack(sizes, axis=1), [non_neg_axis, 0], [1, -1]))
        return A.split(grad, sizes_t, non_neg_axis, num=len(values)) + [None]
    offsets = apply_op("ConcatOffset", [non_neg_axis] + list(sizes), {"N": len(sizes)}, "ConcatOffset").outputs
    return [A.slice(grad, begin, size) for begin, size in zip(offsets, sizes)] + [None]


def _dynamic_stitch_grad(op, grad):
    """Each list's rows of the merged gradient, gathered back (a sparse gradient made dense first)."""
    n = len(op.inputs) // 2
    indices = [t if t.dtype.base_dtype == dtypes.int32 else M.cast(t, dtypes.int32) for t in op.inputs[:n]]
    if isinstance(grad, IndexedSlices):
        grad = M.unsorted_segment_sum(grad.values, grad.indices, A.shape(op.outputs[0])[0])
    return [None] * n + [A.gather(grad, i) for i in indices]


def _dynamic_partition_grad(op, *grads):
    """The partitions' gradients stitched back into data's order."""
    from .data_flow_ops import dynamic_partition, parallel_dynamic_stitch
    data, partitions = op.inputs
    prefix_shape = A.shape(partitions)
    original = A.reshape(A.range(M.reduce_prod(prefix_shape)), prefix_shape)
    parts = dynamic_partition(original, partitions, op.get_attr("num_partitions"))
    return [A.reshape(parallel_dynamic_stitch(parts, list(grads)), A.shape(data)), None]


def _gather_grad(op, grad):
    """The gradient rows, to be added back where they were gathered from: for axis 0 an
    IndexedSlices (the rows and their indices; made dense only where something needs it dense),
    for other axes TF's transpose-around-a-segment-sum path."""
    params, indices, axis = op.inputs
    with colocate_with(params.op):
        params_shape = A.shape(params)
    indices_size = A.expand_dims(A.size(indices), 0)
    if constant_value(axis) == 0:
        values_shape = A.concat([indices_size, params_shape[1:]], 0)
        if isinstance(grad, IndexedSlices):  # TF's _IndexedSlicesToTensorNoWarning, in the grad's scope
            grad = M.unsorted_segment_sum(grad.values, grad.indices, grad.dense_shape[0])
        values = A.reshape(grad, values_shape)
        flat_indices = A.reshape(indices, indices_size)
        return [IndexedSlices(values, flat_indices, params_shape), None, None]
    outer_shape = params_shape[:axis]
    inner_shape = params_shape[axis:][1:]
    values_shape = A.concat([outer_shape, [-1], inner_shape], 0)
    values_dims = A.size(values_shape)
    axis_dims = A.size(outer_shape)
    outer_batches = A.range(0)
    batch_axis = A.range(0, axis_dims)
    inner_axes = A.range(axis_dims + 1, values_dims)
    values = A.reshape(grad, values_shape)
    transpose_dims = A.concat([outer_batches, [axis_dims], batch_axis, inner_axes], 0)
    values = A.transpose(values, transpose_dims)
    A.gather(params_shape, transpose_dims)  # TF's batch-gather helper takes it (unused when batch_dims is 0)
    flat_indices = A.reshape(indices, A.expand_dims(A.size(indices), 0))
    params_grad = M.unsorted_segment_sum(values, flat_indices, params_shape[axis])
    params_grad = A.transpose(params_grad, A.concat([outer_batches, batch_axis + 1, [0], inner_axes], 0))
    return [A.reshape(params_grad, A.shape(params)), None, None]


def _select_grad(op, grad):
    c, x = op.inputs[0], op.inputs[1]
    zeros = A.zeros_like(x)
    return [None, A.where(c, grad, zeros), A.where(c, zeros, grad)]


def _select_v2_grad(op, grad):
    c, x, y = op.inputs
    z = op.outputs[0]
    zeros = A.zeros([], dtype=grad.dtype.base_dtype)
    gx = A.where_v2(c, grad, zeros)
    gy = A.where_v2(c, zeros, grad)
    gx = _reduce_args(x, z, gx, None)[0]
    gy = _reduce_args(y, z, gy, None)[0]
    return [None, gx, gy]


GRADIENTS.update({
    "Reshape": _reshape_grad,
    "ExpandDims": lambda op, g: [_to_input_shape(op, g), None],
    "Squeeze": lambda op, g: [_to_input_shape(op, g)],
    "Transpose": _transpose_grad,
    "ReverseSequence": lambda op, g: [op_output("ReverseSequence", None, [("input", g, None),
                                                                           ("seq_lengths", op.inputs[1], None)],
                                                {"seq_dim": op.get_attr("seq_dim"),
                                                 "batch_dim": op.get_attr("batch_dim")}), None],
    "ReverseV2": lambda op, g: [op_output("ReverseV2", None, [("tensor", g, None), ("axis", op.inputs[1], None)]),
                                None],
    "Tile": _tile_grad,
    "Pad": _pad_grad,
    "PadV2": _pad_grad,
    "MirrorPad": lambda op, g: [op_output("MirrorPadGrad", None, [("input", g, None), ("paddings", op.inputs[1], None)],
                                          {"mode": op.get_attr("mode")}), None],
    "Slice": _slice_grad,
    "StridedSlice": _strided_slice_grad,
    "StridedSliceGrad": _strided_slice_grad_grad,
    "PreventGradient": _prevent_gradient_grad,
    "Split": lambda op, *gs: [None, A.concat(list(gs), op.inputs[0])],
    "SplitV": lambda op, *gs: [A.concat(list(gs), op.inputs[2]), None, None],
    "ConcatV2": _concat_grad,
    "Pack": lambda op, g: A.unstack(g, num=op.get_attr("N"), axis=op.get_attr("axis")),
    "Unpack": lambda op, *gs: [A.stack(list(gs), axis=op.get_attr("axis"))],
    "GatherV2": _gather_grad,
    "DynamicStitch": _dynamic_stitch_grad,
    "ParallelDynamicStitch": _dynamic_stitch_grad,
    "DynamicPartition": _dynamic_partition_grad,
    "Fill": lambda op, g: [None, M.reduce_sum(g)],
    "Select": _select_grad,
    "SelectV2": _select_v2_grad,
})


# -- neural networks -------------------------------------------------------------------------------
def _softmax_grad(op, grad):
    softmax = op.outputs[0]
    sum_channels = M.reduce_sum(grad * softmax, -1, keepdims=True)
    return [(grad - sum_channels) * softmax]


def _log_softmax_grad(op, grad):
    softmax = M.exp(op.outputs[0])
    return [grad - M.reduce_sum(grad, -1, keepdims=True) * softmax]


def _broadcast_mul(vec, mat):
    """vec[:, None] * mat"""
    return A.expand_dims(vec, -1) * mat


def _xent_grad(op, grad_loss, grad_grad=None):
    logits = op.inputs[0]
    return [_broadcast_mul(grad_loss, op.outputs[1]), _broadcast_mul(grad_loss, -N.log_softmax(logits))]


def _conv_attrs(op, *names):
    return {n: op.get_attr(n) for n in names}


def _conv2d_grad(op, grad):
    x, f = op.inputs
    shape_0, shape_1 = A.shape_n([x, f])
    attrs = _conv_attrs(op, "strides", "padding", "use_cudnn_on_gpu", "data_format", "dilations", "explicit_paddings")
    return [apply_op_output("Conv2DBackpropInput", [shape_0, f, grad], attrs, "Conv2DBackpropInput"),
            apply_op_output("Conv2DBackpropFilter", [x, shape_1, grad], attrs, "Conv2DBackpropFilter")]


def _max_pool_grad(op, grad):
    attrs = _conv_attrs(op, "ksize", "strides", "padding", "explicit_paddings", "data_format")
    return [apply_op_output("MaxPoolGrad", [op.inputs[0], op.outputs[0], grad], attrs, "MaxPoolGrad")]


def _avg_pool_grad(op, grad):
    attrs = _conv_attrs(op, "ksize", "strides", "padding", "data_format")
    return [apply_op_output("AvgPoolGrad", [A.shape(op.inputs[0], out_type=dtypes.int32), grad], attrs, "AvgPoolGrad")]


def _fused_batch_norm_grad(op, grad, *unused):
    """FusedBatchNormGradV3 from the batch statistics kept in the reserve spaces (training) or the
    population statistics given (inference)."""
    x, scale = op.inputs[0], op.inputs[1]
    attrs = _conv_attrs(op, "epsilon", "data_format", "is_training")
    stats = op.outputs[3:5] if attrs["is_training"] else op.inputs[3:5]
    dx, dscale, doffset, _, _ = apply_op("FusedBatchNormGradV3", [grad, x, scale, *stats, op.outputs[5]], attrs,
                                         "FusedBatchNormGradV3").outputs
    return [dx, dscale, doffset, None, None]


def _lrn_grad(op, grad):
    attrs = _conv_attrs(op, "depth_radius", "bias", "alpha", "beta")
    return [apply_op_output("LRNGrad", [grad, op.inputs[0], op.outputs[0]], attrs, "LRNGrad")]


def _top_k_grad(op, grad, _):
    """The values' gradient scattered back to where each value came from (TF's ``_TopKGrad``: the
    indices flattened to positions in the flattened input, a ScatterNd, a Reshape); the indices
    get none."""
    in_shape, ind_shape = A.shape(op.inputs[0]), A.shape(op.outputs[1])
    ind_lastdim = A.gather(A.cast(ind_shape, dtypes.int64), A.size(ind_shape) - 1)
    ind_2d = A.reshape(op.outputs[1], A.stack([-1, ind_lastdim]))
    in_lastdim = A.gather(A.cast(in_shape, dtypes.int64), A.size(in_shape) - 1)
    outerdim = A.shape(ind_2d)[0]
    ind = A.reshape(ind_2d + A.cast(A.expand_dims(A.range(0, A.cast(outerdim, dtypes.int64) * in_lastdim, in_lastdim),
                                                  -1), dtypes.int32), [-1])
    scattered = op_output("ScatterNd", None, [("indices", A.expand_dims(ind, -1), None),
                                              ("updates", A.reshape(grad, [-1]), None),
                                              ("shape", [M.reduce_prod(in_shape)], None)])
    return [A.reshape(scattered, in_shape), A.zeros([], dtype=dtypes.int32)]


def _gather_nd_grad(op, grad):
    """TF's: the rows of a gather by one index column as IndexedSlices; otherwise a ScatterNd of
    the gradient into zeros shaped like ``params`` (with the op's bad-index policy)."""
    ref, indices = op.inputs
    ref_shape = A.shape(ref, out_type=indices.dtype.base_dtype)
    if indices.shape.ndims == 2 and indices.shape.sizes[-1] == 1:
        return [IndexedSlices(grad, A.squeeze(indices, axis=-1), ref_shape), None]
    return [A.scatter_nd(indices, grad, ref_shape, bad_indices_policy=op.attrs.get("bad_indices_policy", "")), None]


GRADIENTS.update({
    "GatherNd": _gather_nd_grad,
    "Softmax": _softmax_grad,
    "LogSoftmax": _log_softmax_grad,
    "SoftmaxCrossEntropyWithLogits": _xent_grad,
    "SparseSoftmaxCrossEntropyWithLogits": lambda op, g, gg=None: [_broadcast_mul(g, op.outputs[1]), None],
    "BiasAdd": lambda op, g: [g, apply_op_output("BiasAddGrad", [g], {"data_format": op.get_attr("data_format")},
                                                 "BiasAddGrad")],
    "L2Loss": lambda op, g: [op.inputs[0] * g],
    "Conv2D": _conv2d_grad,
    "MaxPool": _max_pool_grad,
    "AvgPool": _avg_pool_grad,
    "LRN": _lrn_grad,
    "FusedBatchNormV3": _fused_batch_norm_grad,
    "LeakyRelu": lambda op, g: [apply_op_output("LeakyReluGrad", [g, op.inputs[0]], {"alpha": op.get_attr("alpha")},
                                                "LeakyReluGrad")],
    "Elu": lambda op, g: [apply_op_output("EluGrad", [g, op.outputs[0]], None, "EluGrad")],
    "Selu": lambda op, g: [apply_op_output("SeluGrad", [g, op.outputs[0]], None, "SeluGrad")],
    "Softplus": lambda op, g: [g * M.sigmoid(op.inputs[0])],
    "Relu6": lambda op, g: [apply_op_output("Relu6Grad", [g, op.outputs[0]], None, "Relu6Grad")],
    "Softsign": lambda op, g: [apply_op_output("SoftsignGrad", [g, op.inputs[0]], None, "SoftsignGrad")],
    "TopKV2": _top_k_grad,
})

def _sparse_to_dense_grad(op, grad):
    """The values' gradient is the gradient at their indices; the default's, the rest of it."""
    sparse_indices, output_shape, _, _ = op.inputs
    sparse_values_grad = A.gather_nd(grad, sparse_indices)
    default_value_grad = M.reduce_sum(grad) - M.reduce_sum(sparse_values_grad)
    return [A.zeros_like(sparse_indices), A.zeros_like(output_shape), sparse_values_grad, default_value_grad]


GRADIENTS["SparseToDense"] = _sparse_to_dense_grad
# TF's _CheckNumericsGrad: the gradient is checked too. TF formats the message attr as the bytes
# its get_attr returns, so its message reads "... gradient. b'msg'"; devlab writes the same words.
# the gradient of a running sum is the running sum of the gradient run the other way (TF's _CumsumGrad)
GRADIENTS["Cumsum"] = lambda op, grad: [M.cumsum(grad, op.inputs[1], exclusive=op.get_attr("exclusive"),
                                                 reverse=not op.get_attr("reverse")), None]
GRADIENTS["CheckNumerics"] = lambda op, grad: [A.check_numerics(
    grad, "Not a number (NaN) or infinity (Inf) values detected in gradient. "
    f"{str(op.get_attr('message')).encode()!r}")]

# A read passes its gradient to the handle, summed over every read of the variable (TF's _ReadGrad);
# a gather of rows gives those rows' gradient, as GatherV2's does (TF's ResourceGather gradient).
GRADIENTS["ReadVariableOp"] = lambda op, grad: [grad]


def _resource_gather_grad(op, grad):
    handle, indices = op.inputs
    params_shape = variable_shape(handle)
    size = A.expand_dims(A.size(indices), 0)
    values_shape = A.concat([size, params_shape[1:]], 0)
    values = A.reshape(grad, values_shape)
    indices = A.reshape(indices, size)
    return [IndexedSlices(values, indices, params_shape), None]


GRADIENTS["ResourceGather"] = _resource_gather_grad

# Ops whose outputs carry no gradient (integer, boolean, shape or source ops).
NOT_DIFFERENTIABLE = {
    "Const", "Placeholder", "VariableV2", "Assign", "AssignAdd", "AssignSub", "RandomUniform", "RandomUniformInt",
    "RandomStandardNormal", "TruncatedNormal", "StopGradient", "Shape", "ShapeN", "Size", "Rank", "ZerosLike",
    "OnesLike", "Equal", "NotEqual", "Greater", "Less", "GreaterEqual", "LessEqual", "LogicalAnd", "LogicalOr",
    "LogicalNot", "ArgMax", "OneHot", "NoOp", "AsString", "StringJoin", "ScalarSummary", "HistogramSummary",
    "MergeSummary", "IsVariableInitialized", "ApplyGradientDescent", "ApplyMomentum", "ApplyAdam", "Range",
    "ApplyRMSProp", "ApplyCenteredRMSProp", "ApplyAdagrad", "ApplyAdadelta", "ApplyFtrl", "ApplyFtrlV2",
    "ApplyProximalAdagrad", "ApplyProximalGradientDescent", "Unique", "ScatterUpdate", "ScatterAdd", "ScatterSub",
    "SparseApplyMomentum", "SparseApplyAdagrad", "SparseApplyRMSProp", "SparseApplyCenteredRMSProp",
    "SparseApplyAdadelta", "SparseApplyFtrl", "SparseApplyFtrlV2", "SparseApplyProximalAdagrad",
    "SparseApplyProximalGradientDescent",
    "Where", "BroadcastGradientArgs", "ConcatOffset", "InvertPermutation", "PyFunc",
    "PyFuncStateless", "InTopKV2", "IsFinite", "StackV2", "StackPushV2", "StackPopV2", "ControlTrigger",
    "LogUniformCandidateSampler", "UniformCandidateSampler", "ComputeAccidentalHits",
    "BitwiseAnd", "BitwiseOr", "BitwiseXor", "Invert",
    "VarHandleOp", "VarIsInitializedOp", "VariableShape", "DisableCopyOnRead", "AssignVariableOp",
    "AssignAddVariableOp", "AssignSubVariableOp",
    "ResourceScatterAdd", "ResourceScatterSub", "ResourceScatterUpdate", "ResourceCountUpTo",
    "ResourceApplyGradientDescent", "ResourceApplyMomentum", "ResourceApplyAdam", "ResourceApplyRMSProp",
    "ResourceApplyCenteredRMSProp", "ResourceApplyAdagrad", "ResourceApplyAdadelta", "ResourceApplyFtrl",
    "ResourceApplyFtrlV2", "ResourceApplyProximalAdagrad", "ResourceApplyProximalGradientDescent",
    "ResourceSparseApplyMomentum", "ResourceSparseApplyAdagrad", "ResourceSparseApplyRMSProp",
    "ResourceSparseApplyCenteredRMSProp", "ResourceSparseApplyAdadelta", "ResourceSparseApplyFtrl",
    "ResourceSparseApplyFtrlV2", "ResourceSparseApplyProximalAdagrad", "ResourceSparseApplyProximalGradientDescent",
}

# tf.cond and tf.while_loop: Switch, Merge, Enter, Exit, NextIteration, LoopCond (control_flow_grad.py).
GRADIENTS.update(CONTROL_FLOW_GRADIENTS)
# TensorArrays: a read's gradient is a write to the gradient array, and so on (tensor_array_grad.py).
GRADIENTS.update(TENSOR_ARRAY_GRADIENTS)
NOT_DIFFERENTIABLE |= TENSOR_ARRAY_NOT_DIFFERENTIABLE
GRADIENTS.update(SPARSE_GRADIENTS)
NOT_DIFFERENTIABLE |= SPARSE_NOT_DIFFERENTIABLE
GRADIENTS.update(MORE_MATH_GRADIENTS)  # Prod, Cumprod, the segment max/min/prod/mean, NextAfter
NOT_DIFFERENTIABLE |= MORE_MATH_NOT_DIFFERENTIABLE


class RegisterGradient:
    """``tf.RegisterGradient("OpType")``: the decorated ``f(op, *grads)`` becomes the gradient of
    that op type, or of ops built under ``Graph.gradient_override_map({type: "OpType"})``."""

    def __init__(self, op_type):
        if not isinstance(op_type, str):
            raise TypeError("op_type must be a string")
        self._op_type = op_type

    def __call__(self, f):
        if self._op_type in GRADIENTS or self._op_type in NOT_DIFFERENTIABLE or self._op_type in REGISTERED:
            raise KeyError(f"Registering two gradient with name '{self._op_type}'!")
        REGISTERED[self._op_type] = lambda op, *grads: list(f(op, *grads))
        return f


REGISTERED = {}  # the rules programs register (tf.RegisterGradient, tf.custom_gradient), beside devlab's own


def gradient_function(grad_type):
    """The rule for the gradient type ``grad_type`` (devlab's, else a registered one), or None."""
    return GRADIENTS.get(grad_type) or REGISTERED.get(grad_type)


def gradient_op_type(op):
    """The type whose gradient rule applies to ``op``: its ``_gradient_op_type`` attr (set by
    ``gradient_override_map``) when it has one, else its own type."""
    mapped = op.attrs.get("_gradient_op_type")
    return op.type if mapped is None else mapped.decode() if isinstance(mapped, bytes) else mapped


def is_differentiable(op):
    """TF's ``op_selector.is_differentiable``: the op type has a gradient rule."""
    return gradient_function(op.type) is not None and op.type not in NOT_DIFFERENTIABLE
