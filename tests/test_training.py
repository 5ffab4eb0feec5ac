"""Gradients (against finite differences), optimizers, EMA colocation, UPDATE_OPS, the
parameter-server device setter (TF's device_setter_test cases) and saved graphs."""
import json

import numpy as np
import pytest

import devlab as tf
from devlab.api.grad_table import GRADIENTS

RNG = np.random.default_rng(0)


def numeric_grad(f, x, eps=1e-3):
    g = np.zeros_like(x)
    for i in np.ndindex(x.shape):
        up, down = x.copy(), x.copy()
        up[i] += eps
        down[i] -= eps
        g[i] = (f(up) - f(down)) / (2 * eps)
    return g


UNARY = {"Neg": tf.negative, "Abs": tf.abs, "Sin": tf.sin, "Cos": tf.cos, "Exp": tf.exp, "Log": tf.log,
         "Square": tf.square, "Sqrt": tf.sqrt, "Rsqrt": tf.rsqrt, "Reciprocal": tf.reciprocal, "Tanh": tf.tanh,
         "Sigmoid": tf.sigmoid, "Relu": tf.nn.relu, "Softmax": tf.nn.softmax, "Identity": tf.identity,
         "CheckNumerics": lambda x: tf.check_numerics(x, "x"),
         "Cumsum": lambda x: tf.cumsum(x, 1, reverse=True) * tf.cumsum(x, 0, exclusive=True),
         "Sum": lambda x: tf.reduce_sum(x, 1), "Mean": lambda x: tf.reduce_mean(x, 0),
         "Max": lambda x: tf.reduce_max(x, 1), "Min": lambda x: tf.reduce_min(x),
         "Reshape": lambda x: tf.reshape(x, [6]), "Transpose": tf.transpose,
         "ReverseV2": lambda x: tf.reverse(x, [1]) * x,
         "ReverseSequence": lambda x: tf.reverse_sequence(x, [3, 2], seq_axis=1) * x,
         "ExpandDims": lambda x: tf.expand_dims(x, 0), "Cast": lambda x: tf.cast(x, tf.float64),
         "LogSoftmax": tf.nn.log_softmax, "L2Loss": tf.nn.l2_loss, "Squeeze": lambda x: tf.squeeze(x[None]),
         "StridedSlice": lambda x: x[::-1, 1:, None], "Slice": lambda x: tf.slice(x, [1, 0], [1, 2]),
         "Split": lambda x: tf.split(x, 3, axis=1)[2] * tf.split(x, 3, axis=1)[0],
         "SplitV": lambda x: tf.split(x, [2, 1], axis=1)[0], "Unpack": lambda x: tf.unstack(x)[1],
         "Pack": lambda x: tf.stack([x, x * x], axis=1), "ConcatV2": lambda x: tf.concat([x, x * x, x[:, :1]], 1),
         "GatherV2": lambda x: tf.gather(x, [2, 0, 2], axis=1) + tf.gather(x, [1, 1]),
         "Tile": lambda x: tf.tile(x, [2, 3]), "Pad": lambda x: tf.pad(x, [[1, 0], [0, 2]]),
         "PadV2": lambda x: tf.pad(x, [[1, 0], [0, 2]], constant_values=2.0),
         "MirrorPad": lambda x: tf.pad(x, [[1, 1], [2, 0]], mode="REFLECT"),
         "Fill": lambda x: tf.fill([2, 2], x[0, 0]), "Floor": lambda x: tf.floor(x * 3) + x,
         "BiasAdd": lambda x: tf.nn.bias_add(x, x[0]), "Sign": lambda x: tf.sign(x - 1.0) * x,
         "SparseToDense": lambda x: tf.sparse_to_dense([[0, 1], [1, 2]], [2, 3], x[0, :2], default_value=x[1, 1]),
         "SplitV_unused": lambda x: x}
