"""The op table: every op type devlab knows, in one place.

Each entry is an ``OpDef`` (opdef.py): the op's shape rule, its kernel (written once against
``xp``), the device types with a kernel (the placer reads this, so CPU-only ops make soft
placement and "no kernel" errors real), the inputs taken by reference (the op is colocated with
that variable), whether it has state (never pruned, never folded), and what the runtime may
assume of its kernel (views, planned output buffers, DEAD inputs, ufuncs and fusion). Gradient
rules live in ``api/grad_table.py``, written in terms of the ops below. An op type the table
lacks comes from TensorFlow's own OpDef (``tf_ops.py``): placed and modelled, never run.
"""
import functools
import weakref
from dataclasses import replace

from . import activation_kernels as AK
from . import allocation
from . import broadcast_args as BA
from . import conditional_accumulator as CA
from . import data_flow_kernels as DK
from . import data_flow_shapes as DS
from . import ensure_shape as ES
from . import fifo_queue as Q
from . import logging_kernels as LK
from . import math_kernels_more as MM
from . import input_kernels as IK
from . import lookup_table as LT
from . import random_shuffle_queue as RQ
from . import resource_variable_kernels as RV
from . import kernels as K
from . import matrix_kernels as MK
from . import nn_kernels as NK
from . import nn_shapes as NS
from . import optimizer_kernels as OK
from . import sampling_kernels as CS
from . import segment_kernels as SGK
from . import shapes as S
from . import philox as PX
from . import sparse_kernels as SK
from . import sparse_shapes as SS
from . import sparse_tensor_kernels as STK
from . import tf_ops
from .opdef import BOTH, CPU_ONLY, OpDef  # noqa: F401 - BOTH and CPU_ONLY are the table's words


def _table(*defs):
    return {d.type: d for d in defs}


def _elementwise(op_type, shape, ufunc, expression=None, **facts):
    """An op that is exactly ``xp.<ufunc>(*inputs)``: the compiled program calls the ufunc, writing
    into a planned buffer, and fuses chains of such ops whose ``expression`` (the op in numexpr's
    syntax, given its inputs" expressions) is known."""
    return OpDef(op_type, shape, K.elementwise(ufunc), ufunc=ufunc, float_ufunc=ufunc, expression=expression,
                 writes_out=True, **facts)


def _infix(sign):
    return lambda a, b: f"({a} {sign} {b})"


def _call(function):
    return lambda a: f"{function}({a})"


