"""``max_pooling2d`` and ``average_pooling2d``: one MaxPool or AvgPool op in the layer's scope."""
from ..api import nn_ops
from ..ops.build import convert_to_tensor
from ..api.variable_scope import variable_scope
from .convolutional import channels_last, pair


def _pooling(pool, default_name, inputs, pool_size, strides, padding, data_format, name):
    channels_last(data_format)
    (ph, pw), (sh, sw) = pair(pool_size, "pool_size"), pair(strides, "strides")
    with variable_scope(name, default_name=default_name):
        return pool(convert_to_tensor(inputs), ksize=[1, ph, pw, 1], strides=[1, sh, sw, 1], padding=padding.upper())


def max_pooling2d(inputs, pool_size, strides, padding="valid", data_format="channels_last", name=None):
    """The maximum of each ``pool_size`` window, every ``strides`` pixels."""
    return _pooling(nn_ops.max_pool, "max_pooling2d", inputs, pool_size, strides, padding, data_format, name)


def average_pooling2d(inputs, pool_size, strides, padding="valid", data_format="channels_last", name=None):
    """The mean of each ``pool_size`` window, every ``strides`` pixels."""
    return _pooling(nn_ops.avg_pool, "average_pooling2d", inputs, pool_size, strides, padding, data_format, name)