BINARY = {"AddV2": tf.add, "Sub": tf.subtract, "Mul": tf.multiply, "RealDiv": tf.divide, "Pow": tf.pow,
          "Maximum": tf.maximum, "Minimum": tf.minimum, "MatMul": lambda a, b: tf.matmul(a, tf.transpose(b)),
          "AddN": lambda a, b: tf.add_n([a, b, a]), "SquaredDifference": tf.squared_difference,
          "BatchMatMulV2": lambda a, b: tf.matmul(tf.stack([a, b]), b[None], transpose_b=True),
          "DivNoNan": tf.div_no_nan, "FloorMod": lambda a, b: tf.floormod(a, b * 0.3) * a,
          "FloorDiv": lambda a, b: tf.floordiv(a, b) + a * b,
          "Select": lambda a, b: tf.where(a > b, a * b, a + b),
          "SelectV2": lambda a, b: tf.where_v2(a[:1] > 1.0, a, b[0] * 2.0)}
# issue 27's math ops, checked with a generator of their own (the one above keeps its sequence)
MORE_MATH = {"Prod": lambda x, y: tf.reduce_prod(x, 1) + tf.reduce_prod(x),
             "Cumprod": lambda x, y: tf.math.cumprod(x, 1, exclusive=True, reverse=True),
             # the segment ops' rows are known when they run: reshaped to what they are
             "SegmentMax": lambda x, y: tf.reshape(tf.segment_max(x, [0, 0]), [1, 3]),
             "SegmentMin": lambda x, y: tf.reshape(tf.segment_min(x, [0, 1]), [2, 3]),
             "SegmentProd": lambda x, y: tf.reshape(tf.segment_prod(x, [0, 0]), [1, 3]),
             "SegmentMean": lambda x, y: tf.reshape(tf.segment_mean(x, [0, 0]), [1, 3]),
             "MulNoNan": tf.math.multiply_no_nan, "NextAfter": lambda x, y: tf.math.nextafter(x, y) * y}
del UNARY["SplitV_unused"]
# tf.cond and tf.while_loop: their gradients pass through Switch, Merge, Enter, Exit, NextIteration.
CONTROL_FLOW = {
    "cond taken": lambda x: tf.cond(tf.reduce_sum(x) > 0, lambda: x * x, lambda: tf.sin(x)),
    "cond not taken": lambda x: tf.cond(tf.reduce_sum(x) < 0, lambda: x * x, lambda: tf.sin(x)),
    "while": lambda x: tf.while_loop(lambda i, v: i < 3, lambda i, v: (i + 1, tf.sin(v) * x), [0, x])[1],
    "while with a cond": lambda x: tf.while_loop(
        lambda i, v: i < 4, lambda i, v: (i + 1, tf.cond(i < 2, lambda: v * x, lambda: v + tf.cos(x))), [0, x])[1],
    "tensor arrays": lambda x: _through_tensor_arrays(x),
}


def _through_tensor_arrays(x):
    """Rows of x unstacked into a TensorArray, read in a loop, written to another, stacked."""
    rows = tf.TensorArray(x.dtype, size=2).unstack(x)

    def body(t, acc, out):
        v = tf.sin(rows.read(t)) + acc * x[0]
        return t + 1, v, out.write(t, v)
    _, _, out = tf.while_loop(lambda t, *_: t < 2, body, [0, tf.zeros([3], x.dtype), tf.TensorArray(x.dtype, 2)])
    return out.stack()
# Ops whose gradients need inputs of their own shape (images, labels): checked below.
CHECKED_ELSEWHERE = {"SoftmaxCrossEntropyWithLogits", "SparseSoftmaxCrossEntropyWithLogits", "PlaceholderWithDefault",
                     "Conv2D", "MaxPool", "AvgPool", "LRN", "FusedBatchNormV3",
                     # through CONTROL_FLOW
                     "Switch", "RefSwitch", "Merge", "RefMerge", "Enter", "RefEnter", "Exit", "RefExit",
                     "NextIteration", "RefNextIteration", "LoopCond",
                     "TensorArrayReadV3", "TensorArrayWriteV3", "TensorArrayScatterV3", "TensorArrayGatherV3",
                     # a SparseTensor's ops and the segment sums: tests/test_sparse_tensor.py (finite
                     # differences, and the gradients TF 2.21 recorded)
                     "SparseReorder", "SparseAdd", "SparseTensorDenseAdd", "SparseReduceSum", "SparseTensorDenseMatMul",
                     "SparseDenseCwiseMul", "SparseDenseCwiseDiv", "SparseSoftmax", "SparseFillEmptyRows",
                     "SparseSegmentSum", "SparseSegmentMean", "SparseSegmentSqrtN", "SegmentSum",
                     # resource variables' reads, against TF's recorded gradients (test_resource_variables.py)
                     "ReadVariableOp", "ResourceGather",
                     # second derivatives through a slice, against the known Hessians (test_hessians.py);
                     # PreventGradient's gradient is an error (test_gradient_seeds.py)
                     "StridedSliceGrad", "PreventGradient",
                     # complex numbers: tests/test_math_more.py (TF's recorded gradients and its checker)
                     "Complex", "ComplexAbs", "Conj", "Real", "Imag"}