OPS = _table(
    # sources
    OpDef("Const", S.const, K.const, returns_view=True, required_attrs=("value", "dtype")),
    OpDef("Placeholder", S.from_attrs, K.placeholder, required_attrs=("dtype", "shape")),
    OpDef("PlaceholderWithDefault", S.placeholder_with_default, K.identity, returns_view=True, forwards=True),
    OpDef("Fill", S.fill, K.fill, type_input=1),
    OpDef("RandomUniform", S.random, K.random_uniform, stateful=True, required_attrs=("dtype",)),
    OpDef("RandomUniformInt", S.random, K.random_uniform_int, stateful=True, required_attrs=("dtype",)),
    OpDef("RandomStandardNormal", S.random, K.random_normal, stateful=True, required_attrs=("dtype",)),
    OpDef("TruncatedNormal", S.random, K.truncated_normal, stateful=True, required_attrs=("dtype",)),
    # variables
    OpDef("VariableV2", S.variable, K.variable, stateful=True, required_attrs=("shape", "dtype")),
    OpDef("Variable", S.variable, K.variable, stateful=True, required_attrs=("shape", "dtype")),  # TF's older one
    OpDef("Assign", S.assign, K.assign, ref_inputs=(0,), stateful=True, args=("ref", "value")),
    OpDef("AssignAdd", S.ref_of_first, K.assign_add, ref_inputs=(0,), stateful=True, args=("ref", "value")),
    OpDef("AssignSub", S.ref_of_first, K.assign_sub, ref_inputs=(0,), stateful=True, args=("ref", "value")),
    OpDef("CountUpTo", S.same_as_first, K.count_up_to, devices=CPU_ONLY, ref_inputs=(0,), stateful=True),
    OpDef("IsVariableInitialized", S.scalar_bool, K.is_variable_initialized, ref_inputs=(0,), type_input=None),
    OpDef("ApplyGradientDescent", S.ref_of_first, K.apply_gradient_descent, ref_inputs=(0,), stateful=True),
    OpDef("ApplyMomentum", S.ref_of_first, K.apply_momentum, ref_inputs=(0, 1), stateful=True),
    OpDef("ApplyAdam", S.ref_of_first, K.apply_adam, ref_inputs=(0, 1, 2), stateful=True),
    OpDef("ApplyRMSProp", S.ref_of_first, OK.apply_rms_prop, ref_inputs=(0, 1, 2), stateful=True),
    OpDef("ApplyCenteredRMSProp", S.ref_of_first, OK.apply_centered_rms_prop, ref_inputs=(0, 1, 2, 3), stateful=True),
    OpDef("ApplyAdagrad", S.ref_of_first, OK.apply_adagrad, ref_inputs=(0, 1), stateful=True),
    OpDef("ApplyAdadelta", S.ref_of_first, OK.apply_adadelta, ref_inputs=(0, 1, 2), stateful=True),
    OpDef("ApplyFtrl", S.ref_of_first, OK.apply_ftrl, ref_inputs=(0, 1, 2), stateful=True),
    OpDef("ApplyFtrlV2", S.ref_of_first, OK.apply_ftrl_v2, ref_inputs=(0, 1, 2), stateful=True),
    OpDef("ApplyProximalAdagrad", S.ref_of_first, OK.apply_proximal_adagrad, ref_inputs=(0, 1), stateful=True),
    OpDef("ApplyProximalGradientDescent", S.ref_of_first, OK.apply_proximal_gradient_descent, ref_inputs=(0,),
          stateful=True),
    # resource variables: the ops take the variable's handle, and the placer joins each with the
    # handle's VarHandleOp (a resource edge); ``ref_inputs`` names the handles an op writes
    OpDef("VarHandleOp", RV.handle, RV.var_handle_op, stateful=True, type_input=None,
          required_attrs=("shape", "dtype")),
    OpDef("ReadVariableOp", RV.read, RV.read_variable_op, stateful=True, type_input=None, returns_view=True),
    OpDef("AssignVariableOp", RV.no_output, RV.assign_variable_op, ref_inputs=(0,), stateful=True, type_input=1),
    OpDef("AssignAddVariableOp", RV.same_shape_update, RV.assign_add_variable_op, ref_inputs=(0,), stateful=True,
          type_input=1),
    OpDef("AssignSubVariableOp", RV.same_shape_update, RV.assign_sub_variable_op, ref_inputs=(0,), stateful=True,
          type_input=1),
    OpDef("DisableCopyOnRead", RV.no_output, RV.disable_copy_on_read, stateful=True, type_input=None),
    OpDef("VariableShape", RV.variable_shape, RV.variable_shape_op, type_input=None),
    OpDef("VarIsInitializedOp", S.scalar_bool, RV.var_is_initialized_op, stateful=True, type_input=None),
    OpDef("ResourceGather", RV.gather_shape, RV.resource_gather, stateful=True, type_input=None),
    OpDef("ResourceCountUpTo", RV.count_up_to, RV.resource_count_up_to, CPU_ONLY, ref_inputs=(0,), stateful=True, type_input=None),
    OpDef("ResourceScatterAdd", RV.no_output, RV.without_output(SK.scatter_add), ref_inputs=(0,), stateful=True,
          type_input=None),
    OpDef("ResourceScatterSub", RV.no_output, RV.without_output(SK.scatter_sub), ref_inputs=(0,), stateful=True,
          type_input=None),
    OpDef("ResourceScatterUpdate", RV.no_output, RV.without_output(SK.scatter_update), ref_inputs=(0,),
          stateful=True, type_input=None),
    *[OpDef("Resource" + name, RV.no_output, RV.without_output(kernel), ref_inputs=refs, stateful=True,
            type_input=None) for name, kernel, refs in (
        ("ApplyGradientDescent", K.apply_gradient_descent, (0,)),
        ("ApplyMomentum", K.apply_momentum, (0, 1)),
        ("ApplyAdam", K.apply_adam, (0, 1, 2)),
        ("ApplyRMSProp", OK.apply_rms_prop, (0, 1, 2)),
        ("ApplyCenteredRMSProp", OK.apply_centered_rms_prop, (0, 1, 2, 3)),
        ("ApplyAdagrad", OK.apply_adagrad, (0, 1)),
        ("ApplyAdadelta", OK.apply_adadelta, (0, 1, 2)),
        ("ApplyFtrl", OK.apply_ftrl, (0, 1, 2)),
        ("ApplyFtrlV2", OK.apply_ftrl_v2, (0, 1, 2)),
        ("ApplyProximalAdagrad", OK.apply_proximal_adagrad, (0, 1)),
        ("ApplyProximalGradientDescent", OK.apply_proximal_gradient_descent, (0,)),
        ("SparseApplyMomentum", SK.sparse(K.apply_momentum, 3), (0, 1)),
        ("SparseApplyAdagrad", SK.sparse(OK.apply_adagrad, 3), (0, 1)),
        ("SparseApplyRMSProp", SK.sparse(OK.apply_rms_prop, 7), (0, 1, 2)),
        ("SparseApplyCenteredRMSProp", SK.sparse(OK.apply_centered_rms_prop, 8), (0, 1, 2, 3)),
        ("SparseApplyAdadelta", SK.sparse(OK.apply_adadelta, 6), (0, 1, 2)),
        ("SparseApplyFtrl", SK.sparse(OK.apply_ftrl, 3), (0, 1, 2)),
        ("SparseApplyFtrlV2", SK.sparse(OK.apply_ftrl_v2, 3), (0, 1, 2)),
        ("SparseApplyProximalAdagrad", SK.sparse(OK.apply_proximal_adagrad, 5), (0, 1)),
        ("SparseApplyProximalGradientDescent", SK.sparse(OK.apply_proximal_gradient_descent, 4), (0,)),
    )],
    # elementwise math
    OpDef("Identity", S.same_as_first, K.identity, returns_view=True, forwards=True),
    OpDef("EnsureShape", ES.shape, ES.kernel, returns_view=True),
    OpDef("BroadcastArgs", S.broadcast_args, BA.kernel),
    OpDef("MatrixDiagV3", MK.matrix_diag_shape, MK.matrix_diag),
    OpDef("MatrixSetDiagV3", MK.set_diag_shape, MK.matrix_set_diag),
    OpDef("DiagPart", MK.diag_part_shape, MK.diag_part),
    OpDef("Qr", MK.qr_shape, MK.qr),
    OpDef("StopGradient", S.same_as_first, K.stop_gradient, returns_view=True, forwards=True),
    OpDef("PreventGradient", S.same_as_first, K.stop_gradient, returns_view=True, forwards=True),  # an identity when run
    _elementwise("AddV2", S.broadcast, "add", _infix("+"), args=("x", "y")),
    _elementwise("Sub", S.broadcast, "subtract", _infix("-"), args=("x", "y")),
    _elementwise("Mul", S.broadcast, "multiply", _infix("*"), args=("x", "y")),
    OpDef("RealDiv", S.broadcast, K.real_div, args=("x", "y"), writes_out=True,
          float_ufunc="divide", expression=_infix("/")),  # fused for floating-point inputs only
    _elementwise("Maximum", S.broadcast, "maximum", args=("x", "y")),  # NaN rules differ from numexpr: not fused
    _elementwise("Minimum", S.broadcast, "minimum", args=("x", "y")),
    _elementwise("Pow", S.broadcast, "power", args=("x", "y")),
    _elementwise("Neg", S.same_as_first, "negative", lambda a: f"(-{a})"),
    _elementwise("Abs", S.same_as_first, "absolute", _call("abs")),
    _elementwise("Sign", S.same_as_first, "sign"),
    _elementwise("Sin", S.same_as_first, "sin", _call("sin")),
    _elementwise("Cos", S.same_as_first, "cos", _call("cos")),
    _elementwise("Exp", S.same_as_first, "exp", _call("exp")),
    _elementwise("Log", S.same_as_first, "log", _call("log")),
    _elementwise("Log1p", S.same_as_first, "log1p", _call("log1p")),
    _elementwise("Square", S.same_as_first, "square"),
    _elementwise("Sqrt", S.same_as_first, "sqrt", _call("sqrt")),
    OpDef("CheckNumerics", S.same_as_first, K.check_numerics, returns_view=True),
    OpDef("ParallelConcat", S.parallel_concat, K.parallel_concat),
    OpDef("Rsqrt", S.same_as_first, K.rsqrt),
    OpDef("Reciprocal", S.same_as_first, K.reciprocal),
    _elementwise("Tanh", S.same_as_first, "tanh", _call("tanh")),
    _elementwise("Floor", S.same_as_first, "floor"),
    _elementwise("Ceil", S.same_as_first, "ceil"),
    _elementwise("IsFinite", S.bool_like_first, "isfinite"),
    OpDef("Relu", S.same_as_first, K.relu, writes_out=True),
    OpDef("Sigmoid", S.same_as_first, K.sigmoid),
    OpDef("Softmax", S.same_as_first, K.softmax),
    OpDef("ReluGrad", S.same_as_first, K.relu_grad, writes_out=True),
    OpDef("SigmoidGrad", S.same_as_first, K.sigmoid_grad),
    OpDef("TanhGrad", S.same_as_first, K.tanh_grad),
    _elementwise("Equal", S.broadcast_bool, "equal", args=("x", "y")),
    _elementwise("Greater", S.broadcast_bool, "greater", args=("x", "y")),
    _elementwise("Less", S.broadcast_bool, "less", args=("x", "y")),
    _elementwise("GreaterEqual", S.broadcast_bool, "greater_equal", args=("x", "y")),
    _elementwise("LessEqual", S.broadcast_bool, "less_equal", args=("x", "y")),
    _elementwise("NotEqual", S.broadcast_bool, "not_equal", args=("x", "y")),
    _elementwise("LogicalAnd", S.broadcast_bool, "logical_and", args=("x", "y")),
    _elementwise("LogicalOr", S.broadcast_bool, "logical_or", args=("x", "y")),
    _elementwise("LogicalNot", S.same_as_first, "logical_not"),
    # integer division by zero fails the op (TF's words): a kernel of its own, never a bare ufunc
    OpDef("FloorDiv", S.broadcast, K.floor_div, args=("x", "y"), writes_out=True),
    OpDef("FloorMod", S.broadcast, K.floor_mod, args=("x", "y"), writes_out=True),  # the sign of the divisor, as Python's %
    OpDef("SquaredDifference", S.broadcast, K.squared_difference, args=("x", "y"), writes_out=True),
    OpDef("DivNoNan", S.broadcast, K.div_no_nan, args=("x", "y")),
    OpDef("BitwiseAnd", S.broadcast, K.elementwise("bitwise_and"), args=("x", "y")),
    OpDef("BitwiseOr", S.broadcast, K.elementwise("bitwise_or"), args=("x", "y")),
    OpDef("BitwiseXor", S.broadcast, K.elementwise("bitwise_xor"), args=("x", "y")),
    OpDef("Invert", S.same_as_first, K.elementwise("invert")),
    OpDef("Xlogy", S.broadcast, K.xlogy, args=("x", "y")),
    OpDef("Xlog1py", S.broadcast, K.xlog1py, args=("x", "y")),
    OpDef("Xdivy", S.broadcast, K.xdivy, args=("x", "y")),
    OpDef("ReciprocalGrad", S.same_as_first, K.reciprocal_grad),
    OpDef("SqrtGrad", S.same_as_first, K.sqrt_grad),
    OpDef("RsqrtGrad", S.same_as_first, K.rsqrt_grad),
    OpDef("Select", S.select, K.select),
    OpDef("SelectV2", S.select_v2, K.select_v2),
    OpDef("Cast", S.cast, K.cast, required_attrs=("SrcT", "DstT")),
    # linear algebra and reductions
    OpDef("MatMul", S.matmul, K.matmul, args=("a", "b"), writes_out=True),
    OpDef("BatchMatMulV2", S.batch_matmul, K.batch_matmul, args=("x", "y")),
    OpDef("AddN", S.add_n, K.add_n, args=("inputs",), writes_out=True,
          float_ufunc="add", expression=lambda *xs: "(" + " + ".join(xs) + ")"),  # the ufunc applied pairwise
    OpDef("Sum", S.reduction, K.reducer("sum"), writes_out=True, required_attrs=("keep_dims",)),
    OpDef("Mean", S.reduction, K.reducer("mean"), writes_out=True, required_attrs=("keep_dims",)),
    OpDef("Max", S.reduction, K.reducer("max"), writes_out=True, required_attrs=("keep_dims",)),
    OpDef("Min", S.reduction, K.reducer("min"), writes_out=True, required_attrs=("keep_dims",)),
    OpDef("Prod", S.reduction, K.reducer("prod"), writes_out=True, required_attrs=("keep_dims",)),
    OpDef("Any", S.reduction, K.reducer("any"), writes_out=True, required_attrs=("keep_dims",)),
    OpDef("All", S.reduction, K.reducer("all"), writes_out=True, required_attrs=("keep_dims",)),
    OpDef("EuclideanNorm", S.reduction, K.euclidean_norm, required_attrs=("keep_dims",)),
    OpDef("ArgMax", S.argmax, K.argmax, required_attrs=("output_type",)),
    OpDef("Cumsum", S.same_as_first, K.cumsum, required_attrs=("exclusive", "reverse")),
    OpDef("Cumprod", S.same_as_first, MM.cumprod, required_attrs=("exclusive", "reverse")),
    OpDef("ArgMin", S.argmax, MM.argmin, required_attrs=("output_type",)),
    OpDef("MulNoNan", S.broadcast, MM.mul_no_nan, args=("x", "y")),
    OpDef("NextAfter", S.broadcast, MM.next_after, args=("x1", "x2")),
    OpDef("ListDiff", S.list_diff, MM.list_diff, devices=CPU_ONLY, args=("x", "y")),
    OpDef("Complex", S.to_tout, MM.complex_, args=("real", "imag"), required_attrs=("Tout",)),
    OpDef("ComplexAbs", S.to_tout, MM.complex_abs, required_attrs=("Tout",)),
    OpDef("Conj", S.same_as_first, MM.conj),
    OpDef("Real", S.to_tout, MM.real, required_attrs=("Tout",)),
    OpDef("Imag", S.to_tout, MM.imag, required_attrs=("Tout",)),
    OpDef("OneHot", S.one_hot, K.one_hot, type_input=None),
    # neural networks
    OpDef("LogSoftmax", S.same_as_first, NK.log_softmax),
    OpDef("SoftmaxCrossEntropyWithLogits", NS.softmax_xent, NK.softmax_xent, args=("features", "labels")),
    OpDef("SparseSoftmaxCrossEntropyWithLogits", NS.sparse_softmax_xent, NK.sparse_softmax_xent),
    OpDef("L2Loss", S.scalar_like_first, NK.l2_loss),
    OpDef("BiasAdd", NS.bias_add, NK.bias_add, args=("value", "bias"), writes_out=True),
    OpDef("BiasAddGrad", NS.bias_add_grad, NK.bias_add_grad),
    OpDef("Conv2D", NS.conv2d, NK.conv2d, args=("input", "filter"), required_attrs=("strides", "padding")),
    OpDef("Conv2DBackpropInput", NS.from_first_value, NK.conv2d_backprop_input, required_attrs=("strides", "padding")),
    OpDef("Conv2DBackpropFilter", NS.conv2d_backprop_filter, NK.conv2d_backprop_filter,
          required_attrs=("strides", "padding")),
    OpDef("MaxPool", NS.pool, NK.max_pool, required_attrs=("ksize", "strides", "padding")),
    OpDef("MaxPoolGrad", S.same_as_first, NK.max_pool_grad, required_attrs=("ksize", "strides", "padding")),
    OpDef("AvgPool", NS.pool, NK.avg_pool, required_attrs=("ksize", "strides", "padding")),
    OpDef("AvgPoolGrad", NS.from_first_value, NK.avg_pool_grad, required_attrs=("ksize", "strides", "padding")),
    OpDef("FusedBatchNormV3", NS.fused_batch_norm, NK.fused_batch_norm, required_attrs=("epsilon",)),
    OpDef("FusedBatchNormGradV3", NS.fused_batch_norm_grad, NK.fused_batch_norm_grad, required_attrs=("epsilon",)),
    OpDef("LRN", S.same_as_first, NK.lrn, required_attrs=("depth_radius", "bias", "alpha", "beta")),
    OpDef("LRNGrad", S.same_as_first, NK.lrn_grad, required_attrs=("depth_radius", "bias", "alpha", "beta")),
    OpDef("LeakyRelu", S.same_as_first, AK.leaky_relu),
    OpDef("LeakyReluGrad", S.same_as_first, AK.leaky_relu_grad),
    OpDef("Elu", S.same_as_first, AK.elu),
    OpDef("EluGrad", S.same_as_first, AK.elu_grad),
    OpDef("Selu", S.same_as_first, AK.selu),
    OpDef("SeluGrad", S.same_as_first, AK.selu_grad),
    OpDef("Softplus", S.same_as_first, AK.softplus),
    OpDef("Relu6", S.same_as_first, AK.relu6),
    OpDef("Relu6Grad", S.same_as_first, AK.relu6_grad),
    OpDef("Softsign", S.same_as_first, AK.softsign),
    OpDef("SoftsignGrad", S.same_as_first, AK.softsign_grad),
    OpDef("TopKV2", NS.top_k, NK.top_k, type_input=None),
    OpDef("InTopKV2", NS.in_top_k, NK.in_top_k, type_input=None),
    # shapes and layout
    OpDef("Reshape", S.reshape, K.reshape, returns_view=True),
    OpDef("Transpose", S.transpose, K.transpose, returns_view=True),
    OpDef("ReverseSequence", S.reverse_sequence, K.reverse_sequence, required_attrs=("seq_dim",)),
    OpDef("ReverseV2", S.same_as_first, K.reverse_v2),
    OpDef("ConcatV2", S.concat, K.concat),
    OpDef("Pack", S.stack, K.stack, args=("values",), required_attrs=("axis",)),
    OpDef("Unpack", S.unstack, K.unstack, returns_view=True, required_attrs=("axis", "num")),
    OpDef("ExpandDims", S.expand_dims, K.expand_dims, returns_view=True),
    OpDef("Squeeze", S.squeeze, K.squeeze, returns_view=True, required_attrs=("squeeze_dims",)),
    OpDef("StridedSlice", S.strided_slice, K.strided_slice, returns_view=True),
    OpDef("StridedSliceGrad", S.strided_slice_grad, K.strided_slice_grad),
    OpDef("Slice", S.slice_, K.slice_, returns_view=True),
    OpDef("Split", S.split, K.split, required_attrs=("num_split",)),
    OpDef("SplitV", S.split_v, K.split_v, returns_view=True, required_attrs=("num_split",)),
    OpDef("ConcatOffset", S.concat_offset, K.concat_offset),
    OpDef("GatherV2", S.gather_v2, K.gather_v2),
    OpDef("UnsortedSegmentSum", S.unsorted_segment_sum, K.unsorted_segment_sum),
    OpDef("Unique", S.unique, SK.unique),
    OpDef("SparseToDense", S.sparse_to_dense, SK.sparse_to_dense),
    OpDef("GatherNd", S.gather_nd, SK.gather_nd),
    # a SparseTensor's ops: its (indices, values, dense_shape) in, components out
    OpDef("SparseReorder", SS.reorder, STK.sparse_reorder, type_input=1),
    OpDef("SparseReshape", SS.reshape, STK.sparse_reshape, type_input=None),
    OpDef("SparseAdd", SS.add, STK.sparse_add, type_input=1),
    OpDef("SparseAddGrad", SS.add_grad, STK.sparse_add_grad),
    OpDef("SparseSparseMaximum", SS.sparse_sparse, STK.sparse_sparse_maximum, type_input=1),
    OpDef("SparseSparseMinimum", SS.sparse_sparse, STK.sparse_sparse_minimum, type_input=1),
    OpDef("SparseTensorDenseAdd", SS.dense_add, STK.sparse_tensor_dense_add, type_input=1),
    OpDef("SparseTensorDenseMatMul", SS.dense_matmul, STK.sparse_tensor_dense_mat_mul, type_input=1),
    OpDef("SparseConcat", SS.concat, STK.sparse_concat, type_input=None),
    OpDef("SparseFillEmptyRows", SS.fill_empty_rows, STK.sparse_fill_empty_rows, type_input=1),
    OpDef("SparseFillEmptyRowsGrad", SS.fill_empty_rows_grad, STK.sparse_fill_empty_rows_grad, type_input=1),
    OpDef("SparseReduceSum", SS.reduce, STK.sparse_reduce_sum, type_input=1),
    OpDef("SparseReduceMax", SS.reduce, STK.sparse_reduce_max, type_input=1),
    OpDef("SparseSoftmax", SS.values_like, STK.sparse_softmax, type_input=1),
    OpDef("SparseDenseCwiseMul", SS.values_like, STK.sparse_dense_cwise_mul, type_input=1),
    OpDef("SparseDenseCwiseDiv", SS.values_like, STK.sparse_dense_cwise_div, type_input=1),
    OpDef("SparseDenseCwiseAdd", SS.values_like, STK.sparse_dense_cwise_add, type_input=1),
    OpDef("SparseSegmentSum", SS.segment_reduce, STK.sparse_segment_sum),
    OpDef("SparseSegmentMean", SS.segment_reduce, STK.sparse_segment_mean),
    OpDef("SparseSegmentSqrtN", SS.segment_reduce, STK.sparse_segment_sqrt_n),
    OpDef("SparseSegmentSumGrad", SS.segment_reduce_grad, STK.sparse_segment_sum_grad),
    OpDef("SparseSegmentMeanGrad", SS.segment_reduce_grad, STK.sparse_segment_mean_grad),
    OpDef("SparseSegmentSqrtNGrad", SS.segment_reduce_grad, STK.sparse_segment_sqrt_n_grad),
    OpDef("SparseSegmentSumGradV2", SS.segment_reduce_grad_v2, STK.sparse_segment_sum_grad_v2),
    OpDef("SparseSegmentMeanGradV2", SS.segment_reduce_grad_v2, STK.sparse_segment_mean_grad_v2),
    OpDef("SparseSegmentSqrtNGradV2", SS.segment_reduce_grad_v2, STK.sparse_segment_sqrt_n_grad_v2),
    OpDef("SegmentSum", SS.segment_reduce, STK.segment_sum),
    OpDef("SegmentMax", SS.segment_reduce, SGK.segment_max),
    OpDef("SegmentMin", SS.segment_reduce, SGK.segment_min),
    OpDef("SegmentProd", SS.segment_reduce, SGK.segment_prod),
    OpDef("SegmentMean", SS.segment_reduce, SGK.segment_mean),
    OpDef("RandomShuffle", S.same_as_first, PX.random_shuffle, stateful=True),
    # sparse writes: only the rows their indices name (colocated with the variable, as every write)
    OpDef("ScatterUpdate", S.scatter_update, SK.scatter_update, ref_inputs=(0,), stateful=True),
    OpDef("ScatterAdd", S.scatter_update, SK.scatter_add, ref_inputs=(0,), stateful=True),
    OpDef("ScatterSub", S.scatter_update, SK.scatter_sub, ref_inputs=(0,), stateful=True),
    # sparse optimizer updates: the dense kernel on the listed rows (its gradient's position given)
    OpDef("SparseApplyMomentum", S.ref_of_first, SK.sparse(K.apply_momentum, 3), ref_inputs=(0, 1), stateful=True),
    OpDef("SparseApplyAdagrad", S.ref_of_first, SK.sparse(OK.apply_adagrad, 3), ref_inputs=(0, 1), stateful=True),
    OpDef("SparseApplyRMSProp", S.ref_of_first, SK.sparse(OK.apply_rms_prop, 7), ref_inputs=(0, 1, 2),
          stateful=True),
    OpDef("SparseApplyCenteredRMSProp", S.ref_of_first, SK.sparse(OK.apply_centered_rms_prop, 8),
          ref_inputs=(0, 1, 2, 3), stateful=True),
    OpDef("SparseApplyAdadelta", S.ref_of_first, SK.sparse(OK.apply_adadelta, 6), ref_inputs=(0, 1, 2),
          stateful=True),
    OpDef("SparseApplyFtrl", S.ref_of_first, SK.sparse(OK.apply_ftrl, 3), ref_inputs=(0, 1, 2), stateful=True),
    OpDef("SparseApplyFtrlV2", S.ref_of_first, SK.sparse(OK.apply_ftrl_v2, 3), ref_inputs=(0, 1, 2),
          stateful=True),
    OpDef("SparseApplyProximalAdagrad", S.ref_of_first, SK.sparse(OK.apply_proximal_adagrad, 5),
          ref_inputs=(0, 1), stateful=True),
    OpDef("SparseApplyProximalGradientDescent", S.ref_of_first, SK.sparse(OK.apply_proximal_gradient_descent, 4),
          ref_inputs=(0,), stateful=True),
    OpDef("ScatterNd", S.scatter_nd, K.scatter_nd, type_input=1),
    OpDef("Where", S.where, K.where),
    OpDef("Range", S.range_, K.range_, required_attrs=("Tidx",)),
    OpDef("Tile", S.tile, K.tile),
    OpDef("Pad", S.pad, K.pad),
    OpDef("PadV2", S.pad, K.pad_v2),
    OpDef("MirrorPad", S.pad, K.mirror_pad, required_attrs=("mode",)),
    OpDef("MirrorPadGrad", S.mirror_pad_grad, K.mirror_pad_grad, required_attrs=("mode",)),
    OpDef("InvertPermutation", S.same_as_first, K.invert_permutation),
    OpDef("BroadcastGradientArgs", S.broadcast_gradient_args, K.broadcast_gradient_args),
    OpDef("DynamicStitch", S.dynamic_stitch, K.dynamic_stitch, required_attrs=("N",)),
    OpDef("ParallelDynamicStitch", S.dynamic_stitch, K.dynamic_stitch),
    OpDef("DynamicPartition", S.dynamic_partition, K.dynamic_partition),
    OpDef("BroadcastTo", S.broadcast_to, K.broadcast_to, returns_view=True),
    OpDef("ZerosLike", S.same_as_first, K.zeros_like),
    OpDef("OnesLike", S.same_as_first, K.ones_like),
    OpDef("Shape", S.shape_of, K.shape, required_attrs=("out_type",)),
    OpDef("IdentityN", S.identity_n, K.identity_n, returns_view=True, type_input=None),
    OpDef("ShapeN", S.shape_n, K.shape_n, required_attrs=("out_type",)),
    OpDef("Size", S.size_of, K.size, required_attrs=("out_type",)),
    OpDef("Rank", S.scalar_int, K.rank),
    # control
    OpDef("NoOp", S.none, K.no_op),
    # CPU-only on purpose, as in TensorFlow: strings live in host memory
    OpDef("AsString", S.string_scalar_like, K.as_string, devices=CPU_ONLY),
    OpDef("StringJoin", S.string_join, K.string_join, devices=CPU_ONLY, required_attrs=("separator",)),
    OpDef("DatasetSlice", S.from_attrs, K.dataset_slice, devices=CPU_ONLY, ref_inputs=(0,), stateful=True,
          required_attrs=("data", "batch", "tower", "towers")),
    OpDef("ReadFile", S.read_file, K.read_file, devices=CPU_ONLY, type_input=None),
    OpDef("WriteFile", S.no_outputs_of_scalars, K.write_file, devices=CPU_ONLY, stateful=True, type_input=None),
    OpDef("ScalarSummary", S.string_scalar, K.scalar_summary, devices=CPU_ONLY, stateful=True, type_input=1),
    OpDef("HistogramSummary", S.string_scalar, K.histogram_summary, devices=CPU_ONLY, stateful=True),
    OpDef("MergeSummary", S.string_scalar, K.merge_summary, devices=CPU_ONLY, stateful=True),
    OpDef("Assert", S.none, K.assert_, stateful=True, type_input=None),
    # control flow (tf.cond, tf.while_loop): the executor gives DEAD and loop frames their meaning
    OpDef("Switch", S.switch, K.switch),
    OpDef("RefSwitch", S.ref_switch, K.switch, ref_inputs=(0,)),
    OpDef("Merge", S.merge, K.merge, args=("inputs",), reads_dead=True),
    OpDef("Enter", S.enter, K.forward, returns_view=True),
    OpDef("RefEnter", S.ref_enter, K.forward, ref_inputs=(0,), returns_view=True),
    OpDef("Exit", S.same_as_first, K.forward, returns_view=True),
    OpDef("Print", S.same_as_first, LK.print_, devices=CPU_ONLY, stateful=True, returns_view=True),
    OpDef("RefIdentity", S.ref_of_first, K.forward, ref_inputs=(0,), returns_view=True),
    # RefSelect hands on one of its N refs: each is taken by reference; TF colocates it with the first
    OpDef("RefSelect", S.ref_select, K.ref_select, ref_inputs=tuple(range(1, 64)), colocated_refs=(1,),
          returns_view=True, type_input=1),
    OpDef("NextIteration", S.same_as_first, K.forward, returns_view=True),
    OpDef("LoopCond", S.scalar_bool, K.forward, returns_view=True),
    OpDef("ControlTrigger", S.none, DK.control_trigger, live_controls=True),
    # stacks: a while loop pushes what its gradient loop pops (data_flow_kernels.py)
    OpDef("StackV2", DS.stack, DK.stack, stateful=True, type_input=None),
    OpDef("StackPushV2", DS.stack_push, DK.stack_push, stateful=True, type_input=1),
    OpDef("StackPopV2", DS.stack_pop, DK.stack_pop, stateful=True, type_input=None),
    # TensorArrays: a slot per time step of tf.nn.dynamic_rnn (data_flow_kernels.py)
    OpDef("TensorArrayV3", DS.tensor_array, DK.tensor_array, stateful=True, type_input=None),
    OpDef("TensorArrayWriteV3", DS.flow, DK.tensor_array_write, stateful=True, type_input=2),
    OpDef("TensorArrayReadV3", DS.tensor_array_read, DK.tensor_array_read, stateful=True, type_input=None),
    OpDef("TensorArrayScatterV3", DS.flow, DK.tensor_array_scatter, stateful=True, type_input=2),
    OpDef("TensorArrayGatherV3", DS.tensor_array_gather, DK.tensor_array_gather, stateful=True, type_input=None),
    OpDef("TensorArrayGradV3", DS.tensor_array_grad, DK.tensor_array_grad, stateful=True, type_input=None),
    OpDef("TensorArraySizeV3", DS.tensor_array_size, DK.tensor_array_size, stateful=True, type_input=None),
    # queues and gradient accumulators: resources on a device, shared through their handle (CPU kernels, as TF)
    OpDef("FIFOQueueV2", DS.queue_handle, Q.fifo_queue_v2, CPU_ONLY, stateful=True, type_input=None),
    OpDef("RandomShuffleQueueV2", DS.queue_handle, RQ.random_shuffle_queue_v2, CPU_ONLY, stateful=True,
          type_input=None),
    OpDef("QueueEnqueueV2", S.none, Q.queue_enqueue_v2, CPU_ONLY, stateful=True, type_input=None, blocking=True),
    OpDef("QueueEnqueueManyV2", S.none, Q.queue_enqueue_many_v2, CPU_ONLY, stateful=True, type_input=None,
          blocking=True),
    OpDef("QueueDequeueV2", DS.components, Q.queue_dequeue_v2, CPU_ONLY, stateful=True, type_input=None, blocking=True),
    OpDef("QueueDequeueManyV2", DS.components, Q.queue_dequeue_many_v2, CPU_ONLY, stateful=True, type_input=None,
          blocking=True),
    OpDef("QueueDequeueUpToV2", DS.components, Q.queue_dequeue_up_to_v2, CPU_ONLY, stateful=True, type_input=None,
          blocking=True),
    OpDef("QueueCloseV2", S.none, Q.queue_close_v2, CPU_ONLY, stateful=True, type_input=None),
    OpDef("QueueSizeV2", S.scalar_int, Q.queue_size_v2, CPU_ONLY, stateful=True, type_input=None),
    OpDef("QueueIsClosedV2", S.scalar_bool, Q.queue_is_closed_v2, CPU_ONLY, stateful=True, type_input=None),
    OpDef("ResourceConditionalAccumulator", DS.accumulator_handle, CA.resource_conditional_accumulator, CPU_ONLY,
          stateful=True, type_input=None),
    OpDef("ResourceAccumulatorApplyGradient", S.none, CA.resource_accumulator_apply_gradient, CPU_ONLY,
          stateful=True, type_input=None),
    OpDef("ResourceAccumulatorTakeGradient", DS.of_dtype, CA.resource_accumulator_take_gradient, CPU_ONLY,
          stateful=True, type_input=None, blocking=True),
    OpDef("ResourceAccumulatorSetGlobalStep", S.none, CA.resource_accumulator_set_global_step, CPU_ONLY,
          stateful=True, type_input=None),
    OpDef("ResourceAccumulatorNumAccumulated", S.scalar_int, CA.resource_accumulator_num_accumulated, CPU_ONLY,
          stateful=True, type_input=None),
    # mutable hash tables: resources mapping keys to values (lookup_table.py; CPU kernels, as TF)
    OpDef("MutableHashTableV2", LT.handle_shape, LT.mutable_hash_table_v2, CPU_ONLY, stateful=True, type_input=None),
    OpDef("LookupTableInsertV2", S.none, LT.lookup_table_insert_v2, CPU_ONLY, stateful=True, type_input=None),
    OpDef("LookupTableImportV2", S.none, LT.lookup_table_import_v2, CPU_ONLY, stateful=True, type_input=None),
    OpDef("LookupTableRemoveV2", S.none, LT.lookup_table_remove_v2, CPU_ONLY, stateful=True, type_input=None),
    OpDef("LookupTableFindV2", LT.find_shape, LT.lookup_table_find_v2, CPU_ONLY, stateful=True, type_input=None),
    OpDef("LookupTableExportV2", LT.export_shape, LT.lookup_table_export_v2, CPU_ONLY, stateful=True,
          type_input=None),
    OpDef("LookupTableSizeV2", LT.size_shape, LT.lookup_table_size_v2, CPU_ONLY, stateful=True, type_input=None),
    # TF1's queue-based input pipeline: TFRecord readers, tf.train.Example parsing (input_kernels.py)
    OpDef("TFRecordReaderV2", IK.reader_handle, IK.tf_record_reader_v2, CPU_ONLY, stateful=True, type_input=None),
    OpDef("ReaderReadV2", IK.key_value, IK.reader_read_v2, CPU_ONLY, stateful=True, type_input=None, blocking=True),
    OpDef("MatchingFiles", IK.matching_files_shape, IK.matching_files, CPU_ONLY, type_input=None, stateful=True),
    OpDef("ParseExampleV2", IK.parse_example_shape, IK.parse_example_v2, CPU_ONLY, type_input=None),
    OpDef("DecodeRaw", IK.decode_raw_shape, IK.decode_raw, CPU_ONLY, type_input=None),
    # candidate sampling (sampled losses): CPU kernels only, as TF; the samplers draw from the op's generator
    OpDef("LogUniformCandidateSampler", NS.candidate_sampler, CS.log_uniform_candidate_sampler, CPU_ONLY,
          stateful=True, type_input=None),
    OpDef("UniformCandidateSampler", NS.candidate_sampler, CS.uniform_candidate_sampler, CPU_ONLY, stateful=True,
          type_input=None),
    OpDef("ComputeAccidentalHits", NS.compute_accidental_hits, CS.compute_accidental_hits, CPU_ONLY,
          type_input=None),
    # a Python function, run in the process of the task the op is placed on (TF has only CPU kernels)
    OpDef("PyFunc", S.py_func, K.py_func, devices=CPU_ONLY, stateful=True),
    OpDef("PyFuncStateless", S.py_func, K.py_func, devices=CPU_ONLY),
)


