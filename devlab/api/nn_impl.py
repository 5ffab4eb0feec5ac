"""Neural-network helpers built from other ops (TF's ``nn_impl``): ``xw_plus_b``, ``dropout``,
``zero_fraction``, ``moments``, ``batch_normalization`` and the sampled losses (``nce_loss``,
``sampled_softmax_loss``)."""
import numbers

import numpy as np

from ..framework import dtypes
from ..framework.scopes import name_scope
from ..framework.tensor import Tensor
from . import array_ops, math_ops, nn_ops, random_ops
from ..ops.build import convert_to_tensor
from .candidate_sampling_ops import compute_accidental_hits, log_uniform_candidate_sampler
from .embedding_ops import embedding_lookup
from .partitioned_variables import PartitionedVariable


def xw_plus_b(x, weights, biases, name=None):
    """matmul(x, weights) + biases: a MatMul and a BiasAdd named ``xw_plus_b``."""
    with name_scope(name, "xw_plus_b", [x, weights, biases]) as scope:
        x = convert_to_tensor(x, name="x")
        weights = convert_to_tensor(weights, name="weights")
        biases = convert_to_tensor(biases, name="biases")
        return nn_ops.bias_add(math_ops.matmul(x, weights), biases, name=scope)


def dropout(x, keep_prob=None, noise_shape=None, seed=None, name=None, rate=None):
    """Zeroes each element with probability ``rate`` (or 1 - ``keep_prob``), scaling the others by
    1 / (1 - rate) so the expected sum is unchanged. Built as TF 2.x builds it: the scaling
    (``Mul`` or ``RealDiv``), a RandomUniform mask compared with ``GreaterEqual``, a ``SelectV2``."""
    if keep_prob is not None:
        if rate is not None:
            raise ValueError("Cannot specify both 'keep_prob' and 'rate'.")
        rate = 1. - keep_prob
    if rate is None:
        raise ValueError(f"`rate` must be provided. Received: {rate}")
    return _dropout(x, rate, noise_shape, seed, name, "dropout")


def _dropout(x, rate, noise_shape, seed, name, default_name):
    with name_scope(name, default_name, [x]):
        is_number = isinstance(rate, numbers.Real)
        if is_number and not 0 <= rate < 1:
            raise ValueError(f"`rate` must be a scalar tensor or a float in the range [0, 1). Received: rate={rate}")
        x = convert_to_tensor(x, name="x")
        dtype = x.dtype.base_dtype
        if not dtype.is_floating:
            raise ValueError(f"`x.dtype` must be a floating point tensor as `x` will be scaled. Received: "
                             f"x_dtype={dtype!r}")
        if is_number and rate == 0:
            return x
        if not isinstance(rate, Tensor):
            scale = array_ops.constant(1 / (1 - rate), dtype=dtype)
            ret = math_ops.multiply(x, scale, name="Mul")
        else:
            if rate.dtype.base_dtype != dtype:
                rate = array_ops.cast(rate, dtype, name="rate")
            one = array_ops.constant(1, dtype=dtype)
            ret = math_ops.realdiv(x, math_ops.subtract(one, rate, name="Sub"), name="RealDiv")
        shape = array_ops.shape(x) if noise_shape is None else noise_shape
        random = random_ops.random_uniform(shape, dtype=dtype, seed=seed)
        keep = random >= rate
        ret = array_ops.where_v2(keep, ret, array_ops.constant(0, dtype=dtype))
        ret.set_shape(x.shape)
        return ret


def _count_nonzero(value, dtype):
    with name_scope(None, "count_nonzero", [value]):
        zero = array_ops.zeros([], dtype=value.dtype.base_dtype)
        return math_ops.reduce_sum(array_ops.cast(math_ops.not_equal(value, zero), dtype), name="nonzero_count")


