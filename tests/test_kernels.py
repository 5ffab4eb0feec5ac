"""Every kernel of the op table against numpy, on each device kind (CPU, simulated GPU, and a
real GPU where CuPy finds one); the cost model's arithmetic."""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import devlab as tf
from devlab.devices.cost_model import CostModel, op_flops
from devlab.ops.build import apply_op_output
from devlab.ops.table import OPS

R = np.random.default_rng(0)
A = R.uniform(0.5, 2.0, (2, 3)).astype(np.float32)
B = R.uniform(0.5, 2.0, (2, 3)).astype(np.float32)
M = R.uniform(-1, 1, (3, 4)).astype(np.float32)


def softmax(x):
    e = np.exp(x - x.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)


# op type -> (build from tf, numpy reference)
CASES = {
    "Const": (lambda: tf.constant(A), lambda: A),
    "Fill": (lambda: tf.fill([2, 2], 3.0), lambda: np.full((2, 2), 3.0)),
    "Identity": (lambda: tf.identity(A), lambda: A),
    "StopGradient": (lambda: tf.stop_gradient(A), lambda: A),
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
    "Square": (lambda: tf.square(A), lambda: A * A),
    "Sqrt": (lambda: tf.sqrt(A), lambda: np.sqrt(A)),
    "Rsqrt": (lambda: tf.rsqrt(A), lambda: 1 / np.sqrt(A)),
    "Reciprocal": (lambda: tf.reciprocal(A), lambda: 1 / A),
    "Tanh": (lambda: tf.tanh(A), lambda: np.tanh(A)),
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
    "AddN": (lambda: tf.add_n([A, B, A]), lambda: A + B + A),
    "Sum": (lambda: tf.reduce_sum(A, 1), lambda: A.sum(1)),
    "Mean": (lambda: tf.reduce_mean(A, 0, keepdims=True), lambda: A.mean(0, keepdims=True)),
    "Max": (lambda: tf.reduce_max(A), lambda: A.max()),
    "Min": (lambda: tf.reduce_min(A, [0, 1]), lambda: A.min()),
    "Prod": (lambda: tf.reduce_prod(A, 1), lambda: A.prod(1)),
    "ArgMax": (lambda: tf.argmax(A, 1), lambda: A.argmax(1)),
    "SoftmaxCrossEntropyWithLogits": (
        lambda: tf.nn.softmax_cross_entropy_with_logits_v2(labels=softmax(B), logits=A),
        lambda: -(softmax(B) * np.log(softmax(A))).sum(-1)),
    "OneHot": (lambda: tf.one_hot([0, 2], 3), lambda: np.eye(3)[[0, 2]]),
    "Reshape": (lambda: tf.reshape(A, [3, -1]), lambda: A.reshape(3, 2)),
    "Transpose": (lambda: tf.transpose(A), lambda: A.T),
    "ConcatV2": (lambda: tf.concat([A, B], 1), lambda: np.concatenate([A, B], 1)),
    "Pack": (lambda: tf.stack([A, B], 1), lambda: np.stack([A, B], 1)),
    "ExpandDims": (lambda: tf.expand_dims(A, 1), lambda: A[:, None]),
    "ZerosLike": (lambda: tf.zeros_like(A), lambda: np.zeros_like(A)),
    "OnesLike": (lambda: tf.ones_like(A), lambda: np.ones_like(A)),
    "Shape": (lambda: tf.shape(A), lambda: np.array([2, 3])),
    "Size": (lambda: tf.size(A), lambda: np.array(6)),
    "Rank": (lambda: tf.rank(A), lambda: np.array(2)),
    "LogicalAnd": (lambda: tf.logical_and(A > 1.5, B > 1.5), lambda: (A > 1.5) & (B > 1.5)),
    "LogicalOr": (lambda: tf.logical_or(A > 1.5, B > 1.5), lambda: (A > 1.5) | (B > 1.5)),
    "LogicalNot": (lambda: tf.logical_not(A > 1.5), lambda: ~(A > 1.5)),
}
# Ops checked elsewhere: sources and stateful ops (test_session, test_training, test_distribute),
# CPU-only string ops (test_placer), Python functions (test_cluster).
ELSEWHERE = {"Placeholder", "VariableV2", "Assign", "AssignAdd", "AssignSub", "IsVariableInitialized",
             "ApplyGradientDescent", "ApplyMomentum", "ApplyAdam", "RandomUniform", "RandomStandardNormal",
             "TruncatedNormal", "NoOp", "AsString", "StringJoin", "ScalarSummary", "DatasetSlice",
             # control flow: tests/test_control_flow.py runs them through tf.cond and tf.while_loop
             "Switch", "RefSwitch", "Merge", "Enter", "RefEnter", "Exit", "NextIteration", "LoopCond",
             "PyFunc", "PyFuncStateless"}


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
    np.testing.assert_allclose(np.asarray(got, dtype=float), np.asarray(reference(), dtype=float), rtol=1e-5, atol=1e-6)
    assert np.shape(got) == tuple(out.shape.as_list())


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
