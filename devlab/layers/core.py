"""``dense``: ``activation(inputs @ kernel + bias)`` with variables ``<name>/kernel``, ``<name>/bias``."""
from ..ops import init_ops, math_ops
from ..ops.build import convert_to_tensor
from ..ops.variable_scope import get_variable, variable_scope


def dense(inputs, units, activation=None, use_bias=True, kernel_initializer=None,
          bias_initializer=init_ops.Zeros(), name=None, reuse=None, trainable=True):
    x = convert_to_tensor(inputs)
    with variable_scope(name, default_name="dense", reuse=reuse):
        kernel = get_variable("kernel", [x.shape[-1], units], initializer=kernel_initializer, trainable=trainable)
        y = math_ops.matmul(x, kernel)
        if use_bias:
            bias = get_variable("bias", [units], initializer=bias_initializer, trainable=trainable)
            y = math_ops.add(y, bias, name="BiasAdd")
        return activation(y) if activation is not None else y