def check_grads(build, *arrays, device_kind, eps=1e-3, rtol=1e-4, atol=1e-6):
    device, config = device_kind
    placeholders = [tf.placeholder(tf.float64, a.shape) for a in arrays]
    with tf.device(device):
        y = tf.reduce_sum(tf.cast(build(*placeholders), tf.float64) * np.arange(1.0, 1 + np.prod(build_shape(build, arrays))).reshape(build_shape(build, arrays)))
    grads = tf.gradients(y, placeholders)
    with tf.Session(config=config) as s:
        got = s.run(grads, {p: a for p, a in zip(placeholders, arrays)})
        for i, a in enumerate(arrays):
            def f(v, i=i):
                vals = list(arrays)
                vals[i] = v
                return s.run(y, {p: x for p, x in zip(placeholders, vals)})
            np.testing.assert_allclose(got[i], numeric_grad(f, a, eps), rtol=rtol, atol=atol)


def build_shape(build, arrays):
    with tf.Graph().as_default():
        return build(*[tf.placeholder(tf.float64, a.shape) for a in arrays]).shape.as_list()


@pytest.mark.parametrize("op_type", sorted(UNARY))
def test_unary_gradients_match_finite_differences(op_type, device_kind):
    x = RNG.uniform(0.5, 2.0, size=(2, 3))
    check_grads(UNARY[op_type], x, device_kind=device_kind)


@pytest.mark.parametrize("op_type", sorted(BINARY))
def test_binary_gradients_match_finite_differences(op_type, device_kind):
    a, b = RNG.uniform(0.5, 2.0, size=(2, 3)), RNG.uniform(0.5, 2.0, size=(2, 3))
    check_grads(BINARY[op_type], a, b, device_kind=device_kind)


@pytest.mark.parametrize("case", sorted(CONTROL_FLOW))
def test_control_flow_gradients_match_finite_differences(case, device_kind):
    x = RNG.uniform(0.5, 1.5, size=(2, 3))
    check_grads(CONTROL_FLOW[case], x, device_kind=device_kind, eps=1e-5)


def test_broadcast_gradients_sum_back_to_input_shape(device_kind):
    a, b = RNG.uniform(size=(4, 3)), RNG.uniform(size=(3,))
    check_grads(lambda x, y: x * y + y, a, b, device_kind=device_kind)


def test_softmax_cross_entropy_gradient():
    logits = RNG.normal(size=(3, 4))
    labels = np.eye(4)[[0, 2, 3]]
    check_grads(lambda l: tf.nn.softmax_cross_entropy_with_logits_v2(labels=labels, logits=l), logits,
                device_kind=("/cpu:0", tf.ConfigProto()))


# Activations and top_k of training scripts, on both sides of their kinks (their own numbers, so
# UNARY's draws stay as they were).
SCRIPT_OPS = {"TopKV2": lambda x: tf.nn.top_k(x, 2).values * [[1.0, 0.5]],
               "LeakyRelu": lambda x: tf.nn.leaky_relu(x, 0.3), "Elu": tf.nn.elu, "Selu": tf.nn.selu,
               "Softplus": tf.nn.softplus, "Relu6": lambda x: tf.nn.relu6(x * 4.0), "Ceil": lambda x: tf.ceil(x) * x,
               "Log1p": lambda x: tf.log1p(x * x), "Softsign": tf.nn.softsign,
               # a sharded embedding lookup's ops: rows split by partition, stitched back in a new order
               "DynamicPartition": lambda x: tf.reshape(tf.dynamic_partition(x * x, [1, 0], 2)[1] * 2.0
                                                        + tf.dynamic_partition(x, [1, 0], 2)[0], [1, 3]),
               "DynamicStitch": lambda x: tf.dynamic_stitch([[1], [0]], [x[:1] * x[:1], x[1:]]),
               "ParallelDynamicStitch": lambda x: tf.parallel_dynamic_stitch([[1], [0]], [x[:1], x[1:] * 3.0]),
               # issue 27's: x log y, x log(1 + y), x / y; a norm; IdentityN (custom_gradient's op)
               "Xlogy": lambda x: tf.math.xlogy(x, x * x + 1.0), "Xlog1py": lambda x: tf.math.xlog1py(x, x * x),
               "Xdivy": lambda x: tf.math.xdivy(x, x * x + 1.0),
               "EuclideanNorm": lambda x: tf.math.reduce_euclidean_norm(x, 1) * tf.math.reduce_euclidean_norm(x),
               "IdentityN": lambda x: tf.identity_n([x * 2.0, x])[0] * tf.identity_n([x])[0]}


