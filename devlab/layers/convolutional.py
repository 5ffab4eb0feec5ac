"""``conv2d``: ``<name>/Conv2D``, ``<name>/BiasAdd`` and the activation, with variables
``<name>/kernel`` (HWIO) and ``<name>/bias``, as TF's ``tf.layers.conv2d`` builds them."""
from ..api import init_ops, nn_ops
from ..ops.build import convert_to_tensor
from .scope import layer_scope
from ..unimplemented import reject
from .weights import add_weight


def pair(value, what):
    """An int or a pair of ints as a pair (``kernel_size=3`` is (3, 3))."""
    if isinstance(value, int):
        return value, value
    value = tuple(int(v) for v in value)
    if len(value) != 2:
        raise ValueError(f"The `{what}` argument must be a tuple of 2 integers. Received: {value}")
    return value


def channels_last(data_format):
    if data_format not in (None, "channels_last"):
        raise ValueError(f"devlab's layers take channels_last (NHWC) images, got data_format={data_format!r}")


def conv2d(inputs, filters, kernel_size, strides=(1, 1), padding="valid", data_format="channels_last",
           dilation_rate=(1, 1), activation=None, use_bias=True, kernel_initializer=None,
           bias_initializer=init_ops.Zeros(), kernel_regularizer=None, bias_regularizer=None,
           activity_regularizer=None, kernel_constraint=None, bias_constraint=None, trainable=True,
           name=None, reuse=None):
    """A 2-D convolution layer over NHWC ``inputs`` with ``filters`` output channels."""
    reject("tf.layers.conv2d", activity_regularizer=(activity_regularizer, None))
    channels_last(data_format)
    x = convert_to_tensor(inputs)
    kh, kw = pair(kernel_size, "kernel_size")
    sh, sw = pair(strides, "strides")
    dh, dw = pair(dilation_rate, "dilation_rate")
    with layer_scope(name, "conv2d", reuse):
        kernel = add_weight(
            "tf.layers.conv2d", "kernel", [kh, kw, x.shape[-1], filters], initializer=kernel_initializer,
            regularizer=kernel_regularizer, constraint=kernel_constraint, trainable=trainable)
        # TF's layer builds all its variables before it computes (Layer.build, then call)
        bias = add_weight(
            "tf.layers.conv2d", "bias", [filters], initializer=bias_initializer, regularizer=bias_regularizer,
            constraint=bias_constraint, trainable=trainable) if use_bias else None
        y = nn_ops.conv2d(x, kernel, strides=[1, sh, sw, 1], padding=padding.upper(), dilations=[1, dh, dw, 1],
                          name="Conv2D")
        if use_bias:
            y = nn_ops.bias_add(y, bias)
        return activation(y) if activation is not None else y