def zero_fraction(value, name=None):
    """The fraction of zeros in ``value`` (a summary of how sparse ReLU outputs are), counted as TF
    counts: an int32 sum inside ``tf.cond(size <= int32 max, ...)``, an int64 sum otherwise."""
    from .control_flow import cond
    with name_scope(name, "zero_fraction", [value]):
        value = convert_to_tensor(value, name="value")
        size = array_ops.size(value, out_type=dtypes.int64)
        num_nonzero = cond(size <= np.int64(2 ** 31 - 1),
                           lambda: array_ops.cast(_count_nonzero(value, dtypes.int32), dtypes.int64),
                           lambda: _count_nonzero(value, dtypes.int64))
        with name_scope("counts_to_fraction"):
            num_zero = size - num_nonzero
            fraction = array_ops.cast(num_zero, dtypes.float32) / array_ops.cast(size, dtypes.float32)
        return array_ops.identity(fraction, "fraction")


def moments(x, axes, shift=None, name=None, keep_dims=None, keepdims=None):
    """The mean and variance of ``x`` over ``axes`` (TF's ``tf.nn.moments``)."""
    keep = bool(keepdims if keepdims is not None else keep_dims)
    with name_scope(name, "moments", [x, axes]):
        mean = math_ops.reduce_mean(x, axes, keepdims=True, name="mean")
        variance = math_ops.reduce_mean(math_ops.squared_difference(x, array_ops.stop_gradient(mean)), axes,
                                        keepdims=True, name="variance")
        if not keep:
            mean, variance = array_ops.squeeze(mean, axes), array_ops.squeeze(variance, axes)
        return mean, variance


def batch_normalization(x, mean, variance, offset, scale, variance_epsilon, name=None):
    """(x - mean) / sqrt(variance + epsilon) * scale + offset (TF's ``tf.nn.batch_normalization``)."""
    with name_scope(name, "batchnorm", [x, mean, variance, scale, offset]):
        inv = math_ops.rsqrt(variance + variance_epsilon)
        if scale is not None:
            inv *= scale
        return x * inv + (offset - mean * inv if offset is not None else -mean * inv)


def fused_batch_norm(x, scale, offset, mean=None, variance=None, epsilon=0.001, data_format="NHWC",
                     is_training=True, name=None, exponential_avg_factor=1.0):
    """Batch normalisation of an NHWC image in one FusedBatchNormV3 op; returns (y, mean, variance):
    the batch's statistics when training (variance unbiased), the given ones otherwise."""
    if data_format != "NHWC":
        raise ValueError(f"devlab's fused_batch_norm takes NHWC images, got data_format={data_format!r}")
    x = convert_to_tensor(x, name="input")
    channels = x.shape.sizes[-1] if x.shape.sizes else None
    if mean is None:
        mean = array_ops.constant([], dtype=x.dtype.base_dtype) if channels is None else \
            array_ops.zeros([channels], dtype=x.dtype.base_dtype)
    if variance is None:
        variance = array_ops.constant([], dtype=x.dtype.base_dtype) if channels is None else \
            array_ops.ones([channels], dtype=x.dtype.base_dtype)
    attrs = {"epsilon": float(epsilon), "data_format": data_format, "is_training": bool(is_training),
             "exponential_avg_factor": float(exponential_avg_factor)}
    from ..ops.build import apply_op
    outputs = apply_op("FusedBatchNormV3", [x] + [convert_to_tensor(t) for t in (scale, offset, mean, variance)],
                       attrs, name or "FusedBatchNormV3").outputs
    return outputs[0], outputs[1], outputs[2]


def sigmoid_cross_entropy_with_logits(labels=None, logits=None, name=None):  # TF 2.21 v1: no _sentinel
    """Per element, the cross-entropy of independent binary labels and sigmoid(logits), computed
    as TF does without overflow: max(x, 0) - x * z + log(1 + e^-|x|) (two Selects and a Log1p)."""
    if labels is None or logits is None:
        raise ValueError("Both `labels` and `logits` must be provided for sigmoid_cross_entropy_with_logits"
                         f"Received: labels={labels} and logits={logits}")
    with name_scope(name, "logistic_loss", [logits, labels]) as scope:
        logits = convert_to_tensor(logits, name="logits")
        labels = convert_to_tensor(labels, name="labels")
        if not labels.shape.is_compatible_with(logits.shape):
            raise ValueError(f"`logits` and `labels` must have the same shape, received ({logits.shape} vs "
                             f"{labels.shape}).")
        zeros = array_ops.zeros_like(logits, dtype=logits.dtype.base_dtype)
        cond = logits >= zeros
        relu_logits = array_ops.where(cond, logits, zeros)
        neg_abs_logits = array_ops.where(cond, -logits, logits)
        return math_ops.add(relu_logits - logits * labels, math_ops.log1p(math_ops.exp(neg_abs_logits)), name=scope)