@pytest.mark.parametrize("op_type", sorted(SCRIPT_OPS))
def test_script_op_gradients_match_finite_differences(op_type, device_kind):
    x = np.array([[-1.3, -0.4, 0.35], [0.8, 1.1, 1.9]])  # relu6(4x): 0 below 0, 4 between, 0 above 1.5
    check_grads(SCRIPT_OPS[op_type], x, device_kind=device_kind)


# Their own data (not the shared RNG, whose stream the cases above and below are drawn from in order)
OWN_DATA = {"EnsureShape": lambda x: tf.ensure_shape(x * x, (2, None)),
            "GatherNd": lambda x: tf.gather_nd(x, [[1, 0], [0, 2], [1, 0]]) * tf.gather_nd(x, [[[0, 1]]])[0]}


@pytest.mark.parametrize("op_type", sorted(OWN_DATA))
def test_own_data_gradients_match_finite_differences(op_type, device_kind):
    x = np.random.default_rng(27).uniform(0.5, 2.0, size=(2, 3))
    check_grads(OWN_DATA[op_type], x, device_kind=device_kind)


@pytest.mark.parametrize("op_type", sorted(MORE_MATH))
def test_more_math_gradients_match_finite_differences(op_type, device_kind):
    rng = np.random.default_rng(27)
    a, b = rng.uniform(0.5, 2.0, size=(2, 3)), rng.uniform(0.5, 2.0, size=(2, 3))
    build = MORE_MATH[op_type]  # (y unused by the one-input ops: it gets a zero gradient)
    check_grads(lambda x, y: build(x, y) + 0.0 * tf.reduce_sum(y), a, b, device_kind=device_kind)


def test_every_differentiable_op_is_checked():
    assert set(GRADIENTS) <= set(UNARY) | set(BINARY) | set(SCRIPT_OPS) | set(MORE_MATH) | set(OWN_DATA) | CHECKED_ELSEWHERE


IMAGES = {
    "Conv2D SAME": lambda x, w: tf.nn.conv2d(x, w, [1, 2, 2, 1], "SAME"),
    "Conv2D VALID": lambda x, w: tf.nn.conv2d(x, w, [1, 1, 1, 1], "VALID"),
    "MaxPool": lambda x, w: tf.nn.max_pool(x, [1, 2, 3, 1], [1, 2, 1, 1], "SAME") * tf.reduce_sum(w),
    "AvgPool": lambda x, w: tf.nn.avg_pool(x, [1, 3, 3, 1], [1, 2, 2, 1], "SAME") * tf.reduce_sum(w),
}
# TF has float32 kernels only for these: computed in float32, checked with a coarser difference.
IMAGES_FLOAT32 = {
    "LRN": lambda x, w: tf.nn.lrn(x, 1, 1.0, 0.3, 0.75) * tf.reduce_sum(w),
    "FusedBatchNormV3 training": lambda x, w: tf.nn.fused_batch_norm(
        x, tf.reduce_sum(w, [0, 1, 3]), tf.reduce_mean(w, [0, 1, 3]))[0] * tf.range(1.0, 3.0),
    "FusedBatchNormV3 inference": lambda x, w: tf.nn.fused_batch_norm(
        x, tf.reduce_sum(w, [0, 1, 3]), tf.reduce_mean(w, [0, 1, 3]), mean=tf.constant([0.1, -0.2]),
        variance=tf.constant([0.5, 2.0]), is_training=False)[0],
}


