"""Initializers for ``get_variable``: callables ``init(shape, dtype)`` that build the initial value."""
import math

from ..framework import dtypes
from . import random_ops
from .array_ops import constant


class Initializer:
    def __call__(self, shape, dtype=None, partition_info=None):
        raise NotImplementedError


class Zeros(Initializer):
    def __init__(self, dtype=dtypes.float32):
        self.dtype = dtype

    def __call__(self, shape, dtype=None, partition_info=None):
        return constant(0, dtype=dtype or self.dtype, shape=shape, name="zeros")


class Ones(Initializer):
    def __init__(self, dtype=dtypes.float32):
        self.dtype = dtype

    def __call__(self, shape, dtype=None, partition_info=None):
        return constant(1, dtype=dtype or self.dtype, shape=shape, name="ones")


class Constant(Initializer):
    def __init__(self, value=0, dtype=dtypes.float32):
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
        self.mean, self.stddev, self.seed, self.dtype = mean, stddev, seed, dtype

    def __call__(self, shape, dtype=None, partition_info=None):
        return random_ops.random_normal(shape, self.mean, self.stddev, dtype or self.dtype, self.seed)


class TruncatedNormal(RandomNormal):
    def __call__(self, shape, dtype=None, partition_info=None):
        return random_ops.truncated_normal(shape, self.mean, self.stddev, dtype or self.dtype, self.seed)


class GlorotUniform(Initializer):
    """Uniform in ±sqrt(6 / (fan_in + fan_out)): get_variable's default for floats."""

    def __init__(self, seed=None, dtype=dtypes.float32):
        self.seed, self.dtype = seed, dtype

    def __call__(self, shape, dtype=None, partition_info=None):
        shape = list(shape)
        fan_in = shape[-2] if len(shape) > 1 else (shape[0] if shape else 1)
        fan_out = shape[-1] if shape else 1
        limit = math.sqrt(6.0 / max(1.0, fan_in + fan_out))
        return random_ops.random_uniform(shape, -limit, limit, dtype or self.dtype, self.seed)


zeros_initializer = Zeros
ones_initializer = Ones
constant_initializer = Constant
random_uniform_initializer = RandomUniform
random_normal_initializer = RandomNormal
truncated_normal_initializer = TruncatedNormal
glorot_uniform_initializer = GlorotUniform
