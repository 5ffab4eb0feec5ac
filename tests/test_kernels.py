"""Every kernel of the op table against numpy, on each device kind (CPU, simulated GPU, and a
real GPU where CuPy finds one); the cost model's arithmetic."""
import re

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import devlab as tf
from devlab.devices.cost_model import CostModel, op_flops
from devlab.ops.build import apply_op, apply_op_output
from devlab.ops.table import OPS

import numpy_reference as ref

R = np.random.default_rng(0)
A = R.uniform(0.5, 2.0, (2, 3)).astype(np.float32)
B = R.uniform(0.5, 2.0, (2, 3)).astype(np.float32)
M = R.uniform(-1, 1, (3, 4)).astype(np.float32)
IMG = R.uniform(-1, 1, (2, 5, 6, 3)).astype(np.float32)
W = R.uniform(-1, 1, (3, 2, 3, 4)).astype(np.float32)
DY = R.uniform(-1, 1, (2, 3, 3, 4)).astype(np.float32)  # conv2d(IMG, W) with stride 2, SAME
I = np.arange(24, dtype=np.int32).reshape(2, 3, 4)
CONV = {"strides": [1, 2, 2, 1], "padding": "SAME", "dilations": [1, 1, 1, 1], "data_format": "NHWC"}
POOL = {"ksize": [1, 3, 3, 1], "strides": [1, 2, 2, 1], "padding": "SAME", "data_format": "NHWC"}
S = np.array([[-7.0, -0.5, 0.0], [0.25, 3.0, 8.0]], np.float32)  # both sides of 0 and of relu6's 6
SELU = (1.0507009873554804934193349852946, 1.6732632423543772848170429916717)
LRN = {"depth_radius": 1, "bias": 1.0, "alpha": 0.3, "beta": 0.75}


def unknown(x):
    """``x`` with a static shape of unknown dims, so ops on it are not folded while building."""
    return tf.placeholder_with_default(x, [None] * np.ndim(x))


def op(op_type, inputs, attrs=None, output=0):
    return apply_op(op_type, [tf.convert_to_tensor(x) for x in inputs], attrs).outputs[output]


def softmax(x):
    e = np.exp(x - x.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)


