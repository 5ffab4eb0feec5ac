"""``batch_normalization``: normalise with batch statistics when training, moving ones otherwise.

While training, the moving mean and variance are updated by ops placed in
``GraphKeys.UPDATE_OPS``; they run only if the training op depends on them, which is why
seed 001 gathers ``get_collection(UPDATE_OPS)`` and wraps the train op in
``control_dependencies``.
"""
from ..framework.graph import get_default_graph
from ..framework.graph_keys import GraphKeys
from ..framework.scopes import name_scope
from ..ops import init_ops, math_ops
from ..ops.build import convert_to_tensor
from ..ops.variable_scope import get_variable, variable_scope
from ..train.moving_averages import assign_moving_average


def batch_normalization(inputs, axis=-1, momentum=0.99, epsilon=1e-3, center=True, scale=True, training=False,
                        name=None, reuse=None, trainable=True):
    if not isinstance(training, bool):
        raise TypeError("devlab's batch_normalization needs a Python bool for `training`")
    x = convert_to_tensor(inputs)
    depth = x.shape[axis]
    reduce_axes = [i for i in range(x.shape.ndims) if i != axis % x.shape.ndims]
    with variable_scope(name, default_name="batch_normalization", reuse=reuse):
        gamma = get_variable("gamma", [depth], initializer=init_ops.Ones(), trainable=trainable and scale)
        beta = get_variable("beta", [depth], initializer=init_ops.Zeros(), trainable=trainable and center)
        moving_mean = get_variable("moving_mean", [depth], initializer=init_ops.Zeros(), trainable=False)
        moving_var = get_variable("moving_variance", [depth], initializer=init_ops.Ones(), trainable=False)
        if training:
            with name_scope("moments"):
                mean = math_ops.reduce_mean(x, reduce_axes, name="mean")
                variance = math_ops.reduce_mean(math_ops.square(math_ops.subtract(x, mean)), reduce_axes,
                                                name="variance")
            graph = get_default_graph()
            graph.add_to_collection(GraphKeys.UPDATE_OPS, assign_moving_average(moving_mean, mean, momentum, zero_debias=False))
            graph.add_to_collection(GraphKeys.UPDATE_OPS, assign_moving_average(moving_var, variance, momentum, zero_debias=False))
        else:
            mean, variance = moving_mean, moving_var
        with name_scope("batchnorm"):
            inv = math_ops.multiply(math_ops.rsqrt(math_ops.add(variance, epsilon)), gamma)
            return math_ops.add(math_ops.multiply(math_ops.subtract(x, mean), inv), beta)
