"""``dense``, ``dropout`` and ``flatten``, built as TF's ``tf.layers`` (tf_keras's legacy layers)
build them: ``dense/MatMul`` (``dense/Tensordot`` above rank 2) then ``dense/BiasAdd`` and the
activation, in the layer's scope."""
import functools
import operator

from ..framework.tensor import Tensor
from ..api import array_ops, init_ops, math_ops, nn_impl, nn_ops
from ..ops.build import convert_to_tensor
from ..api.tensordot import tensordot
from ..api.variable_scope import variable_scope
from ..unimplemented import reject
from .weights import add_weight


def dense(inputs, units, activation=None, use_bias=True, kernel_initializer=None,
          bias_initializer=init_ops.Zeros(), kernel_regularizer=None, bias_regularizer=None,
          activity_regularizer=None, kernel_constraint=None, bias_constraint=None, trainable=True,
          name=None, reuse=None):
    """activation(inputs @ kernel + bias) with variables ``<name>/kernel`` and ``<name>/bias``."""
    reject("tf.layers.dense", activity_regularizer=(activity_regularizer, None))
    x = convert_to_tensor(inputs)
    with variable_scope(name, default_name="dense", reuse=reuse):
        kernel = add_weight(
            "tf.layers.dense", "kernel", [x.shape[-1], units], initializer=kernel_initializer,
            regularizer=kernel_regularizer, constraint=kernel_constraint, trainable=trainable)
        # TF's layer builds all its variables before it computes (Layer.build, then call)
        bias = add_weight(
            "tf.layers.dense", "bias", [units], initializer=bias_initializer, regularizer=bias_regularizer,
            constraint=bias_constraint, trainable=trainable) if use_bias else None
        rank = x.shape.ndims
        if rank == 2 or rank is None:
            y = math_ops.matmul(x, kernel)
        else:  # TF's Dense contracts the last axis with Tensordot, then restores the static shape
            y = tensordot(x, kernel, [[rank - 1], [0]])
            y.set_shape(x.shape.as_list()[:-1] + [units])
        if use_bias:
            y = nn_ops.bias_add(y, bias)
        return activation(y) if activation is not None else y


def dropout(inputs, rate=0.5, noise_shape=None, seed=None, training=False, name=None):
    """``tf.nn.dropout`` with ``rate`` while ``training``, the inputs (an Identity) otherwise; a
    tensor ``training`` chooses between the two at run time with a ``tf.cond``, as TF builds it."""
    from ..api.control_flow import cond
    with variable_scope(name, default_name="dropout"):
        x = convert_to_tensor(inputs)
        if not isinstance(rate, Tensor) and rate == 0:
            return array_ops.identity(x)

        def dropped():
            return nn_impl.dropout(x, rate=rate, noise_shape=noise_shape, seed=seed)

        def kept():
            return array_ops.identity(x)
        if isinstance(training, Tensor):
            return cond(training, dropped, kept)
        return dropped() if training else kept()


def flatten(inputs, name=None, data_format="channels_last"):
    """[batch, ...] as [batch, everything else] (one Reshape, with a Const target when it can);
    ``channels_first`` input is moved to channels last first (one Transpose), as Keras's Flatten."""
    if data_format not in ("channels_last", "channels_first"):
        raise ValueError(f"The `data_format` argument must be one of \"channels_first\", \"channels_last\". "
                         f"Received: {data_format}")
    with variable_scope(name, default_name="flatten"):
        x = convert_to_tensor(inputs)
        rank = x.shape.ndims
        if data_format == "channels_first" and rank and rank > 1:
            x = array_ops.transpose(x, perm=[0] + list(range(2, rank)) + [1])
        dims = x.shape.sizes
        if dims is not None and len(dims) == 1:
            return array_ops.expand_dims(x, axis=1)
        if dims is not None and None not in dims[1:]:
            target = array_ops.constant([-1, functools.reduce(operator.mul, dims[1:], 1)])
        elif dims is not None and dims[0] is not None:
            target = array_ops.constant([dims[0], -1])
        else:
            target = [array_ops.shape(x)[0], -1]
        return array_ops.reshape(x, target)