@pytest.mark.parametrize("name", sorted(IMAGES) + sorted(IMAGES_FLOAT32))
def test_image_gradients_match_finite_differences(name, device_kind):
    x = RNG.permutation(80).reshape(2, 4, 5, 2) / 40.0 - 1.0  # distinct values: no ties for MaxPool
    w = RNG.uniform(-1.0, 1.0, size=(3, 2, 2, 3))
    if name in IMAGES:
        check_grads(IMAGES[name], x, w, device_kind=device_kind)
    else:
        build = IMAGES_FLOAT32[name]
        # batch norm's gradients are large (~300) and curved: the float32 central difference with
        # eps 1e-2 is off by up to ~0.4% (measured on an H100, whose sums round differently)
        rtol = 5e-3 if name == "FusedBatchNormV3 training" else 3e-3
        check_grads(lambda x, w: build(tf.cast(x, tf.float32), tf.cast(w, tf.float32)), x, w, device_kind=device_kind,
                    eps=1e-2, rtol=rtol, atol=3e-4)


def test_sparse_softmax_cross_entropy_gradient(device_kind):
    """In float32: TF's GPU kernel has no float64 (its CPU one has)."""
    logits = RNG.normal(size=(3, 4))
    check_grads(lambda l: tf.nn.sparse_softmax_cross_entropy_with_logits(labels=[0, 3, 1], logits=tf.cast(l, tf.float32)),
                logits, device_kind=device_kind, eps=1e-2, rtol=3e-3, atol=3e-4)


def test_gradient_names_and_colocation():
    with tf.device("/gpu:0"):
        a = tf.Variable(1.0, name="a")
        b = tf.sin(a, name="b")
    with tf.device("/cpu:0"):
        c = tf.cos(b, name="c")
    g_plain = tf.gradients(c, a)[0]
    g_coloc = tf.gradients(c, a, colocate_gradients_with_ops=True)[0]
    names = [op.name for op in tf.get_default_graph().get_operations()]
    assert "gradients/c_grad/Sin" in names and "gradients/b_grad/Cos" in names
    c_grad_ops = [op for op in tf.get_default_graph().get_operations() if op.name.startswith("gradients_1/c_grad/")]
    assert c_grad_ops and all(op.colocation_groups() == [b"loc:@c"] and op.device == "/device:CPU:0"
                              for op in c_grad_ops)
    assert g_plain.op.colocation_groups() == [g_plain.op.name.encode().join([b"loc:@", b""])]
    with tf.Session(config=tf.ConfigProto(device_count={"GPU": 1})) as s:
        s.run(a.initializer)
        want = -np.sin(np.sin(1.0)) * np.cos(1.0)
        assert np.isclose(s.run(g_plain), want) and np.isclose(s.run(g_coloc), want)


def count_transfers(fetch, config):
    md = tf.RunMetadata()
    with tf.Session(config=config) as s:
        s.run(tf.global_variables_initializer())
        s.run(fetch, options=tf.RunOptions(output_partition_graphs=True), run_metadata=md)
    return sum(n.op == "_Recv" for pg in md.partition_graphs for n in pg.node)


def test_colocated_gradients_cause_fewer_transfers():
    """Seed 001's comparison: with colocation, gradients stay beside their forward ops."""
    def model():
        with tf.device("/gpu:0"):
            w = tf.Variable(np.ones((4, 4), np.float32), name="w")
            h = tf.nn.relu(tf.matmul(tf.ones([2, 4]), w))
        with tf.device("/gpu:1"):  # the gradients of Mul read Square and Sigmoid, which live here
            out = tf.reduce_sum(tf.square(tf.tanh(h)) * tf.sigmoid(h))
        return w, out
    config = tf.ConfigProto(device_count={"GPU": 2})
    with tf.Graph().as_default():
        w, out = model()
        plain = count_transfers(tf.gradients(out, w), config)
    with tf.Graph().as_default():
        w, out = model()
        coloc = count_transfers(tf.gradients(out, w, colocate_gradients_with_ops=True), config)
    assert coloc < plain


def two_layer_model(x, y):
    h = tf.layers.dense(x, 8, activation=tf.nn.relu, name="l1")
    logits = tf.layers.dense(h, 3, name="l2")
    return tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits_v2(labels=y, logits=logits))


