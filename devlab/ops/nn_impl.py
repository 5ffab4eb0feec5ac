"""Neural-network helpers built from other ops (TF's ``nn_impl``): ``xw_plus_b``, ``dropout``,
``zero_fraction``, ``moments`` and ``batch_normalization``."""
import numbers

import numpy as np

from ..framework import dtypes
from ..framework.scopes import name_scope
from ..framework.tensor import Tensor
from . import array_ops, math_ops, nn_ops, random_ops
from .build import convert_to_tensor


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
    from .build import apply_op
    outputs = apply_op("FusedBatchNormV3", [x] + [convert_to_tensor(t) for t in (scale, offset, mean, variance)],
                       attrs, name or "FusedBatchNormV3").outputs
    return outputs[0], outputs[1], outputs[2]


def sigmoid_cross_entropy_with_logits(_sentinel=None, labels=None, logits=None, name=None):
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
