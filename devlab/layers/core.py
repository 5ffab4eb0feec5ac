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
from .scope import layer_scope
from ..unimplemented import reject
from .weights import add_weight
from ..api.variable_scope import get_variable
from ..framework.scopes import name_scope


def dense(inputs, units, activation=None, use_bias=True, kernel_initializer=None,
          bias_initializer=init_ops.Zeros(), kernel_regularizer=None, bias_regularizer=None,
          activity_regularizer=None, kernel_constraint=None, bias_constraint=None, trainable=True,
          name=None, reuse=None):
    """activation(inputs @ kernel + bias) with variables ``<name>/kernel`` and ``<name>/bias``."""
    reject("tf.layers.dense", activity_regularizer=(activity_regularizer, None))
    x = convert_to_tensor(inputs)
    with layer_scope(name, "dense", reuse):
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


class Dense:
    """``tf.layers.Dense``: the layer object behind ``tf.layers.dense``. Its first call makes
    ``<name>/kernel`` and ``<name>/bias`` (name "dense", "dense_1"... when none is given) and
    computes; later calls reuse those variables, their ops in the same name scope
    (``dense/MatMul_1``), as TF's legacy layers do."""

    def __init__(self, units, activation=None, use_bias=True, kernel_initializer=None,
                 bias_initializer=init_ops.Zeros(), kernel_regularizer=None, bias_regularizer=None,
                 activity_regularizer=None, kernel_constraint=None, bias_constraint=None, trainable=True,
                 name=None, **kwargs):
        unsupported = {k: v for k, v in dict(activity_regularizer=activity_regularizer,
                                             kernel_constraint=kernel_constraint,
                                             bias_constraint=bias_constraint, **kwargs).items() if v is not None}
        if unsupported:
            raise NotImplementedError(f"tf.layers.Dense: devlab does not take {', '.join(sorted(unsupported))}")
        self.units, self.activation, self.use_bias = int(units), activation, use_bias
        self.kernel_initializer, self.bias_initializer = kernel_initializer, bias_initializer
        self.kernel_regularizer, self.bias_regularizer = kernel_regularizer, bias_regularizer
        self.trainable, self._name = trainable, name
        self._scope, self.kernel, self.bias, self.built = None, None, None, False

    def __call__(self, inputs):
        x = convert_to_tensor(inputs)
        if self._scope is None:
            with variable_scope(self._name, default_name="dense") as scope:
                self._scope = scope
                self.kernel = get_variable("kernel", [x.shape[-1], self.units], initializer=self.kernel_initializer,
                                           regularizer=self.kernel_regularizer, trainable=self.trainable)
                self.bias = get_variable("bias", [self.units], initializer=self.bias_initializer,
                                         regularizer=self.bias_regularizer, trainable=self.trainable) \
                    if self.use_bias else None
                self.built = True
                return self._compute(x)
        with variable_scope(self._scope, reuse=True, auxiliary_name_scope=False), \
                name_scope(self._scope.original_name_scope):
            return self._compute(x)

    apply = __call__

    def _compute(self, x):
        rank = x.shape.ndims
        if rank == 2 or rank is None:
            y = math_ops.matmul(x, self.kernel)
        else:  # as tf.layers.dense: Tensordot over the last axis, the static shape restored
            y = tensordot(x, self.kernel, [[rank - 1], [0]])
            y.set_shape(x.shape.as_list()[:-1] + [self.units])
        if self.use_bias:
            y = nn_ops.bias_add(y, self.bias)
        return self.activation(y) if self.activation is not None else y

    @property
    def variables(self):
        return [v for v in (self.kernel, self.bias) if v is not None]

    weights = variables

    @property
    def trainable_variables(self):
        return self.variables if self.trainable else []

    trainable_weights = trainable_variables

    @property
    def non_trainable_variables(self):
        return [] if self.trainable else self.variables