OPS = {name: replace(d, kernel=allocation.guarded(name, d.kernel)) if name in allocation.OUTPUTS or name == "Const"
       else d for name, d in OPS.items()}  # sizes checked before numpy allocates (allocation.py)


def lookup(op_type):
    """The OpDef of ``op_type``; a KeyError names the op type."""
    opdef = OPS.get(op_type) or tf_ops.synthesized(op_type)  # TF's other ops: placed and modelled, never run
    if opdef is None:
        raise KeyError(f"devlab has no op '{op_type}' in its op table")
    return opdef


# -- nodes of the table's types that came from a file in TensorFlow's form -------------------------
_OTHER_FORM = weakref.WeakSet()


def mark_other_form(op):
    """Records that devlab's kernel for ``op.type`` cannot run this node: a graph file gave it
    TensorFlow's inputs and attrs (TF's ``Sum`` takes its axes as an input, devlab's as an attr)."""
    _OTHER_FORM.add(op)


@functools.lru_cache(maxsize=None)
def _other_form(op_type):
    opdef = OPS[op_type]
    why = (f"this node has TensorFlow's form of {op_type} (its inputs and attrs), and devlab's {op_type} kernel "
           "takes devlab's form")
    return OpDef(op_type, opdef.shape, tf_ops.no_kernel(op_type, why), opdef.devices, opdef.ref_inputs,
                 opdef.stateful, opdef.args, opdef.type_input, runs=False)


def opdef_of(op):
    """The OpDef a plan runs ``op`` with: its type's, or one whose kernel raises for a node marked
    ``mark_other_form``."""
    return _other_form(op.type) if op in _OTHER_FORM else lookup(op.type)


def has_kernel(op):
    """Whether devlab can run ``op`` for real."""
    return op not in _OTHER_FORM and op.type in OPS
