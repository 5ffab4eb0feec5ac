"""The op table: every op type devlab knows, in one place.

An entry says how to infer the op's outputs (``shape``), how to compute them (``kernel``,
written once against ``xp``; ``overrides`` replaces it on one device type where it must), on
which device types a kernel exists (``devices``: the placer reads this, so CPU-only ops make
soft placement and "no kernel" errors real), which inputs are taken by reference (the op is
colocated with that variable), and whether it has state (never pruned, never folded).
Gradient rules live in ``grad_table.py``, written in terms of the ops below.
"""
from dataclasses import dataclass, field, replace

from . import activation_kernels as AK
from . import allocation
from . import conditional_accumulator as CA
from . import data_flow_kernels as DK
from . import data_flow_shapes as DS
from . import fifo_queue as Q
from . import kernels as K
from . import nn_kernels as NK
from . import nn_shapes as NS
from . import optimizer_kernels as OK
from . import sampling_kernels as CS
from . import shapes as S
from . import sparse_kernels as SK

BOTH = ("GPU", "CPU")
CPU_ONLY = ("CPU",)


@dataclass(frozen=True)
class OpDef:
    type: str
    shape: object
    kernel: object
    devices: tuple = BOTH
    ref_inputs: tuple = ()
    stateful: bool = False
    args: tuple = ()  # input names that share one dtype ``T``, for TF's type-mismatch error
    overrides: dict = field(default_factory=dict)
    type_input: int = 0  # the input whose dtype is the op's ``T`` attr (None: the builder sets it)

    def kernel_for(self, device_type):
        return self.overrides.get(device_type, self.kernel)


def _table(*defs):
    return {d.type: d for d in defs}


