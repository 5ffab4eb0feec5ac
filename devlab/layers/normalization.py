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
from ..api.variable_scope import get_variable
from ..unimplemented import argument, reject
from .scope import layer_scope
from .weights import add_weight

API = "tf.layers.batch_normalization"


def _assign_moving_average(variable, value, momentum):
    with name_scope(None, "AssignMovingAvg") as scope:
        with colocate_with(variable):
            decay = convert_to_tensor(1.0 - momentum, name="decay")  # a momentum tensor: a "sub" op
            return state_ops.assign_sub(variable, (variable - value) * decay, name=scope)


def batch_normalization(inputs, axis=-1, momentum=0.99, epsilon=1e-3, center=True, scale=True,
                        beta_initializer=init_ops.Zeros(), gamma_initializer=init_ops.Ones(),
                        moving_mean_initializer=init_ops.Zeros(), moving_variance_initializer=init_ops.Ones(),
                        beta_regularizer=None, gamma_regularizer=None, beta_constraint=None, gamma_constraint=None,
                        training=False, trainable=True, name=None, reuse=None, renorm=False, renorm_clipping=None,
                        renorm_momentum=0.99, fused=None, virtual_batch_size=None, adjustment=None):
    """TF's ``tf.layers.batch_normalization`` (its arguments in TF's order). Batch renormalization,
    virtual batches and ``adjustment`` are not implemented and say so; ``fused=False`` builds the
    unfused ops even for a 4-D input, as TF's."""
    reject(API, renorm=(renorm, False), renorm_clipping=(renorm_clipping, None),
           virtual_batch_size=(virtual_batch_size, None), adjustment=(adjustment, None))
    del renorm_momentum  # TF reads it only with renorm=True, rejected above
    if not isinstance(training, bool):
        raise TypeError("devlab's batch_normalization needs a Python bool for `training` (TF builds a tf.cond "
                        "for a tensor, which devlab does not have yet)")
    x = convert_to_tensor(inputs)
    ndims = x.shape.ndims
    depth = x.shape[axis]
    reduce_axes = [i for i in range(ndims) if i != axis % ndims]
    with layer_scope(name, "batch_normalization", reuse):
        gamma = add_weight(API, "gamma", [depth], initializer=gamma_initializer, regularizer=gamma_regularizer,
                           constraint=gamma_constraint, trainable=trainable) if scale else None
        beta = add_weight(API, "beta", [depth], initializer=beta_initializer, regularizer=beta_regularizer,
                          constraint=beta_constraint, trainable=trainable) if center else None
        moving_mean = get_variable("moving_mean", [depth], initializer=moving_mean_initializer, trainable=False)
        moving_var = get_variable("moving_variance", [depth], initializer=moving_variance_initializer,
                                  trainable=False)
        fusable = ndims == 4 and axis % ndims == 3
        if fused and not fusable:
            raise argument("fused (other than for a 4-D NHWC input)", API)
        if fusable and fused is not False:  # TF's fused path
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