def l2_normalize(x, axis=None, epsilon=1e-12, name=None, dim=None):
    """x / sqrt(max(sum(x²) over ``axis``, epsilon)): unit-length rows (or the whole tensor)."""
    axis = dim if axis is None else axis
    with name_scope(name, "l2_normalize", [x]) as scope:
        x = convert_to_tensor(x, name="x")
        square_sum = math_ops.reduce_sum(math_ops.square(x), axis, keepdims=True)
        x_inv_norm = math_ops.rsqrt(math_ops.maximum(square_sum, epsilon))
        return math_ops.multiply(x, x_inv_norm, name=scope)


def _sum_rows(x):
    """Each row's sum, as a product with a column of ones (TF's cheaper gradient than reduce_sum's)."""
    cols = array_ops.shape(x)[1]
    ones_shape = array_ops.stack([cols, 1])
    ones = array_ops.ones(ones_shape, x.dtype)
    return array_ops.reshape(math_ops.matmul(x, ones), [-1])


def _compute_sampled_logits(weights, biases, labels, inputs, num_sampled, num_classes, num_true=1,
                            sampled_values=None, subtract_log_q=True, remove_accidental_hits=False,
                            partition_strategy="mod", name=None, seed=None):
    """The logits of each example's true classes and of the sampled classes ([batch, num_true +
    num_sampled]) and their target probabilities (1 / num_true for the true ones), built op for op
    as TF builds them: one lookup of the true and sampled rows of the (possibly sharded) weights
    and biases, row-wise dots for the true classes, one product for the sampled ones."""
    if isinstance(weights, PartitionedVariable):
        weights = list(weights)
    if not isinstance(weights, list):
        weights = [weights]
    with name_scope(name, "compute_sampled_logits", weights + [biases, inputs, labels]):
        labels = convert_to_tensor(labels)
        inputs = convert_to_tensor(inputs)  # a tensor already, but for hostile calls (TF reads inputs.dtype)
        if labels.dtype != dtypes.int64:
            labels = array_ops.cast(labels, dtypes.int64)
        labels_flat = array_ops.reshape(labels, [-1])
        if sampled_values is None:
            sampled_values = log_uniform_candidate_sampler(true_classes=labels, num_true=num_true,
                                                           num_sampled=num_sampled, unique=True,
                                                           range_max=num_classes, seed=seed)
        sampled, true_expected_count, sampled_expected_count = (array_ops.stop_gradient(s) for s in sampled_values)
        sampled = array_ops.cast(sampled, dtypes.int64)
        all_ids = array_ops.concat([labels_flat, sampled], 0)
        all_w = embedding_lookup(weights, all_ids, partition_strategy=partition_strategy)
        if all_w.dtype != inputs.dtype:
            all_w = array_ops.cast(all_w, inputs.dtype)
        true_w = array_ops.slice(all_w, [0, 0], array_ops.stack([array_ops.shape(labels_flat)[0], -1]))
        sampled_w = array_ops.slice(all_w, array_ops.stack([array_ops.shape(labels_flat)[0], 0]), [-1, -1])
        sampled_logits = math_ops.matmul(inputs, sampled_w, transpose_b=True)
        all_b = embedding_lookup(biases, all_ids, partition_strategy=partition_strategy)
        if all_b.dtype != inputs.dtype:
            all_b = array_ops.cast(all_b, inputs.dtype)
        true_b = array_ops.slice(all_b, [0], array_ops.shape(labels_flat))
        sampled_b = array_ops.slice(all_b, array_ops.shape(labels_flat), [-1])
        dim = array_ops.shape(true_w)[1:2]
        new_true_w_shape = array_ops.concat([[-1, num_true], dim], 0)
        row_wise_dots = math_ops.multiply(array_ops.expand_dims(inputs, 1),
                                          array_ops.reshape(true_w, new_true_w_shape))
        dots_as_matrix = array_ops.reshape(row_wise_dots, array_ops.concat([[-1], dim], 0))
        true_logits = array_ops.reshape(_sum_rows(dots_as_matrix), [-1, num_true])
        true_b = array_ops.reshape(true_b, [-1, num_true])
        true_logits += true_b
        sampled_logits += sampled_b
        if remove_accidental_hits:
            acc_indices, acc_ids, acc_weights = compute_accidental_hits(labels, sampled, num_true=num_true)
            acc_indices_2d = array_ops.reshape(acc_indices, [-1, 1])  # as SparseToDense takes indices
            acc_ids_2d_int32 = array_ops.reshape(array_ops.cast(acc_ids, dtypes.int32), [-1, 1])
            sparse_indices = array_ops.concat([acc_indices_2d, acc_ids_2d_int32], 1, "sparse_indices")
            sampled_logits_shape = array_ops.concat(
                [array_ops.shape(labels)[:1], array_ops.expand_dims(num_sampled, 0)], 0)
            if sampled_logits.dtype != acc_weights.dtype:
                acc_weights = array_ops.cast(acc_weights, sampled_logits.dtype)
            sampled_logits += array_ops.sparse_to_dense(sparse_indices, sampled_logits_shape, acc_weights,
                                                        default_value=0.0, validate_indices=False)
        if subtract_log_q:  # the log prior of each class appearing among the samples
            true_logits -= math_ops.log(true_expected_count)
            sampled_logits -= math_ops.log(sampled_expected_count)
        out_logits = array_ops.concat([true_logits, sampled_logits], 1)
        out_labels = array_ops.concat([array_ops.ones_like(true_logits) / num_true,
                                       array_ops.zeros_like(sampled_logits)], 1)
        return out_logits, out_labels


