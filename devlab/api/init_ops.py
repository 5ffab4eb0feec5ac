"""Initializers for ``get_variable``: callables ``init(shape, dtype)`` that build the initial value."""
import math

import numpy as np

from ..framework import dtypes
from . import array_ops, math_ops, matrix_ops, random_ops
from .array_ops import constant


class Initializer:
    def __call__(self, shape, dtype=None, partition_info=None):
        raise NotImplementedError


class Zeros(Initializer):
    def __init__(self, dtype=dtypes.float32):
        self.dtype = dtype

    def __call__(self, shape, dtype=None, partition_info=None):
        return array_ops.zeros(shape, dtype=dtype or self.dtype)


class Ones(Initializer):
    def __init__(self, dtype=dtypes.float32):
        self.dtype = dtype

    def __call__(self, shape, dtype=None, partition_info=None):
        return array_ops.ones(shape, dtype=dtype or self.dtype)


def _assert_float_dtype(dtype):
    """``dtype`` (a DType), which must be floating (TF's ValueError otherwise)."""
    dtype = dtypes.as_dtype(dtype)
    if not dtype.is_floating:
        raise ValueError(f"Argument `dtype` is expected to be floating point. Received: <dtype: '{dtype.name}'>.")
    return dtype


class Constant(Initializer):
    def __init__(self, value=0, dtype=dtypes.float32):
        if not (np.isscalar(value) or isinstance(value, (list, tuple, np.ndarray))):  # not a tensor or variable
            raise TypeError(f"Invalid type for initial value={value} of type: {type(value).__name__}. Expected Python "
                            "scalar, list or tuple of values, or numpy.ndarray.")
        self.value, self.dtype = value, dtype

    def __call__(self, shape, dtype=None, partition_info=None):
        return constant(self.value, dtype=dtype or self.dtype, shape=shape, name="Const")


class RandomUniform(Initializer):
    def __init__(self, minval=0.0, maxval=None, seed=None, dtype=dtypes.float32):
        self.minval, self.maxval, self.seed, self.dtype = minval, maxval, seed, dtype

    def __call__(self, shape, dtype=None, partition_info=None):
        return random_ops.random_uniform(shape, self.minval, self.maxval, dtype or self.dtype, self.seed)


class RandomNormal(Initializer):
    def __init__(self, mean=0.0, stddev=1.0, seed=None, dtype=dtypes.float32):
        self.mean, self.stddev, self.seed, self.dtype = mean, stddev, seed, _assert_float_dtype(dtype)

    def __call__(self, shape, dtype=None, partition_info=None):
        return random_ops.random_normal(shape, self.mean, self.stddev, dtype or self.dtype, self.seed)


class TruncatedNormal(RandomNormal):
    def __call__(self, shape, dtype=None, partition_info=None):
        return random_ops.truncated_normal(shape, self.mean, self.stddev, dtype or self.dtype, self.seed)


class GlorotUniform(Initializer):
    """Uniform in ±sqrt(6 / (fan_in + fan_out)): get_variable's default for floats. A conv kernel's
    fans count the receptive field (kh * kw) too, as TF's VarianceScaling does."""

    def __init__(self, seed=None, dtype=dtypes.float32):
        self.seed, self.dtype = seed, dtype

    def __call__(self, shape, dtype=None, partition_info=None):
        fan_in, fan_out = _fans(list(shape if partition_info is None else partition_info.full_shape))  # a shard: the whole
        limit = math.sqrt(3.0 / max(1.0, (fan_in + fan_out) / 2.0))
        return random_ops.random_uniform(shape, -limit, limit, dtype or self.dtype, self.seed)


class UniformUnitScaling(Initializer):
    """Uniform in ±sqrt(3 / input size) * factor, the input size being the product of all but the
    last dimension of the (full) shape: TF's deprecated ``uniform_unit_scaling_initializer``."""

    def __init__(self, factor=1.0, seed=None, dtype=dtypes.float32):
        self.factor, self.seed, self.dtype = factor, seed, _assert_float_dtype(dtype)

    def __call__(self, shape, dtype=None, partition_info=None):
        scale_shape = shape if partition_info is None else partition_info.full_shape
        input_size = max(float(np.prod([float(d) for d in list(scale_shape)[:-1]])), 1.0)
        max_val = math.sqrt(3 / input_size) * self.factor
        return random_ops.random_uniform(shape, -max_val, max_val, dtype or self.dtype, self.seed)


class VarianceScaling(Initializer):
    """Samples of variance ``scale / n`` (n: fan in, fan out or their mean, of the full shape):
    a truncated normal (``truncated_normal``, or ``normal``), a normal, or a uniform distribution."""

    def __init__(self, scale=1.0, mode="fan_in", distribution="truncated_normal", seed=None, dtype=dtypes.float32):
        if scale <= 0.0:
            raise ValueError(f"Argument `scale` must be a positive float. Received: {scale}")
        if mode not in ("fan_in", "fan_out", "fan_avg"):
            raise ValueError(f"Argument `mode` should be one of ('fan_in', 'fan_out', 'fan_avg'). Received: {mode}")
        distribution = distribution.lower()
        if distribution not in ("normal", "uniform", "truncated_normal", "untruncated_normal"):
            raise ValueError("Argument `distribution` should be one of ('normal', uniform', 'truncated_normal', "
                             f"'untruncated_normal'). Received: {distribution}")
        self.scale, self.mode, self.distribution = scale, mode, distribution
        self.seed, self.dtype = seed, _assert_float_dtype(dtype)

    def __call__(self, shape, dtype=None, partition_info=None):
        dtype = dtype or self.dtype
        fan_in, fan_out = _fans(list(shape if partition_info is None else partition_info.full_shape))
        n = {"fan_in": fan_in, "fan_out": fan_out, "fan_avg": (fan_in + fan_out) / 2.0}[self.mode]
        scale = self.scale / max(1.0, n)
        if self.distribution in ("normal", "truncated_normal"):  # the stddev of the truncated normal is sqrt(scale)
            return random_ops.truncated_normal(shape, 0.0, math.sqrt(scale) / .87962566103423978, dtype, self.seed)
        if self.distribution == "untruncated_normal":
            return random_ops.random_normal(shape, 0.0, math.sqrt(scale), dtype, self.seed)
        limit = math.sqrt(3.0 * scale)
        return random_ops.random_uniform(shape, -limit, limit, dtype, self.seed)