OPS = _table(
    # sources
    OpDef("Const", S.const, K.const),
    OpDef("Placeholder", S.from_attrs, K.placeholder),
    OpDef("PlaceholderWithDefault", S.placeholder_with_default, K.identity),
    OpDef("Fill", S.fill, K.fill, type_input=1),
    OpDef("RandomUniform", S.random, K.random_uniform, stateful=True),
    OpDef("RandomUniformInt", S.random, K.random_uniform_int, stateful=True),
    OpDef("RandomStandardNormal", S.random, K.random_normal, stateful=True),
    OpDef("TruncatedNormal", S.random, K.truncated_normal, stateful=True),
    # variables
    OpDef("VariableV2", S.variable, K.variable, stateful=True),
    OpDef("Assign", S.assign, K.assign, ref_inputs=(0,), stateful=True, args=("ref", "value")),
    OpDef("AssignAdd", S.ref_of_first, K.assign_add, ref_inputs=(0,), stateful=True, args=("ref", "value")),
    OpDef("AssignSub", S.ref_of_first, K.assign_sub, ref_inputs=(0,), stateful=True, args=("ref", "value")),
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
    # elementwise math
    OpDef("Identity", S.same_as_first, K.identity),
    OpDef("StopGradient", S.same_as_first, K.stop_gradient),
    OpDef("AddV2", S.broadcast, K.add, args=("x", "y")),
    OpDef("Sub", S.broadcast, K.sub, args=("x", "y")),
    OpDef("Mul", S.broadcast, K.mul, args=("x", "y")),
    OpDef("RealDiv", S.broadcast, K.real_div, args=("x", "y")),
    OpDef("Maximum", S.broadcast, K.maximum, args=("x", "y")),
    OpDef("Minimum", S.broadcast, K.minimum, args=("x", "y")),
    OpDef("Pow", S.broadcast, K.pow_, args=("x", "y")),
    OpDef("Neg", S.same_as_first, K.neg),
    OpDef("Abs", S.same_as_first, K.abs_),
    OpDef("Sign", S.same_as_first, K.sign),
    OpDef("Sin", S.same_as_first, K.sin),
    OpDef("Cos", S.same_as_first, K.cos),
    OpDef("Exp", S.same_as_first, K.exp),
    OpDef("Log", S.same_as_first, K.log),
    OpDef("Log1p", S.same_as_first, K.log1p),
    OpDef("Square", S.same_as_first, K.square),
    OpDef("Sqrt", S.same_as_first, K.sqrt),
    OpDef("Rsqrt", S.same_as_first, K.rsqrt),
    OpDef("Reciprocal", S.same_as_first, K.reciprocal),
    OpDef("Tanh", S.same_as_first, K.tanh),
    OpDef("Floor", S.same_as_first, K.floor),
    OpDef("Ceil", S.same_as_first, K.ceil),
    OpDef("IsFinite", S.bool_like_first, K.is_finite),
    OpDef("Relu", S.same_as_first, K.relu),
    OpDef("Sigmoid", S.same_as_first, K.sigmoid),
    OpDef("Softmax", S.same_as_first, K.softmax),
    OpDef("ReluGrad", S.same_as_first, K.relu_grad),
    OpDef("SigmoidGrad", S.same_as_first, K.sigmoid_grad),
    OpDef("TanhGrad", S.same_as_first, K.tanh_grad),
    OpDef("Equal", S.broadcast_bool, K.equal, args=("x", "y")),
    OpDef("Greater", S.broadcast_bool, K.greater, args=("x", "y")),
    OpDef("Less", S.broadcast_bool, K.less, args=("x", "y")),
    OpDef("GreaterEqual", S.broadcast_bool, K.greater_equal, args=("x", "y")),
    OpDef("LessEqual", S.broadcast_bool, K.less_equal, args=("x", "y")),
    OpDef("NotEqual", S.broadcast_bool, K.not_equal, args=("x", "y")),
    OpDef("LogicalAnd", S.broadcast_bool, K.logical_and, args=("x", "y")),
    OpDef("LogicalOr", S.broadcast_bool, K.logical_or, args=("x", "y")),
    OpDef("LogicalNot", S.same_as_first, K.logical_not),
    OpDef("FloorDiv", S.broadcast, K.floor_div, args=("x", "y")),
    OpDef("FloorMod", S.broadcast, K.floor_mod, args=("x", "y")),
    OpDef("SquaredDifference", S.broadcast, K.squared_difference, args=("x", "y")),
    OpDef("DivNoNan", S.broadcast, K.div_no_nan, args=("x", "y")),
    OpDef("ReciprocalGrad", S.same_as_first, K.reciprocal_grad),
    OpDef("SqrtGrad", S.same_as_first, K.sqrt_grad),
    OpDef("RsqrtGrad", S.same_as_first, K.rsqrt_grad),
    OpDef("Select", S.select, K.select),
    OpDef("SelectV2", S.select_v2, K.select_v2),
    OpDef("Cast", S.cast, K.cast),
    # linear algebra and reductions
    OpDef("MatMul", S.matmul, K.matmul, args=("a", "b")),
    OpDef("BatchMatMulV2", S.batch_matmul, K.batch_matmul, args=("x", "y")),
    OpDef("AddN", S.add_n, K.add_n, args=("inputs",)),
    OpDef("Sum", S.reduction, K.reducer("sum")),
    OpDef("Mean", S.reduction, K.reducer("mean")),
    OpDef("Max", S.reduction, K.reducer("max")),
    OpDef("Min", S.reduction, K.reducer("min")),
    OpDef("Prod", S.reduction, K.reducer("prod")),
    OpDef("Any", S.reduction, K.reducer("any")),
    OpDef("All", S.reduction, K.reducer("all")),
    OpDef("ArgMax", S.argmax, K.argmax),
    OpDef("OneHot", S.one_hot, K.one_hot, type_input=None),
    # neural networks
    OpDef("LogSoftmax", S.same_as_first, NK.log_softmax),
    OpDef("SoftmaxCrossEntropyWithLogits", NS.softmax_xent, NK.softmax_xent, args=("features", "labels")),
    OpDef("SparseSoftmaxCrossEntropyWithLogits", NS.sparse_softmax_xent, NK.sparse_softmax_xent),
    OpDef("L2Loss", S.scalar_like_first, NK.l2_loss),
    OpDef("BiasAdd", NS.bias_add, NK.bias_add, args=("value", "bias")),
    OpDef("BiasAddGrad", NS.bias_add_grad, NK.bias_add_grad),
    OpDef("Conv2D", NS.conv2d, NK.conv2d, args=("input", "filter")),
    OpDef("Conv2DBackpropInput", NS.from_first_value, NK.conv2d_backprop_input),
    OpDef("Conv2DBackpropFilter", NS.conv2d_backprop_filter, NK.conv2d_backprop_filter),
    OpDef("MaxPool", NS.pool, NK.max_pool),
    OpDef("MaxPoolGrad", S.same_as_first, NK.max_pool_grad),
    OpDef("AvgPool", NS.pool, NK.avg_pool),
    OpDef("AvgPoolGrad", NS.from_first_value, NK.avg_pool_grad),
    OpDef("FusedBatchNormV3", NS.fused_batch_norm, NK.fused_batch_norm),
    OpDef("FusedBatchNormGradV3", NS.fused_batch_norm_grad, NK.fused_batch_norm_grad),
    OpDef("LRN", S.same_as_first, NK.lrn),
    OpDef("LRNGrad", S.same_as_first, NK.lrn_grad),
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
    OpDef("Reshape", S.reshape, K.reshape),
    OpDef("Transpose", S.transpose, K.transpose),
    OpDef("ConcatV2", S.concat, K.concat),
    OpDef("Pack", S.stack, K.stack, args=("values",)),
    OpDef("Unpack", S.unstack, K.unstack),
    OpDef("ExpandDims", S.expand_dims, K.expand_dims),
    OpDef("Squeeze", S.squeeze, K.squeeze),
    OpDef("StridedSlice", S.strided_slice, K.strided_slice),
    OpDef("StridedSliceGrad", S.strided_slice_grad, K.strided_slice_grad),
    OpDef("Slice", S.slice_, K.slice_),
    OpDef("Split", S.split, K.split),
    OpDef("SplitV", S.split_v, K.split_v),
    OpDef("ConcatOffset", S.concat_offset, K.concat_offset),
    OpDef("GatherV2", S.gather_v2, K.gather_v2),
    OpDef("UnsortedSegmentSum", S.unsorted_segment_sum, K.unsorted_segment_sum),
    OpDef("Unique", S.unique, SK.unique),
    OpDef("SparseToDense", S.sparse_to_dense, SK.sparse_to_dense),
    OpDef("GatherNd", S.gather_nd, SK.gather_nd),
    # sparse writes: only the rows their indices name (colocated with the variable, as every write)
    OpDef("ScatterUpdate", S.ref_of_first, SK.scatter_update, ref_inputs=(0,), stateful=True),
    OpDef("ScatterAdd", S.ref_of_first, SK.scatter_add, ref_inputs=(0,), stateful=True),
    OpDef("ScatterSub", S.ref_of_first, SK.scatter_sub, ref_inputs=(0,), stateful=True),
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
    OpDef("Range", S.range_, K.range_),
    OpDef("Tile", S.tile, K.tile),
    OpDef("Pad", S.pad, K.pad),
    OpDef("PadV2", S.pad, K.pad_v2),
    OpDef("MirrorPad", S.pad, K.mirror_pad),
    OpDef("MirrorPadGrad", S.mirror_pad_grad, K.mirror_pad_grad),
    OpDef("InvertPermutation", S.same_as_first, K.invert_permutation),
    OpDef("BroadcastGradientArgs", S.broadcast_gradient_args, K.broadcast_gradient_args),
    OpDef("DynamicStitch", S.dynamic_stitch, K.dynamic_stitch),
    OpDef("ParallelDynamicStitch", S.dynamic_stitch, K.dynamic_stitch),
    OpDef("DynamicPartition", S.dynamic_partition, K.dynamic_partition),
    OpDef("BroadcastTo", S.broadcast_to, K.broadcast_to),
    OpDef("ZerosLike", S.same_as_first, K.zeros_like),
    OpDef("OnesLike", S.same_as_first, K.ones_like),
    OpDef("Shape", S.shape_of, K.shape),
    OpDef("ShapeN", S.shape_n, K.shape_n),
    OpDef("Size", S.size_of, K.size),
    OpDef("Rank", S.scalar_int, K.rank),
    # control
    OpDef("NoOp", S.none, K.no_op),
    # CPU-only on purpose, as in TensorFlow: strings live in host memory
    OpDef("AsString", S.string_scalar_like, K.as_string, devices=CPU_ONLY),
    OpDef("StringJoin", S.string_scalar, K.string_join, devices=CPU_ONLY),
    OpDef("DatasetSlice", S.from_attrs, K.dataset_slice, devices=CPU_ONLY, ref_inputs=(0,), stateful=True),
    OpDef("ScalarSummary", S.string_scalar, K.scalar_summary, devices=CPU_ONLY, stateful=True, type_input=1),
    OpDef("HistogramSummary", S.string_scalar, K.histogram_summary, devices=CPU_ONLY, stateful=True),
    OpDef("MergeSummary", S.string_scalar, K.merge_summary, devices=CPU_ONLY, stateful=True),
    OpDef("Assert", S.none, K.assert_, stateful=True, type_input=None),
    # control flow (tf.cond, tf.while_loop): the executor gives DEAD and loop frames their meaning
    OpDef("Switch", S.switch, K.switch),
    OpDef("RefSwitch", S.switch, K.switch, ref_inputs=(0,)),
    OpDef("Merge", S.merge, K.merge, args=("inputs",)),
    OpDef("Enter", S.same_as_first, K.forward),
    OpDef("RefEnter", S.ref_of_first, K.forward, ref_inputs=(0,)),
    OpDef("Exit", S.same_as_first, K.forward),
    OpDef("NextIteration", S.same_as_first, K.forward),
    OpDef("LoopCond", S.scalar_bool, K.forward),
    OpDef("ControlTrigger", S.none, DK.control_trigger),
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
    OpDef("QueueEnqueueV2", S.none, Q.queue_enqueue_v2, CPU_ONLY, stateful=True, type_input=None),
    OpDef("QueueEnqueueManyV2", S.none, Q.queue_enqueue_many_v2, CPU_ONLY, stateful=True, type_input=None),
    OpDef("QueueDequeueV2", DS.components, Q.queue_dequeue_v2, CPU_ONLY, stateful=True, type_input=None),
    OpDef("QueueDequeueManyV2", DS.components, Q.queue_dequeue_many_v2, CPU_ONLY, stateful=True, type_input=None),
    OpDef("QueueDequeueUpToV2", DS.components, Q.queue_dequeue_up_to_v2, CPU_ONLY, stateful=True, type_input=None),
    OpDef("QueueCloseV2", S.none, Q.queue_close_v2, CPU_ONLY, stateful=True, type_input=None),
    OpDef("QueueSizeV2", S.scalar_int, Q.queue_size_v2, CPU_ONLY, stateful=True, type_input=None),
    OpDef("QueueIsClosedV2", S.scalar_bool, Q.queue_is_closed_v2, CPU_ONLY, stateful=True, type_input=None),
    OpDef("ResourceConditionalAccumulator", DS.accumulator_handle, CA.resource_conditional_accumulator, CPU_ONLY,
          stateful=True, type_input=None),
    OpDef("ResourceAccumulatorApplyGradient", S.none, CA.resource_accumulator_apply_gradient, CPU_ONLY,
          stateful=True, type_input=None),
    OpDef("ResourceAccumulatorTakeGradient", DS.of_dtype, CA.resource_accumulator_take_gradient, CPU_ONLY,
          stateful=True, type_input=None),
    OpDef("ResourceAccumulatorSetGlobalStep", S.none, CA.resource_accumulator_set_global_step, CPU_ONLY,
          stateful=True, type_input=None),
    OpDef("ResourceAccumulatorNumAccumulated", S.scalar_int, CA.resource_accumulator_num_accumulated, CPU_ONLY,
          stateful=True, type_input=None),
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
    try:
        return OPS[op_type]
    except KeyError:
        from .tf_ops import synthesized  # TF's other ops: placed and modelled from TF's OpDef, never run
        opdef = synthesized(op_type)
        if opdef is None:
            raise KeyError(f"devlab has no op '{op_type}' in its op table") from None
        return opdef