@pytest.mark.parametrize("make_opt", [lambda: tf.train.GradientDescentOptimizer(0.5),
                                      lambda: tf.train.MomentumOptimizer(0.1, 0.9),
                                      lambda: tf.train.AdamOptimizer(0.05)], ids=["sgd", "momentum", "adam"])
@pytest.mark.parametrize("gpus", [0, 2])
def test_small_model_trains_with_variables_on_a_parameter_server(make_opt, gpus):
    data = np.random.default_rng(1).normal(size=(32, 4)).astype(np.float32)
    labels = np.eye(3, dtype=np.float32)[(data[:, 0] > 0).astype(int) + (data[:, 1] > 0).astype(int)]
    tf.set_random_seed(3)
    x, y = tf.placeholder(tf.float32, [None, 4]), tf.placeholder(tf.float32, [None, 3])
    towers = ["/gpu:0", "/gpu:1"] if gpus else ["/cpu:0"]
    with tf.device(tf.train.replica_device_setter(ps_tasks=1, ps_device="/cpu:0", worker_device=towers[0])):
        loss = two_layer_model(x, y)
        step = tf.train.get_or_create_global_step()
        train = make_opt().minimize(loss, global_step=step)
    config = tf.ConfigProto(device_count={"GPU": gpus})
    with tf.Session(config=config) as s:
        s.run(tf.global_variables_initializer())
        first = s.run(loss, {x: data, y: labels})
        for _ in range(60):
            s.run(train, {x: data, y: labels})
        last = s.run(loss, {x: data, y: labels})
        assert s.run(step) == 60
        kernel = tf.get_default_graph().get_operation_by_name("l1/kernel")
        assert s.placement.device_of(kernel).name.endswith("CPU:0")
        matmul = tf.get_default_graph().get_operation_by_name("l1/MatMul")
        assert s.placement.device_of(matmul).name.endswith("GPU:0" if gpus else "CPU:0")
        slots = [v for v in tf.global_variables() if "Momentum" in v.op.name or "Adam" in v.op.name]
        assert all(s.placement.device_of(v.op) is s.placement.device_of(kernel) for v in slots)
    assert last < 0.5 * first


def test_ema_shadow_and_update_are_colocated_with_the_variable():
    with tf.device("/gpu:1"):
        v = tf.Variable(10.0, name="v")
    ema = tf.train.ExponentialMovingAverage(0.5)
    with tf.device("/cpu:0"):
        update = ema.apply([v])
    shadow = ema.average(v)
    assert shadow.op.name == "v/ExponentialMovingAverage" == ema.average_name(v)
    assert shadow.op.colocation_groups() == [b"loc:@v"] and shadow.device == "/device:GPU:1"
    sub = [op for op in tf.get_default_graph().get_operations() if op.type == "AssignSub"][0]
    assert sub.device == "/device:GPU:1"
    with tf.Session(config=tf.ConfigProto(device_count={"GPU": 2})) as s:
        s.run(tf.global_variables_initializer())
        s.run(v.assign(20.0))
        s.run(update)
        assert s.run(shadow) == 15.0
        assert s.placement.device_of(sub) is s.placement.device_of(v.op)


def test_update_ops_gathered_on_cpu_and_bound_with_control_dependencies():
    x = tf.constant(np.arange(8.0, dtype=np.float32).reshape(4, 2))
    with tf.device("/gpu:0"):
        out = tf.layers.batch_normalization(x, training=True, momentum=0.0)
        loss = tf.reduce_sum(out)
    with tf.device("/cpu:0"):
        update_ops = tf.get_collection(tf.GraphKeys.UPDATE_OPS)
    assert len(update_ops) == 2
    with tf.control_dependencies(update_ops):
        train = tf.identity(loss)
    with tf.Session(config=tf.ConfigProto(device_count={"GPU": 1})) as s:
        s.run(tf.global_variables_initializer())
        s.run(train)
        mean = [v for v in tf.global_variables() if v.op.name.endswith("moving_mean")][0]
        np.testing.assert_allclose(s.run(mean), [3.0, 4.0])