def nce_loss(weights, biases, labels, inputs, num_sampled, num_classes, num_true=1, sampled_values=None,
             remove_accidental_hits=False, partition_strategy="mod", name="nce_loss"):
    """Noise-contrastive estimation: per example, the logistic loss of its true classes against
    ``num_sampled`` sampled ones (log-uniform unless ``sampled_values`` is given). [batch_size]."""
    logits, labels = _compute_sampled_logits(
        weights=weights, biases=biases, labels=labels, inputs=inputs, num_sampled=num_sampled,
        num_classes=num_classes, num_true=num_true, sampled_values=sampled_values, subtract_log_q=True,
        remove_accidental_hits=remove_accidental_hits, partition_strategy=partition_strategy, name=name)
    sampled_losses = sigmoid_cross_entropy_with_logits(labels=labels, logits=logits, name="sampled_losses")
    return _sum_rows(sampled_losses)


def sampled_softmax_loss(weights, biases, labels, inputs, num_sampled, num_classes, num_true=1,
                         sampled_values=None, remove_accidental_hits=True, partition_strategy="mod",
                         name="sampled_softmax_loss", seed=None):
    """Softmax cross-entropy over each example's true classes and ``num_sampled`` sampled ones
    instead of all classes: a cheap stand-in for a softmax over a huge vocabulary. [batch_size]."""
    logits, labels = _compute_sampled_logits(
        weights=weights, biases=biases, labels=labels, inputs=inputs, num_sampled=num_sampled,
        num_classes=num_classes, num_true=num_true, sampled_values=sampled_values, subtract_log_q=True,
        remove_accidental_hits=remove_accidental_hits, partition_strategy=partition_strategy, name=name, seed=seed)
    labels = array_ops.stop_gradient(labels, name="labels_stop_gradient")
    return nn_ops.softmax_cross_entropy_with_logits_v2(labels=labels, logits=logits)