# op type -> (build from tf, numpy reference)
CASES = {
    "Const": (lambda: tf.constant(A), lambda: A),
    "Fill": (lambda: tf.fill([2, 2], 3.0), lambda: np.full((2, 2), 3.0)),
    "Identity": (lambda: tf.identity(A), lambda: A),
    "CheckNumerics": (lambda: tf.check_numerics(A, "A"), lambda: A),
    "ParallelConcat": (lambda: tf.parallel_stack([A, B]), lambda: np.stack([A, B])),
    "StopGradient": (lambda: tf.stop_gradient(A), lambda: A),
    "PreventGradient": (lambda: apply_op_output("PreventGradient", [tf.constant(A)], {"message": "m"}),
                        lambda: A),
    "PlaceholderWithDefault": (lambda: tf.placeholder_with_default(A, [2, 3]), lambda: A),
    "AddV2": (lambda: tf.add(A, B), lambda: A + B),
    "Sub": (lambda: tf.subtract(A, B), lambda: A - B),
    "Mul": (lambda: tf.multiply(A, B), lambda: A * B),
    "RealDiv": (lambda: tf.divide(A, B), lambda: A / B),
    "Maximum": (lambda: tf.maximum(A, B), lambda: np.maximum(A, B)),
    "Minimum": (lambda: tf.minimum(A, B), lambda: np.minimum(A, B)),
    "Pow": (lambda: tf.pow(A, B), lambda: A ** B),
    "Neg": (lambda: tf.negative(A), lambda: -A),
    "Abs": (lambda: tf.abs(-A), lambda: A),
    "Sign": (lambda: tf.sign(A - 1.0), lambda: np.sign(A - 1.0)),
    "Sin": (lambda: tf.sin(A), lambda: np.sin(A)),
    "Cos": (lambda: tf.cos(A), lambda: np.cos(A)),
    "Exp": (lambda: tf.exp(A), lambda: np.exp(A)),
    "Log": (lambda: tf.log(A), lambda: np.log(A)),
    "Log1p": (lambda: tf.log1p(A), lambda: np.log1p(A)),
    "Square": (lambda: tf.square(A), lambda: A * A),
    "Sqrt": (lambda: tf.sqrt(A), lambda: np.sqrt(A)),
    "Rsqrt": (lambda: tf.rsqrt(A), lambda: 1 / np.sqrt(A)),
    "Reciprocal": (lambda: tf.reciprocal(A), lambda: 1 / A),
    "Tanh": (lambda: tf.tanh(A), lambda: np.tanh(A)),
    "Ceil": (lambda: tf.ceil(A), lambda: np.ceil(A)),
    "IsFinite": (lambda: op("IsFinite", [np.array([1.0, np.inf, -np.inf, np.nan], np.float32)]),
                 lambda: [True, False, False, False]),
    "Relu": (lambda: tf.nn.relu(A - 1.0), lambda: np.maximum(A - 1.0, 0)),
    "Sigmoid": (lambda: tf.sigmoid(A), lambda: 1 / (1 + np.exp(-A))),
    "Softmax": (lambda: tf.nn.softmax(A), lambda: softmax(A)),
    "ReluGrad": (lambda: apply_op_output("ReluGrad", [tf.constant(B), tf.constant(A - 1.0)]),
                 lambda: B * (A - 1.0 > 0)),
    "SigmoidGrad": (lambda: apply_op_output("SigmoidGrad", [tf.constant(A), tf.constant(B)]), lambda: B * A * (1 - A)),
    "TanhGrad": (lambda: apply_op_output("TanhGrad", [tf.constant(A), tf.constant(B)]), lambda: B * (1 - A * A)),
    "Equal": (lambda: tf.equal(A, A), lambda: np.ones_like(A, bool)),
    "Greater": (lambda: tf.greater(A, B), lambda: A > B),
    "Less": (lambda: tf.less(A, B), lambda: A < B),
    "Cast": (lambda: tf.cast(A, tf.int32), lambda: A.astype(np.int32)),
    "MatMul": (lambda: tf.matmul(A, M), lambda: A @ M),
    "BatchMatMulV2": (lambda: tf.matmul(np.stack([A, B]), np.stack([A, B]), transpose_b=True),
                      lambda: np.stack([A @ A.T, B @ B.T])),
    "AddN": (lambda: tf.add_n([A, B, A]), lambda: A + B + A),
    "Sum": (lambda: tf.reduce_sum(A, 1), lambda: A.sum(1)),
    "Mean": (lambda: tf.reduce_mean(A, 0, keepdims=True), lambda: A.mean(0, keepdims=True)),
    "Max": (lambda: tf.reduce_max(A), lambda: A.max()),
    "Min": (lambda: tf.reduce_min(A, [0, 1]), lambda: A.min()),
    "Prod": (lambda: tf.reduce_prod(A, 1), lambda: A.prod(1)),
    "ArgMax": (lambda: tf.argmax(A, 1), lambda: A.argmax(1)),
    "Cumsum": (lambda: tf.cumsum(A, 1, exclusive=True, reverse=True),
               lambda: np.flip(np.cumsum(np.flip(A, 1), 1), 1) - A),  # the sums after each element
    "SoftmaxCrossEntropyWithLogits": (
        lambda: tf.nn.softmax_cross_entropy_with_logits_v2(labels=softmax(B), logits=A),
        lambda: -(softmax(B) * np.log(softmax(A))).sum(-1)),
    "OneHot": (lambda: tf.one_hot([0, 2], 3), lambda: np.eye(3)[[0, 2]]),
    "Reshape": (lambda: tf.reshape(A, [3, -1]), lambda: A.reshape(3, 2)),
    "Transpose": (lambda: tf.transpose(A), lambda: A.T),
    "ReverseV2": (lambda: tf.reverse(A, [1]), lambda: A[:, ::-1]),
    "ReverseSequence": (lambda: tf.reverse_sequence(A, [2, 3], seq_axis=1),
                        lambda: np.stack([A[0, [1, 0, 2]], A[1, ::-1]])),
    "ConcatV2": (lambda: tf.concat([A, B], 1), lambda: np.concatenate([A, B], 1)),
    "Pack": (lambda: tf.stack([A, B], 1), lambda: np.stack([A, B], 1)),
    "ExpandDims": (lambda: tf.expand_dims(A, 1), lambda: A[:, None]),
    "ZerosLike": (lambda: tf.zeros_like(unknown(A)), lambda: np.zeros_like(A)),
    "OnesLike": (lambda: op("OnesLike", [A]), lambda: np.ones_like(A)),
    "Shape": (lambda: tf.shape(unknown(A)), lambda: np.array([2, 3])),
    "ShapeN": (lambda: tf.shape_n([unknown(A), unknown(M)])[1], lambda: np.array([3, 4])),
    "Size": (lambda: tf.size(unknown(A)), lambda: np.array(6)),
    "Rank": (lambda: tf.rank(tf.placeholder_with_default(A, None)), lambda: np.array(2)),
    # comparisons, logic and integer arithmetic
    "GreaterEqual": (lambda: tf.constant(A) >= B, lambda: A >= B),
    "LessEqual": (lambda: tf.constant(A) <= B, lambda: A <= B),
    "NotEqual": (lambda: tf.not_equal(A, B), lambda: A != B),
    "LogicalAnd": (lambda: tf.logical_and(A > 1, B > 1), lambda: (A > 1) & (B > 1)),
    "LogicalOr": (lambda: (tf.constant(A) > 1) | (tf.constant(B) > 1), lambda: (A > 1) | (B > 1)),
    "LogicalNot": (lambda: ~(tf.constant(A) > 1), lambda: ~(A > 1)),
    "FloorDiv": (lambda: tf.constant(I) // 5, lambda: I // 5),
    "FloorMod": (lambda: tf.constant(I - 12) % 5, lambda: (I - 12) % 5),
    "Floor": (lambda: op("Floor", [A * 3]), lambda: np.floor(A * 3)),
    "SquaredDifference": (lambda: tf.squared_difference(A, B), lambda: (A - B) ** 2),
    "DivNoNan": (lambda: tf.div_no_nan(A, B * (A > 1)), lambda: np.where(A > 1, A / B, 0)),
    "ReciprocalGrad": (lambda: op("ReciprocalGrad", [A, B]), lambda: -B * A * A),
    "SqrtGrad": (lambda: op("SqrtGrad", [A, B]), lambda: B * 0.5 / A),
    "RsqrtGrad": (lambda: op("RsqrtGrad", [A, B]), lambda: B * -0.5 * A ** 3),
    "Select": (lambda: tf.where(A > B, A, B), lambda: np.where(A > B, A, B)),
    "SelectV2": (lambda: tf.where_v2(A > 1, A, 0.0), lambda: np.where(A > 1, A, 0)),
    "Any": (lambda: tf.reduce_any(A > 1.5, 1), lambda: (A > 1.5).any(1)),
    "All": (lambda: tf.reduce_all(A > 0.6), lambda: (A > 0.6).all()),
    # indexing
    "StridedSlice": (lambda: tf.constant(I)[1, ::-2, None, 1:3], lambda: I[1, ::-2, None, 1:3]),
    "StridedSliceGrad": (lambda: op("StridedSliceGrad", [[2, 3, 4], [1, 0, 1], [2, 3, 3], [1, 2, 1], I[:1, ::2, 1:3]],
                                    {"shrink_axis_mask": 0}),
                         lambda: np.pad(I[:1, ::2, 1:3], [(1, 0), (0, 0), (1, 1)])[:, [0, 0, 1]] * [[[1], [0], [1]]]),
    "Slice": (lambda: tf.slice(I, [1, 1, 0], [1, -1, 2]), lambda: I[1:2, 1:, 0:2]),
    "Split": (lambda: tf.split(unknown(I * 1.5), 2, axis=2)[1], lambda: I[:, :, 2:] * 1.5),
    "SplitV": (lambda: tf.split(I, [1, -1], axis=1)[1], lambda: I[:, 1:]),
    "ConcatOffset": (lambda: op("ConcatOffset", [1, [2, 3], [2, 5]], output=1), lambda: np.array([0, 3])),
    "Unpack": (lambda: tf.unstack(I, axis=1)[2], lambda: I[:, 2]),
    "Squeeze": (lambda: tf.squeeze(I[:, :1, :, None], [1]), lambda: I[:, 0, :, None]),
    "GatherV2": (lambda: tf.gather(I, [2, 0, 2], axis=1), lambda: I[:, [2, 0, 2]]),
    "GatherNd": (lambda: tf.gather_nd(I, [[1, 2], [0, 0]]), lambda: I[[1, 0], [2, 0]]),
    "SparseToDense": (lambda: tf.sparse_to_dense([[0, 1], [1, 3]], [2, 4], A[0, :2], default_value=A[1, 0]),
                      lambda: np.array([[A[1, 0], A[0, 0], A[1, 0], A[1, 0]], [A[1, 0]] * 3 + [A[0, 1]]])),
    "UnsortedSegmentSum": (lambda: tf.unsorted_segment_sum(A, [1, 1], 3),
                           lambda: np.stack([0 * A[0], A.sum(0), 0 * A[0]])),
    "Where": (lambda: tf.where(A > 1), lambda: np.argwhere(A > 1)),
    "Range": (lambda: tf.range(1.0, 2.0, 0.25), lambda: np.arange(1.0, 2.0, 0.25)),
    "Tile": (lambda: tf.tile(A, [2, 3]), lambda: np.tile(A, [2, 3])),
    "Pad": (lambda: tf.pad(A, [[1, 0], [2, 1]]), lambda: np.pad(A, [(1, 0), (2, 1)])),
    "PadV2": (lambda: tf.pad(A, [[1, 0], [2, 1]], constant_values=5.0),
              lambda: np.pad(A, [(1, 0), (2, 1)], constant_values=5)),
    "MirrorPad": (lambda: tf.pad(A, [[1, 1], [2, 0]], "REFLECT"), lambda: np.pad(A, [(1, 1), (2, 0)], "reflect")),
    "MirrorPadGrad": (lambda: op("MirrorPadGrad", [np.ones((4, 5), np.float32), [[1, 1], [2, 0]]], {"mode": "REFLECT"}),
                      lambda: [[2, 4, 4], [2, 4, 4]]),
    "InvertPermutation": (lambda: tf.invert_permutation([2, 0, 1]), lambda: np.array([1, 2, 0])),
    "BroadcastGradientArgs": (lambda: op("BroadcastGradientArgs", [unknown(np.int32([2, 1, 3])), [3]], output=1),
                              lambda: np.array([0, 1])),
    "DynamicStitch": (lambda: op("DynamicStitch", [[0, 2], [1], [5, 6], [7]], {"N": 2}), lambda: np.array([5, 7, 6])),
    "ParallelDynamicStitch": (lambda: op("ParallelDynamicStitch", [[2, 0], [1], A[0][:2], A[0][2:]], {"N": 2}),
                              lambda: A[0][[1, 2, 0]]),
    "DynamicPartition": (lambda: tf.dynamic_partition(A, [1, 0], 2)[1], lambda: A[:1]),
    "BroadcastTo": (lambda: op("BroadcastTo", [A[0], [2, 3]]), lambda: np.broadcast_to(A[0], (2, 3))),
    "BroadcastArgs": (lambda: tf.broadcast_dynamic_shape(unknown([2, 1, 3]), [4, 1]), lambda: [2, 4, 3]),
    "EnsureShape": (lambda: tf.ensure_shape(unknown(A), (2, None)), lambda: A),
    # matrices (TF's eye and orthogonal initializers build them)
    "MatrixDiagV3": (lambda: tf.matrix_diag(unknown(A)), lambda: np.stack([np.diag(r) for r in A])),
    "MatrixSetDiagV3": (lambda: tf.matrix_set_diag(unknown(np.zeros((2, 3))), unknown(A[0][:2])),
                        lambda: np.diag(A[0][:2], 0)[:, :2].dot(np.eye(2, 3))),
    "DiagPart": (lambda: tf.diag_part(unknown(np.outer(A[0], A[0]))), lambda: A[0] * A[0]),
    "Qr": (lambda: tf.qr(unknown(A.T))[1], lambda: np.linalg.qr(A.T)[1]),
    "ComplexAbs": (lambda: tf.abs(unknown(np.array([3 + 4j, -1j, 2.0], np.complex64))), lambda: [5.0, 1.0, 2.0]),
    # neural networks
    "LogSoftmax": (lambda: tf.nn.log_softmax(A), lambda: ref.log_softmax(A)),
    "SparseSoftmaxCrossEntropyWithLogits": (
        lambda: tf.nn.sparse_softmax_cross_entropy_with_logits(labels=[2, 0], logits=A),
        lambda: -ref.log_softmax(A)[[0, 1], [2, 0]]),
    "L2Loss": (lambda: tf.nn.l2_loss(A), lambda: (A * A).sum() / 2),
    "BiasAdd": (lambda: tf.nn.bias_add(IMG, [1.0, 2.0, 3.0]), lambda: IMG + [1, 2, 3]),
    "BiasAddGrad": (lambda: op("BiasAddGrad", [IMG], {"data_format": "NHWC"}), lambda: IMG.sum((0, 1, 2))),
    "Conv2D": (lambda: tf.nn.conv2d(IMG, W, [1, 2, 2, 1], "SAME"), lambda: ref.conv2d(IMG, W, 2, "SAME")),
    "Conv2DBackpropInput": (lambda: op("Conv2DBackpropInput", [list(IMG.shape), W, DY], CONV),
                            lambda: ref.conv2d_backprop_input(IMG.shape, W, DY, 2, "SAME")),
    "Conv2DBackpropFilter": (lambda: op("Conv2DBackpropFilter", [IMG, list(W.shape), DY], CONV),
                             lambda: ref.conv2d_backprop_filter(IMG, W.shape, DY, 2, "SAME")),
    "MaxPool": (lambda: tf.nn.max_pool(IMG, [1, 3, 3, 1], [1, 2, 2, 1], "SAME"),
                lambda: ref.pool(IMG, 3, 2, "SAME", "max")),
    "MaxPoolGrad": (lambda: op("MaxPoolGrad", [IMG, ref.pool(IMG, 3, 2, "SAME", "max").astype(np.float32),
                                               DY[..., :3]], POOL),
                    lambda: ref.max_pool_grad(IMG, DY[..., :3], 3, 2, "SAME")),
    "AvgPool": (lambda: tf.nn.avg_pool(IMG, [1, 3, 3, 1], [1, 2, 2, 1], "SAME"),
                lambda: ref.pool(IMG, 3, 2, "SAME", "avg")),
    "AvgPoolGrad": (lambda: op("AvgPoolGrad", [list(IMG.shape), DY[..., :3]], POOL),
                    lambda: ref.avg_pool_grad(IMG.shape, DY[..., :3], 3, 2, "SAME")),
    "LRN": (lambda: tf.nn.lrn(IMG, 1, 1.0, 0.3, 0.75), lambda: ref.lrn(IMG, 1, 1.0, 0.3, 0.75)),
    "FusedBatchNormV3": (lambda: tf.nn.fused_batch_norm(IMG, [1.0, 2.0, 3.0], [0.0, 1.0, -1.0])[0],
                         lambda: (IMG - IMG.mean((0, 1, 2))) / np.sqrt(IMG.var((0, 1, 2)) + 1e-3) * [1, 2, 3]
                         + [0, 1, -1]),
    "FusedBatchNormGradV3": (lambda: op("FusedBatchNormGradV3", [np.ones_like(IMG), IMG, [1.0, 2.0, 3.0],
                                                                 [0.0, 0.0, 0.0], [1.0, 1.0, 1.0],
                                                                 np.zeros(0, np.float32)],
                                        {"epsilon": 0.0, "is_training": False}),
                             lambda: np.ones_like(IMG) * [1, 2, 3]),
    "LeakyRelu": (lambda: tf.nn.leaky_relu(S, 0.1), lambda: np.where(S > 0, S, 0.1 * S)),
    "LeakyReluGrad": (lambda: op("LeakyReluGrad", [B, S], {"alpha": 0.1}), lambda: np.where(S > 0, B, 0.1 * B)),
    "Elu": (lambda: tf.nn.elu(S), lambda: np.where(S < 0, np.exp(S) - 1, S)),
    "EluGrad": (lambda: op("EluGrad", [B, np.minimum(S, 0.5)]),
                lambda: np.where(S < 0, B * (np.minimum(S, 0.5) + 1), B)),
    "Selu": (lambda: tf.nn.selu(S), lambda: SELU[0] * np.where(S < 0, SELU[1] * (np.exp(S) - 1), S)),
    "SeluGrad": (lambda: op("SeluGrad", [B, S]), lambda: np.where(S < 0, B * (S + SELU[0] * SELU[1]), B * SELU[0])),
    "Softplus": (lambda: tf.nn.softplus(S), lambda: np.log1p(np.exp(S))),
    "Relu6": (lambda: tf.nn.relu6(S), lambda: np.clip(S, 0, 6)),
    "Softsign": (lambda: tf.nn.softsign(S), lambda: S / (1 + np.abs(S))),
    "SoftsignGrad": (lambda: op("SoftsignGrad", [B, S]), lambda: B / (1 + np.abs(S)) ** 2),
    "Relu6Grad": (lambda: op("Relu6Grad", [B, S]), lambda: B * ((S > 0) & (S < 6))),
    "TopKV2": (lambda: tf.nn.top_k(M, 2).values, lambda: -np.sort(-M, axis=1)[:, :2]),
    "ScatterNd": (lambda: op("ScatterNd", [np.array([[1], [3], [1]], np.int32), [1.0, 2.0, 4.0], [5]]),
                  lambda: [0.0, 5.0, 0.0, 2.0, 0.0]),
    "InTopKV2": (lambda: tf.nn.in_top_k(M, [0, 3, 1], 2),
                 lambda: [(M[i] > M[i, t]).sum() < 2 for i, t in enumerate([0, 3, 1])]),
    "LRNGrad": (lambda: op("LRNGrad", [np.ones_like(IMG), IMG, ref.lrn(IMG, 1, 1.0, 0.3, 0.75).astype(np.float32)],
                           LRN),
                lambda: lrn_grad_by_differences(IMG)),
}


def lrn_grad_by_differences(x, eps=1e-3):
    """d(sum of LRN(x))/dx by central differences (float64)."""
    x = x.astype(np.float64)
    g = np.zeros_like(x)
    for i in np.ndindex(x.shape):
        up, down = x.copy(), x.copy()
        up[i] += eps
        down[i] -= eps
        g[i] = (ref.lrn(up, 1, 1.0, 0.3, 0.75).sum() - ref.lrn(down, 1, 1.0, 0.3, 0.75).sum()) / (2 * eps)
    return g
# Ops checked elsewhere: sources and stateful ops (test_session, test_training, test_distribute),
# CPU-only string ops (test_placer), Python functions (test_cluster).
ELSEWHERE = {"Placeholder", "VariableV2", "Assign", "AssignAdd", "AssignSub", "IsVariableInitialized",
             "ApplyGradientDescent", "ApplyMomentum", "ApplyAdam", "RandomUniform", "RandomUniformInt",
             "RandomStandardNormal", "TruncatedNormal", "NoOp", "AsString", "StringJoin", "ScalarSummary",
             "HistogramSummary", "MergeSummary", "DatasetSlice",
             # tests/test_tf1_surface.py, against TF's records: a variable's counter, files
             "CountUpTo", "ReadFile", "WriteFile",
             # control flow: tests/test_control_flow.py runs them through tf.cond and tf.while_loop
             "Switch", "RefSwitch", "Merge", "Enter", "RefEnter", "Exit", "NextIteration", "LoopCond",
             # loop gradients' stacks: tests/test_control_flow.py (gradients of while loops)
             "ControlTrigger", "StackV2", "StackPushV2", "StackPopV2",
             # mutable hash tables: tests/test_lookup_tables.py, against TF's recorded values
             "MutableHashTableV2", "LookupTableInsertV2", "LookupTableImportV2", "LookupTableRemoveV2",
             "LookupTableFindV2", "LookupTableExportV2", "LookupTableSizeV2",
             # TensorArrays: tests/test_rnn.py
             "TensorArrayV3", "TensorArrayWriteV3", "TensorArrayReadV3", "TensorArrayScatterV3",
             "TensorArrayGatherV3", "TensorArrayGradV3", "TensorArraySizeV3",
             # queues and gradient accumulators: tests/test_data_flow.py, against TF's recording
             "FIFOQueueV2", "QueueEnqueueV2", "QueueEnqueueManyV2", "QueueDequeueV2", "QueueDequeueManyV2",
             "QueueDequeueUpToV2", "QueueCloseV2", "QueueSizeV2", "QueueIsClosedV2", "ResourceConditionalAccumulator",
             "ResourceAccumulatorApplyGradient", "ResourceAccumulatorTakeGradient", "ResourceAccumulatorSetGlobalStep",
             "ResourceAccumulatorNumAccumulated",
             # the input pipeline: tests/test_input_pipeline.py, against TF's recording
             "RandomShuffleQueueV2", "TFRecordReaderV2", "ReaderReadV2", "ParseExampleV2", "DecodeRaw", "CountUpTo",
             "Assert",  # dynamic_rnn's check of sequence_length: tests/test_rnn.py
             "PyFunc", "PyFuncStateless",
             # the other optimizers' updates: tests/test_script_surface.py, against TF's values
             "ApplyRMSProp", "ApplyCenteredRMSProp", "ApplyAdagrad", "ApplyAdadelta", "ApplyFtrl", "ApplyFtrlV2",
             "ApplyProximalAdagrad", "ApplyProximalGradientDescent",
             # sparse writes and updates, Unique: tests/test_sparse.py, against TF's values
             "Unique", "ScatterUpdate", "ScatterAdd", "ScatterSub", "SparseApplyMomentum", "SparseApplyAdagrad",
             "SparseApplyRMSProp", "SparseApplyCenteredRMSProp", "SparseApplyAdadelta", "SparseApplyFtrl",
             "SparseApplyFtrlV2", "SparseApplyProximalAdagrad", "SparseApplyProximalGradientDescent",
             # candidate sampling (CPU only): tests/test_sampled.py, against TF's recording and the distributions
             "LogUniformCandidateSampler", "UniformCandidateSampler", "ComputeAccidentalHits",
             # a SparseTensor's ops and the segment sums: tests/test_sparse_tensor.py, against TF's recording
             # and the dense meaning of each op
             "SparseReorder", "SparseReshape", "SparseAdd", "SparseAddGrad", "SparseTensorDenseAdd",
             "SparseTensorDenseMatMul", "SparseConcat", "SparseFillEmptyRows", "SparseFillEmptyRowsGrad",
             "SparseReduceSum", "SparseReduceMax", "SparseSoftmax", "SparseSparseMaximum", "SparseSparseMinimum", "SparseDenseCwiseMul", "SparseDenseCwiseDiv",
             "SparseDenseCwiseAdd", "SparseSegmentSum", "SparseSegmentMean", "SparseSegmentSqrtN",
             "SparseSegmentSumGrad", "SparseSegmentMeanGrad", "SparseSegmentSqrtNGrad", "SparseSegmentSumGradV2",
             "SparseSegmentMeanGradV2", "SparseSegmentSqrtNGradV2", "SegmentSum",
             # issue 27's math ops: tests/test_math_more.py, against TF's recording
             "SegmentMax", "SegmentMin", "SegmentProd", "SegmentMean", "MulNoNan", "NextAfter", "ArgMin", "Cumprod",
             "ListDiff", "Print", "Complex", "ComplexAbs", "Conj", "Real", "Imag",
             # references passed on: tests/test_composite_control_flow.py, against TF's recording
             "RefIdentity", "RefSelect", "Variable",
             # seeded shuffles and matched files: tests/test_input_pipeline.py, against TF's recorded orders
             "RandomShuffle", "MatchingFiles",
             # issue 27's gradient surface: tests/test_custom_gradient.py, against TF's recording
             "IdentityN", "EuclideanNorm", "Xlogy", "Xlog1py", "Xdivy", "BitwiseAnd", "BitwiseOr", "BitwiseXor",
             "Invert",
             # resource variables and their updates: tests/test_resource_variables.py, against TF's recording
             "VarHandleOp", "ReadVariableOp", "AssignVariableOp", "AssignAddVariableOp", "AssignSubVariableOp",
             "VarIsInitializedOp", "VariableShape", "DisableCopyOnRead", "ResourceGather", "ResourceCountUpTo",
             "ResourceScatterAdd", "ResourceScatterSub", "ResourceScatterUpdate",
             *("Resource" + name for name in (
                 "ApplyGradientDescent", "ApplyMomentum", "ApplyAdam", "ApplyRMSProp", "ApplyCenteredRMSProp",
                 "ApplyAdagrad", "ApplyAdadelta", "ApplyFtrl", "ApplyFtrlV2", "ApplyProximalAdagrad",
                 "ApplyProximalGradientDescent", "SparseApplyMomentum", "SparseApplyAdagrad", "SparseApplyRMSProp",
                 "SparseApplyCenteredRMSProp", "SparseApplyAdadelta", "SparseApplyFtrl", "SparseApplyFtrlV2",
                 "SparseApplyProximalAdagrad", "SparseApplyProximalGradientDescent"))}


def test_every_op_has_a_kernel_test():
    assert set(OPS) == set(CASES) | ELSEWHERE


@pytest.mark.parametrize("op_type", sorted(CASES))
def test_kernel_matches_numpy(op_type, device_kind):
    device, config = device_kind
    build, reference = CASES[op_type]
    with tf.device(device):
        out = build()
    assert out.op.type == op_type or any(op.type == op_type for op in tf.get_default_graph().get_operations())
    with tf.Session(config=config) as s:
        got = s.run(out)
        assert s.placement.device_of(out.op).device_type == device.strip("/").split(":")[0].upper()
        again = s.run(out)  # a plan's second run executes its compiled program
        np.testing.assert_array_equal(np.asarray(again), np.asarray(got))
    np.testing.assert_allclose(np.asarray(got, dtype=float), np.asarray(reference(), dtype=float), rtol=1e-5, atol=2e-5)
    assert out.shape.is_compatible_with(np.shape(got))


@settings(max_examples=40, deadline=None)
@given(st.lists(st.integers(1, 4), min_size=0, max_size=3), st.lists(st.integers(1, 4), min_size=0, max_size=3))
def test_broadcasting_add_matches_numpy_or_raises_the_same(shape_a, shape_b):
    a, b = np.ones(shape_a, np.float32), np.full(shape_b, 2.0, np.float32)
    try:
        want = a + b
    except ValueError:
        with pytest.raises(ValueError, match="Dimensions must be equal"):
            tf.add(a, b)
        return
    out = tf.add(a, b)
    assert out.shape.as_list() == list(want.shape)
    np.testing.assert_array_equal(tf.Session().run(out), want)


def test_random_ops_are_seeded_and_shaped():
    tf.set_random_seed(1)
    u = tf.random_uniform([1000], -1.0, 1.0)
    n = tf.truncated_normal([1000])
    s1, s2 = tf.Session(), tf.Session()
    a, b = s1.run([u, n])
    assert np.array_equal(a, s2.run(u)) and -1 <= a.min() and a.max() < 1 and abs(b).max() <= 2


def test_cost_model_arithmetic():
    m = CostModel(launch_latency_s=1e-6, gpu_flop_rate=1e12, gpu_memory_bandwidth=1e11,
                  transfer_latency_s=2e-6, host_device_bandwidth=1e10, peer_bandwidth=1e11)
    assert op_flops("MatMul", [(64, 32), (32, 16)], [(64, 16)]) == 2 * 64 * 32 * 16
    assert op_flops("AddV2", [(10, 10), (10,)], [(10, 10)]) == 100
    assert m.op_seconds("GPU", 2e9, 1e6) == pytest.approx(1e-6 + 2e-3)  # compute-bound
    assert m.op_seconds("GPU", 1e3, 1e9) == pytest.approx(1e-6 + 1e-2)  # memory-bound
    assert m.transfer_seconds("CPU", "GPU", 1e9) == pytest.approx(2e-6 + 0.1)  # PCIe
    assert m.transfer_seconds("GPU", "GPU", 1e9) == pytest.approx(2e-6 + 0.01)  # NVLink


@pytest.mark.parametrize("shape,message", [
    ([3, 7], "Input to reshape is a tensor with 4 values, but the requested shape has 21"),
    ([3, -1], "Input to reshape is a tensor with 4 values, but the requested shape requires a multiple of 3"),
    ([-1, -1], "Only one input size may be -1, not both 0 and 1"),
    ([-2, 2], "Size 0 must be non-negative, not -2"),
    ([0, -1], "Input to reshape is a tensor with 4 values, but the requested shape has 0"),
])
def test_reshape_errors_in_tfs_words(shape, message):
    # TF 2.21's Reshape kernel messages (numpy would take -2 as -1)
    with tf.Graph().as_default():
        p = tf.placeholder(tf.int32)
        r = tf.reshape(tf.constant([1.0, 2, 3, 4]), p)
        with tf.Session() as s:
            with pytest.raises(tf.errors.InvalidArgumentError, match=re.escape(message)):
                s.run(r, {p: shape})


def test_reshape_of_an_empty_tensor_resolves_minus_one_as_tf():
    with tf.Graph().as_default():
        p, e = tf.placeholder(tf.int32), tf.placeholder(tf.float32)
        r = tf.reshape(e, p)
        with tf.Session() as s:
            assert s.run(r, {p: [0, -1], e: []}).shape == (0, 0)
            assert s.run(r, {p: [2, -1], e: []}).shape == (2, 0)