class Orthogonal(Initializer):
    """A random orthogonal matrix (the Q of a normal matrix's QR, its columns' signs fixed by R's
    diagonal) times ``gain``, reshaped to ``shape`` (at least two dimensions)."""

    def __init__(self, gain=1.0, seed=None, dtype=dtypes.float32):
        self.gain, self.dtype, self.seed = gain, _assert_float_dtype(dtype), seed

    def __call__(self, shape, dtype=None, partition_info=None):
        dtype = dtype or self.dtype
        if len(shape) < 2:
            raise ValueError("The tensor to initialize, specified by argument `shape` must be at least two-dimensional. "
                             f"Received shape={shape}")
        num_rows = int(np.prod([int(d) for d in list(shape)[:-1]], dtype=np.int64))
        num_cols = int(shape[-1])
        flat_shape = (num_cols, num_rows) if num_rows < num_cols else (num_rows, num_cols)
        a = random_ops.random_normal(flat_shape, dtype=dtype, seed=self.seed)
        q, r = matrix_ops.qr(a, full_matrices=False)
        q *= math_ops.sign(matrix_ops.diag_part(r))
        if num_rows < num_cols:
            q = matrix_ops.matrix_transpose(q)
        return self.gain * array_ops.reshape(q, shape)


class ConvolutionDeltaOrthogonal(Initializer):
    """A convolution kernel (3 to 5 dimensions) that is zero except at its spatial centre, which
    holds an orthogonal ``in x out`` matrix times ``gain`` (``in`` at most ``out``)."""

    def __init__(self, gain=1.0, seed=None, dtype=dtypes.float32):
        self.gain, self.dtype, self.seed = gain, _assert_float_dtype(dtype), seed

    def __call__(self, shape, dtype=None, partition_info=None):
        dtype = dtype or self.dtype
        if len(shape) < 3 or len(shape) > 5:
            raise ValueError("The tensor to initialize, specified by argument `shape` must be at least "
                             f"three-dimensional and at most five-dimensional. Received shape={shape}")
        if shape[-2] > shape[-1]:
            raise ValueError(f"In_filters, specified by shape[-2]={shape[-2]} cannot be greater than out_filters, "
                             f"specified by shape[-1]={shape[-1]}.")
        a = random_ops.random_normal([shape[-1], shape[-1]], dtype=dtype, seed=self.seed)
        q, r = matrix_ops.qr(a, full_matrices=False)
        q *= math_ops.sign(matrix_ops.diag_part(r))
        q = q[:shape[-2], :]
        q *= array_ops.cast(self.gain, dtype=dtype)
        centre = [[(d - 1) // 2 for d in list(shape)[:len(shape) - 2]]]
        return array_ops.scatter_nd(centre, array_ops.expand_dims(q, 0), shape)


class Identity(Initializer):
    """The identity matrix times ``gain`` (a two-dimensional shape; a shard gets its slice of it)."""

    def __init__(self, gain=1.0, dtype=dtypes.float32):
        self.gain, self.dtype = gain, _assert_float_dtype(dtype)

    def __call__(self, shape, dtype=None, partition_info=None):
        full_shape = shape if partition_info is None else partition_info.full_shape
        if len(full_shape) != 2:
            raise ValueError("The tensor to initialize, specified by argument `shape` must be at least two-dimensional. "
                             f"Received shape={shape}")
        full_shape = [int(d) for d in full_shape]
        value = matrix_ops.eye(*full_shape, dtype=dtype or self.dtype)
        if partition_info is not None:
            value = array_ops.slice(value, partition_info.var_offset, shape)
        return self.gain * value


class GlorotNormal(VarianceScaling):
    """A truncated normal of variance 2 / (fan_in + fan_out)."""

    def __init__(self, seed=None, dtype=dtypes.float32):
        super().__init__(scale=1.0, mode="fan_avg", distribution="truncated_normal", seed=seed, dtype=dtype)


def _fans(shape):
    """(fan_in, fan_out) of a weight shape: a conv kernel [h, w, in, out] counts h*w per channel."""
    if len(shape) < 1:
        return 1, 1
    if len(shape) == 1:
        return shape[0], shape[0]
    receptive = 1
    for d in shape[:-2]:
        receptive *= d
    return shape[-2] * receptive, shape[-1] * receptive


zeros_initializer = Zeros
ones_initializer = Ones
constant_initializer = Constant
random_uniform_initializer = RandomUniform
random_normal_initializer = RandomNormal
truncated_normal_initializer = TruncatedNormal
glorot_uniform_initializer = GlorotUniform
glorot_normal_initializer = GlorotNormal
uniform_unit_scaling_initializer = UniformUnitScaling
variance_scaling_initializer = VarianceScaling
orthogonal_initializer = Orthogonal
identity_initializer = Identity
convolutional_delta_orthogonal = ConvolutionDeltaOrthogonal
