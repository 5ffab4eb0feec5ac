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
from ..ops.build import convert_to_tensor
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
    predictions = convert_to_tensor(predictions)  # TF's caller converts the predictions first
    with name_scope(None, "remove_squeezable_dimensions", [labels, predictions]):
        labels = convert_to_tensor(labels)
        p_rank, l_rank = predictions.shape.ndims, labels.shape.ndims
        if p_rank is None or l_rank is None:
            raise NotImplementedError("devlab's tf.metrics need predictions and labels of known rank")
        if p_rank - l_rank == 1 and predictions.shape.sizes[-1] in (None, 1):
            predictions = array_ops.squeeze(predictions, [-1])
        elif p_rank - l_rank == -1 and labels.shape.sizes[-1] in (None, 1):
            labels = array_ops.squeeze(labels, [-1])
        return labels, predictions


def _remove_squeezable_dimensions(predictions, labels, weights):
    """TF's helper of the same name: labels and predictions to one rank (they must be compatible),
    then the weights to the predictions' rank."""
    labels, predictions = _squeezable(predictions, labels)
    _compatible(predictions, labels)
    return predictions, labels, None if weights is None else _weights_like(predictions, weights)


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
    predictions, labels, weights = _remove_squeezable_dimensions(predictions, labels, weights)
    if labels.dtype.base_dtype != predictions.dtype.base_dtype:
        predictions = array_ops.cast(predictions, labels.dtype.base_dtype)
    is_correct = array_ops.cast(math_ops.equal(predictions, labels), dtypes.float32)
    return mean(is_correct, weights, metrics_collections, updates_collections, name or "accuracy")


# -- counts of a condition, and precision and recall built from them ----------------------------------
def _no_weights(weights, what):
    if weights is not None:  # TF asserts the weights' rank at run time first (assert_rank_in)
        raise NotImplementedError(f"devlab's tf.metrics.{what} takes no weights yet")


def _as_bools(labels, predictions, weights):
    """Both cast to bool (predictions first, as TF's call evaluates them), squeezed to one rank."""
    predictions = array_ops.cast(predictions, dtypes.bool)
    labels = array_ops.cast(labels, dtypes.bool)
    labels, predictions = _squeezable(predictions, labels)
    _compatible(predictions, labels)
    return labels, predictions


def _count_condition(values, metrics_collections=None, updates_collections=None):
    """A local ``count`` of the true elements of ``values``: (its value, the op adding a batch)."""
    from .control_flow_ops import no_op
    if values.dtype.base_dtype != dtypes.bool:
        raise TypeError(f"{values.name} must be of type <dtype: 'bool'>; got <dtype: '{values.dtype.base_dtype.name}'>")
    with name_scope(None, "assert_type", [values]):  # TF's check leaves a NoOp when it passes statically
        no_op(name="statically_determined_correct_type")
    count = metric_variable([], dtypes.float32, name="count")
    values = array_ops.cast(values, dtypes.float32)
    value_tensor = array_ops.identity(count)  # the default strategy's read_var
    if metrics_collections:
        get_default_graph().add_to_collections(metrics_collections, value_tensor)
    update_op = state_ops.assign_add(count, math_ops.reduce_sum(values))
    if updates_collections:
        get_default_graph().add_to_collections(updates_collections, update_op)
    return value_tensor, update_op


def _condition_metric(default_name, label_value, prediction_value):
    def metric(labels, predictions, weights=None, metrics_collections=None, updates_collections=None, name=None):
        _no_weights(weights, default_name)
        with variable_scope(name, default_name, (predictions, labels, weights)):
            labels, predictions = _as_bools(labels, predictions, weights)
            hit = math_ops.logical_and(math_ops.equal(labels, label_value),
                                       math_ops.equal(predictions, prediction_value))
            return _count_condition(hit, metrics_collections, updates_collections)
    metric.__name__ = default_name
    metric.__doc__ = (f"(how many elements had label {label_value} and prediction {prediction_value} so far, "
                      "the op that counts a batch).")
    return metric


true_positives = _condition_metric("true_positives", True, True)
false_positives = _condition_metric("false_positives", False, True)
false_negatives = _condition_metric("false_negatives", True, False)


def _ratio_metric(default_name, other):
    """precision = tp / (tp + fp), recall = tp / (tp + fn); 0 while the denominator is 0."""
    def metric(labels, predictions, weights=None, metrics_collections=None, updates_collections=None, name=None):
        _no_weights(weights, default_name)
        with variable_scope(name, default_name, (predictions, labels, weights)):
            labels, predictions = _as_bools(labels, predictions, weights)
            tp, tp_update = true_positives(labels, predictions)
            wrong, wrong_update = other(labels, predictions)

            def ratio(a, b, op_name):
                return array_ops.where(math_ops.greater(a + b, 0), math_ops.divide(a, a + b), 0, op_name)
            value = ratio(tp, wrong, "value")
            if metrics_collections:
                get_default_graph().add_to_collections(metrics_collections, value)
            update_op = ratio(tp_update, wrong_update, "update_op")
            if updates_collections:
                get_default_graph().add_to_collections(updates_collections, update_op)
            return value, update_op
    metric.__name__ = default_name
    return metric


precision = _ratio_metric("precision", false_positives)
precision.__doc__ = "(true positives / all predicted positives so far, the op that adds a batch)."
recall = _ratio_metric("recall", false_negatives)
recall.__doc__ = "(true positives / all actual positives so far, the op that adds a batch)."


# -- regression errors: means of per-element errors ---------------------------------------------------
def mean_absolute_error(labels, predictions, weights=None, metrics_collections=None, updates_collections=None,
                        name=None):
    """(the running mean of |predictions - labels|, the op that adds a batch)."""
    predictions, labels, weights = _remove_squeezable_dimensions(predictions, labels, weights)
    return mean(math_ops.abs(predictions - labels), weights, metrics_collections, updates_collections,
                name or "mean_absolute_error")


def mean_squared_error(labels, predictions, weights=None, metrics_collections=None, updates_collections=None,
                       name=None):
    """(the running mean of (labels - predictions)², the op that adds a batch)."""
    predictions, labels, weights = _remove_squeezable_dimensions(predictions, labels, weights)
    return mean(math_ops.squared_difference(labels, predictions), weights, metrics_collections, updates_collections,
                name or "mean_squared_error")


def root_mean_squared_error(labels, predictions, weights=None, metrics_collections=None, updates_collections=None,
                            name=None):
    """(sqrt of the running mean squared error, the op that adds a batch): the Sqrt is outside the
    mean's scope, as TF builds it."""
    predictions, labels, weights = _remove_squeezable_dimensions(predictions, labels, weights)
    mse, update_mse_op = mean_squared_error(labels, predictions, weights, None, None, name or "root_mean_squared_error")
    rmse = math_ops.sqrt(mse)
    if metrics_collections:
        get_default_graph().add_to_collections(metrics_collections, rmse)
    update_rmse_op = math_ops.sqrt(update_mse_op)
    if updates_collections:
        get_default_graph().add_to_collections(updates_collections, update_rmse_op)
    return rmse, update_rmse_op
