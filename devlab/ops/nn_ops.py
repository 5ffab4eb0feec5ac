"""Neural-network ops: activations, softmax and the softmax cross-entropy loss."""
from ..framework.scopes import name_scope
from . import math_ops
from .array_ops import one_hot
from .build import apply_op, apply_op_output, convert_to_tensor


def relu(features, name=None):
    return apply_op_output("Relu", [convert_to_tensor(features)], None, name or "Relu")


sigmoid = math_ops.sigmoid
tanh = math_ops.tanh


def softmax(logits, axis=None, name=None):
    return apply_op_output("Softmax", [convert_to_tensor(logits)], None, name or "Softmax")


def bias_add(value, bias, name=None):
    with name_scope(name, "BiasAdd", [value, bias]) as scope:
        return math_ops.add(value, bias, name=scope)


def softmax_cross_entropy_with_logits_v2(labels=None, logits=None, axis=-1, name=None):
    """Per-example cross-entropy between ``labels`` (a distribution) and softmax(``logits``)."""
    with name_scope(name, "softmax_cross_entropy_with_logits", [logits, labels]) as scope:
        logits = convert_to_tensor(logits, name="logits")
        labels = convert_to_tensor(labels, dtype=logits.dtype, name="labels")
        return apply_op("SoftmaxCrossEntropyWithLogits", [logits, labels], None, scope).outputs[0]


softmax_cross_entropy_with_logits = softmax_cross_entropy_with_logits_v2


def sparse_softmax_cross_entropy_with_logits(labels=None, logits=None, name=None):
    """As above, with integer class ids for ``labels`` (one-hot encoded first)."""
    with name_scope(name, "SparseSoftmaxCrossEntropyWithLogits", [logits, labels]) as scope:
        logits = convert_to_tensor(logits, name="logits")
        dense = one_hot(labels, logits.shape[-1], dtype=logits.dtype)
        return apply_op("SoftmaxCrossEntropyWithLogits", [logits, dense], None, scope).outputs[0]
