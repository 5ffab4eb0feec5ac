"""``tf.nn``: activations and losses."""
from .ops.math_ops import sigmoid, tanh  # noqa: F401
from .ops.nn_ops import (bias_add, relu, softmax, softmax_cross_entropy_with_logits,  # noqa: F401
                         softmax_cross_entropy_with_logits_v2, sparse_softmax_cross_entropy_with_logits)