def test_replica_device_setter_matches_tf_cases():
    cluster = {"ps": ["ps0:2222", "ps1:2222"], "worker": ["w0:2222", "w1:2222", "w2:2222"]}
    with tf.device(tf.train.replica_device_setter(cluster=cluster)):
        v = tf.Variable([1, 2], name="v")
        w = tf.Variable([2, 1], name="w")
        a = v + w
    assert (v.device, w.device, a.device) == ("/job:ps/task:0", "/job:ps/task:1", "/job:worker")
    assert v.initializer.device == v.device
    with tf.Graph().as_default():
        with tf.device(tf.train.replica_device_setter(cluster=cluster)):
            v = tf.Variable([1, 2])
            with tf.device("/job:moon"):
                w = tf.Variable([2, 1])
                with tf.device("/job:ps"):
                    x = tf.Variable([0, 1])
        assert (v.device, w.device, x.device) == ("/job:ps/task:0", "/job:moon", "/job:ps/task:1")
    with tf.Graph().as_default():
        with tf.device(tf.train.replica_device_setter(ps_tasks=1, ps_device="/cpu:0")):
            v = tf.Variable([1, 2])
            with tf.device("/job:moon"):
                w = tf.Variable([2, 1])
            a = v + w
        assert (v.device, w.device, a.device) == ("/device:CPU:0", "/job:moon/device:CPU:0", "/job:worker")
    assert tf.train.replica_device_setter(cluster={"worker": ["w0:1"]}) is None


def test_meta_graph_round_trip_keeps_devices_and_clear_devices_replaces(tmp_path):
    with tf.device("/gpu:1"):
        v = tf.Variable([1.0, 2.0], name="v")
        tf.reduce_sum(v * 3.0, name="y")
    path = str(tmp_path / "model")
    with tf.Session(config=tf.ConfigProto(device_count={"GPU": 2})) as s:
        s.run(tf.global_variables_initializer())
        s.run(v.assign([5.0, 6.0]))
        tf.train.Saver().save(s, path)
    with tf.Graph().as_default() as g:
        saver = tf.train.import_meta_graph(path + ".meta")
        assert g.get_operation_by_name("y").device == "/device:GPU:1"
        with tf.Session(config=tf.ConfigProto(device_count={"GPU": 2})) as s:
            saver.restore(s, path)
            assert s.run("y:0") == 33.0
            assert s.placement.device_of("y").name.endswith("GPU:1")
    with tf.Graph().as_default() as g:
        saver = tf.train.import_meta_graph(path + ".meta", clear_devices=True)
        assert all(op.device == "" for op in g.get_operations())
        with tf.Session(config=tf.ConfigProto(device_count={"GPU": 0})) as s:
            saver.restore(s, path)
            assert s.run("y:0") == 33.0
            assert s.placement.device_of("y").name.endswith("CPU:0")


def test_imported_meta_graph_keeps_which_variables_train():
    tf.Variable(1.0, name="a", trainable=False)
    tf.Variable(2.0, name="b")
    meta = tf.train.export_meta_graph()
    with tf.Graph().as_default():
        tf.train.import_meta_graph(meta, import_scope="s")
        # TF 2.21 (tf.compat.v1) answers the same for its own MetaGraphDef
        assert [(v.name, v.trainable) for v in tf.global_variables()] == [("s/a:0", False), ("s/b:0", True)]
        assert [v.name for v in tf.trainable_variables()] == ["s/b:0"]


def test_corrupt_meta_graph_is_rejected_and_graph_untouched(tmp_path):
    tf.constant(1.0, name="a")
    meta = tf.train.export_meta_graph()
    with tf.Graph().as_default() as g:
        tf.constant(1.0, name="keep")
        for mutate, message in [
            (lambda m: m["nodes"][0].update(op="os.system"), "unknown op type"),
            (lambda m: m["nodes"][0].update(inputs=["nothing:0"]), "does not name an earlier op"),
            (lambda m: m.update(format="pickle"), "not a devlab meta graph"),
            (lambda m: m["nodes"][0].update(device="/gpu:0/cpu:0"), "bad device"),
        ]:
            bad = json.loads(json.dumps(meta))
            mutate(bad)
            path = tmp_path / "bad.meta"
            path.write_text(json.dumps(bad))
            with pytest.raises(ValueError, match=message):
                tf.train.import_meta_graph(str(path))
            assert [op.name for op in g.get_operations()] == ["keep"]
        (tmp_path / "junk.meta").write_text("{not json")
        with pytest.raises(OSError, match="Cannot parse file .*invalid JSON"):  # TF's OSError for an unparseable file
            tf.train.import_meta_graph(str(tmp_path / "junk.meta"))
