"""``batch_normalization``: normalise with batch statistics when training, moving ones otherwise.

Built as TF's ``tf.layers.batch_normalization`` (tf_keras's unfused BatchNormalization) builds
it: ``moments`` (Mean, StopGradient, SquaredDifference, Squeeze), one ``AssignMovingAvg``
AssignSub per moving statistic, computed beside its variable (``colocate_with``), and
``batchnorm`` (``x * inv + (beta - mean * inv)``). The updates go into
``GraphKeys.UPDATE_OPS``; they run only if the training op depends on them, which is why
seed 001 gathers ``get_collection(UPDATE_OPS)`` and wraps the train op in
``control_dependencies``. A 4-D (NHWC) input goes through one ``FusedBatchNormV3`` op instead,
as in TF, whose batch statistics feed the same updates.
"""
from ..framework.graph import get_default_graph
from ..framework.graph_keys import GraphKeys
from ..framework.scopes import colocate_with, name_scope
from ..api import init_ops, state_ops
from ..ops.build import convert_to_tensor
from ..api import array_ops
from ..api.nn_impl import batch_normalization as batch_norm, fused_batch_norm, moments
from ..api.variable_scope import get_variable, variable_scope


def _assign_moving_average(variable, value, momentum):
    with name_scope(None, "AssignMovingAvg") as scope:
        with colocate_with(variable):
            decay = convert_to_tensor(1.0 - momentum, name="decay")  # a momentum tensor: a "sub" op
            return state_ops.assign_sub(variable, (variable - value) * decay, name=scope)


def batch_normalization(inputs, axis=-1, momentum=0.99, epsilon=1e-3, center=True, scale=True,
                        beta_initializer=init_ops.Zeros(), gamma_initializer=init_ops.Ones(),
                        moving_mean_initializer=init_ops.Zeros(), moving_variance_initializer=init_ops.Ones(),
                        training=False, trainable=True, name=None, reuse=None, **unused):
    if not isinstance(training, bool):
        raise TypeError("devlab's batch_normalization needs a Python bool for `training` (TF builds a tf.cond "
                        "for a tensor, which devlab does not have yet)")
    x = convert_to_tensor(inputs)
    ndims = x.shape.ndims
    depth = x.shape[axis]
    reduce_axes = [i for i in range(ndims) if i != axis % ndims]
    with variable_scope(name, default_name="batch_normalization", reuse=reuse):
        gamma = get_variable("gamma", [depth], initializer=gamma_initializer, trainable=trainable) if scale else None
        beta = get_variable("beta", [depth], initializer=beta_initializer, trainable=trainable) if center else None
        moving_mean = get_variable("moving_mean", [depth], initializer=moving_mean_initializer, trainable=False)
        moving_var = get_variable("moving_variance", [depth], initializer=moving_variance_initializer,
                                  trainable=False)
        if ndims == 4 and axis % ndims == 3:  # TF's fused path
            if gamma is None or beta is None:
                gamma = gamma if gamma is not None else array_ops.constant(1.0, shape=[depth])
                beta = beta if beta is not None else array_ops.constant(0.0, shape=[depth])
            y, mean, variance = fused_batch_norm(x, gamma, beta, moving_mean, moving_var, epsilon=epsilon,
                                                 is_training=training)
            if training:
                momentum_t = array_ops.constant(momentum)
                graph = get_default_graph()
                for var, value in ((moving_mean, mean), (moving_var, variance)):
                    graph.add_to_collection(GraphKeys.UPDATE_OPS, _assign_moving_average(var, value, momentum_t).op)
            return y
        if training:
            mean, variance = moments(x, reduce_axes, keep_dims=len(reduce_axes) > 1 and axis % ndims != ndims - 1)
            graph = get_default_graph()
            graph.add_to_collection(GraphKeys.UPDATE_OPS, _assign_moving_average(moving_mean, mean, momentum).op)
            graph.add_to_collection(GraphKeys.UPDATE_OPS, _assign_moving_average(moving_var, variance, momentum).op)
        else:
            mean, variance = moving_mean, moving_var
        return batch_norm(x, mean, variance, beta, gamma, epsilon)
