"""``tf.metrics.mean`` and ``tf.metrics.accuracy``, built as TF 2.21's ``metrics_impl.py`` builds
them: two local variables, ``total`` and ``count`` (collections LOCAL_VARIABLES and
METRIC_VARIABLES, so ``local_variables_initializer`` resets them), an ``update_op`` that adds a
batch to both and returns the running value, and a ``value`` tensor that only reads them.
A training loop runs ``update_op`` once per batch and fetches the value at the end.
"""
from ..framework import dtypes
from ..framework.graph import get_default_graph
from ..framework.graph_keys import GraphKeys
from ..framework.scopes import control_dependencies, name_scope
from . import array_ops, math_ops, state_ops
from .build import convert_to_tensor
from .variable_scope import variable_scope
from .variables import Variable


def metric_variable(shape, dtype, validate_shape=True, name=None):
    """A local, non-trainable variable of zeros (its initializer a callable, as TF's)."""
    return Variable(lambda: array_ops.zeros(shape, dtype), trainable=False,
                    collections=[GraphKeys.LOCAL_VARIABLES, GraphKeys.METRIC_VARIABLES],
                    validate_shape=validate_shape, name=name)


def _squeezable(predictions, labels):
    """TF's ``remove_squeezable_dimensions`` for known ranks: drops a trailing dim of 1 from the
    one with rank one more than the other (its name scope is taken even when nothing is done)."""
    with name_scope(None, "remove_squeezable_dimensions", [labels, predictions]):
        predictions, labels = convert_to_tensor(predictions), convert_to_tensor(labels)
        p_rank, l_rank = predictions.shape.ndims, labels.shape.ndims
        if p_rank is None or l_rank is None:
            raise NotImplementedError("devlab's tf.metrics need predictions and labels of known rank")
        if p_rank - l_rank == 1 and predictions.shape.sizes[-1] in (None, 1):
            predictions = array_ops.squeeze(predictions, [-1])
        elif p_rank - l_rank == -1 and labels.shape.sizes[-1] in (None, 1):
            labels = array_ops.squeeze(labels, [-1])
        return labels, predictions


def _compatible(a, b):
    if not a.shape.is_compatible_with(b.shape):
        raise ValueError(f"Shapes {a.shape} and {b.shape} are incompatible")


def _broadcast_weights(weights, values):
    """TF's ``broadcast_weights``: the weights as they are when their static shape is the
    values'; otherwise weights * ones_like(values) (TF also asserts, at run time, that they
    broadcast; devlab leaves that Assert out)."""
    with name_scope(None, "broadcast_weights", (weights, values)) as scope:
        values = convert_to_tensor(values, name="values")
        weights = convert_to_tensor(weights, dtype=values.dtype.base_dtype, name="weights")
        if weights.shape.is_fully_defined() and values.shape.is_fully_defined() and \
                weights.shape.is_compatible_with(values.shape):
            return weights
        return math_ops.multiply(weights, array_ops.ones_like(values), name=scope)


def _weights_like(values, weights):
    """TF's ``_remove_squeezable_dimensions`` for the weights: a trailing dim of 1 dropped or added
    so their rank is the values' (known ranks only)."""
    weights = convert_to_tensor(weights)
    w_rank, v_rank = weights.shape.ndims, values.shape.ndims
    if w_rank == 0:
        return weights
    if w_rank is None or v_rank is None:
        raise NotImplementedError("devlab's tf.metrics need weights of known rank")
    if w_rank - v_rank == 1:
        return array_ops.squeeze(weights, [-1])
    if v_rank - w_rank == 1:
        return array_ops.expand_dims(weights, [-1])
    return weights


def mean(values, weights=None, metrics_collections=None, updates_collections=None, name=None):
    """(the running mean of every value seen, the op that adds a batch and returns it)."""
    with variable_scope(name, "mean", (values, weights)):
        values = array_ops.cast(values, dtypes.float32)
        total = metric_variable([], dtypes.float32, name="total")
        count = metric_variable([], dtypes.float32, name="count")
        if weights is None:
            num_values = array_ops.cast(array_ops.size(values), dtypes.float32)
        else:
            weights = _weights_like(values, weights)
            weights = _broadcast_weights(array_ops.cast(weights, dtypes.float32), values)
            values = math_ops.multiply(values, weights)
            num_values = math_ops.reduce_sum(weights)
        update_total_op = state_ops.assign_add(total, math_ops.reduce_sum(values))
        with control_dependencies([values]):
            update_count_op = state_ops.assign_add(count, num_values)
        mean_t = math_ops.div_no_nan(total, math_ops.maximum(count, 0), name="value")
        if metrics_collections:
            get_default_graph().add_to_collections(metrics_collections, mean_t)
        update_op = math_ops.div_no_nan(update_total_op, math_ops.maximum(update_count_op, 0), name="update_op")
        if updates_collections:
            get_default_graph().add_to_collections(updates_collections, update_op)
        return mean_t, update_op


def accuracy(labels, predictions, weights=None, metrics_collections=None, updates_collections=None, name=None):
    """(the fraction of predictions equal to their labels so far, the op that adds a batch):
    the mean of cast(equal(predictions, labels), float32)."""
    labels, predictions = _squeezable(predictions, labels)
    _compatible(predictions, labels)
    if labels.dtype.base_dtype != predictions.dtype.base_dtype:
        predictions = array_ops.cast(predictions, labels.dtype.base_dtype)
    is_correct = array_ops.cast(math_ops.equal(predictions, labels), dtypes.float32)
    return mean(is_correct, weights, metrics_collections, updates_collections, name or "accuracy")
