"""``tf.losses``: per-example losses reduced to one number with weights, as TF's ``losses_impl``.

Every loss builds the same tail (``compute_weighted_loss``): the losses times the weights, summed
(``Sum``), divided by how many weights are non-zero (``num_present``) with ``DivNoNan`` named
``value``; all after a check that the weights broadcast to the losses (a NoOp named
``static_scalar_check_success`` when the weights are a scalar). The result is added to the
``LOSSES`` collection.
"""
from ..framework import dtypes
from ..framework.graph import get_default_graph
from ..framework.graph_keys import GraphKeys
from ..framework.scopes import control_dependencies, name_scope
from . import array_ops, math_ops, nn_ops
from ..ops.build import convert_to_tensor
from .nn_impl import sigmoid_cross_entropy_with_logits
from .control_flow_ops import no_op
from ..ops.tensor_util import constant_value


class Reduction:
    """How ``compute_weighted_loss`` reduces the weighted losses."""
    NONE = "none"
    SUM = "weighted_sum"
    SUM_OVER_BATCH_SIZE = "weighted_sum_over_batch_size"
    MEAN = "weighted_mean"
    SUM_BY_NONZERO_WEIGHTS = "weighted_sum_by_nonzero_weights"
    SUM_OVER_NONZERO_WEIGHTS = SUM_BY_NONZERO_WEIGHTS

    @classmethod
    def all(cls):
        return (cls.NONE, cls.SUM, cls.MEAN, cls.SUM_OVER_BATCH_SIZE, cls.SUM_OVER_NONZERO_WEIGHTS,
                cls.SUM_BY_NONZERO_WEIGHTS)

    @classmethod
    def validate(cls, key):
        if key not in cls.all():
            raise ValueError(f"Invalid Reduction Key {key}. Key should be one of {cls.all()}.")


# -- weights ---------------------------------------------------------------------------------------
def assert_broadcastable(weights, values):
    """The check that ``weights`` broadcast to ``values``: a NoOp when the shapes prove it while
    building, a ValueError when they disprove it. (TF asserts at run time when the shapes are only
    partly known; devlab then checks nothing and returns None.)"""
    with name_scope(None, "assert_broadcastable", (weights, values)):
        with name_scope(None, "weights", (weights,)) as scope:
            weights = convert_to_tensor(weights, name=scope)
            weights_shape = array_ops.shape(weights, name="shape")
            weights_rank = array_ops.rank(weights, name="rank")
        with name_scope(None, "values", (values,)) as scope:
            values = convert_to_tensor(values, name=scope)
            values_shape = array_ops.shape(values, name="shape")
            values_rank = array_ops.rank(values, name="rank")
        w_rank, v_rank = constant_value(weights_rank), constant_value(values_rank)
        if w_rank is None or v_rank is None:
            return None
        if w_rank == 0:
            return no_op(name="static_scalar_check_success")
        if w_rank != v_rank:
            raise ValueError(f"weights can not be broadcast to values. values.rank={v_rank}. weights.rank={w_rank}. "
                             f"values.shape={values.shape}. weights.shape={weights.shape}. Received "
                             f"weights={weights}, values={values}")
        w_shape, v_shape = constant_value(weights_shape), constant_value(values_shape)
        if w_shape is None or v_shape is None:
            return None
        for i, (w, v) in enumerate(zip(w_shape, v_shape)):
            if w not in (1, v):
                raise ValueError(f"weights can not be broadcast to values. Mismatch at dim {i}. values.shape="
                                 f"{v_shape}, weights.shape={w_shape}. Received weights={weights}, values={values}")
        return no_op(name="static_dims_check_success")


def _checked(weights, values):
    """control_dependencies on the broadcast check (none when it could not be built)."""
    check = assert_broadcastable(weights, values)
    return control_dependencies([check] if check is not None else [])


def broadcast_weights(weights, values):
    """``weights`` broadcast to the shape of ``values`` (a Mul by ones_like(values))."""
    with name_scope(None, "broadcast_weights", (weights, values)) as scope:
        values = convert_to_tensor(values, name="values")
        weights = convert_to_tensor(weights, dtype=values.dtype.base_dtype, name="weights")
        if weights.shape.is_fully_defined() and values.shape.is_fully_defined() and \
                weights.shape.is_compatible_with(values.shape):
            return weights
        with _checked(weights, values):
            return math_ops.multiply(weights, array_ops.ones_like(values), name=scope)


def _num_present(losses, weights):
    """How many losses have a non-zero weight."""
    with name_scope(None, "num_present", (losses, weights)) as scope:
        weights = array_ops.cast(weights, dtype=dtypes.float32)
        present = array_ops.where(math_ops.equal(weights, 0.0), array_ops.zeros_like(weights),
                                  array_ops.ones_like(weights))
        present = broadcast_weights(present, losses)
        return math_ops.reduce_sum(present, name=scope)


def _num_elements(losses):
    with name_scope(None, "num_elements", [losses]) as scope:
        return array_ops.cast(array_ops.size(losses, name=scope), dtype=losses.dtype.base_dtype)


def _safe_mean(losses, num_present):
    return math_ops.div_no_nan(math_ops.reduce_sum(losses), num_present, name="value")


def compute_weighted_loss(losses, weights=1.0, scope=None, loss_collection=GraphKeys.LOSSES,
                          reduction=Reduction.SUM_BY_NONZERO_WEIGHTS):
    """The weighted losses reduced as ``reduction`` says (by default: the sum over the number of
    non-zero weights), added to ``loss_collection``."""
    Reduction.validate(reduction)
    with name_scope(scope, "weighted_loss", (losses, weights)):
        with _checked(weights, losses):
            losses = convert_to_tensor(losses)
            input_dtype = losses.dtype.base_dtype
            losses = array_ops.cast(losses, dtype=dtypes.float32)
            weights = array_ops.cast(weights, dtype=dtypes.float32)
            weighted = math_ops.multiply(losses, weights)
            if reduction == Reduction.NONE:
                loss = weighted
            else:
                loss = math_ops.reduce_sum(weighted)
                if reduction == Reduction.MEAN:
                    loss = _safe_mean(loss, math_ops.reduce_sum(array_ops.ones_like(losses) * weights))
                elif reduction == Reduction.SUM_BY_NONZERO_WEIGHTS:
                    loss = _safe_mean(loss, _num_present(losses, weights))
                elif reduction == Reduction.SUM_OVER_BATCH_SIZE:
                    loss = _safe_mean(loss, _num_elements(losses))
            loss = array_ops.cast(loss, input_dtype)
            add_loss(loss, loss_collection)
            return loss


# -- the losses ------------------------------------------------------------------------------------
def _needs(value, what):
    if value is None:
        raise ValueError(f"Argument `{what}` must not be None.")


def absolute_difference(labels, predictions, weights=1.0, scope=None, loss_collection=GraphKeys.LOSSES,
                        reduction=Reduction.SUM_BY_NONZERO_WEIGHTS):
    """|predictions - labels|, weighted and reduced."""
    _needs(labels, "labels"), _needs(predictions, "predictions")
    with name_scope(scope, "absolute_difference", (predictions, labels, weights)) as scope:
        predictions = array_ops.cast(predictions, dtype=dtypes.float32)
        labels = array_ops.cast(labels, dtype=dtypes.float32)
        predictions.shape.merge_with(labels.shape)
        losses = math_ops.abs(math_ops.subtract(predictions, labels))
        return compute_weighted_loss(losses, weights, scope, loss_collection, reduction=reduction)


def mean_squared_error(labels, predictions, weights=1.0, scope=None, loss_collection=GraphKeys.LOSSES,
                       reduction=Reduction.SUM_BY_NONZERO_WEIGHTS):
    """(predictions - labels)², weighted and reduced."""
    _needs(labels, "labels"), _needs(predictions, "predictions")
    with name_scope(scope, "mean_squared_error", (predictions, labels, weights)) as scope:
        predictions = array_ops.cast(predictions, dtype=dtypes.float32)
        labels = array_ops.cast(labels, dtype=dtypes.float32)
        predictions.shape.merge_with(labels.shape)
        losses = math_ops.squared_difference(predictions, labels)
        return compute_weighted_loss(losses, weights, scope, loss_collection, reduction=reduction)


def softmax_cross_entropy(onehot_labels, logits, weights=1.0, label_smoothing=0, scope=None,
                          loss_collection=GraphKeys.LOSSES, reduction=Reduction.SUM_BY_NONZERO_WEIGHTS):
    """Softmax cross-entropy against one-hot (or smoothed) labels, weighted and reduced."""
    _needs(onehot_labels, "onehot_labels"), _needs(logits, "logits")
    with name_scope(scope, "softmax_cross_entropy_loss", (logits, onehot_labels, weights)) as scope:
        logits = convert_to_tensor(logits)
        onehot_labels = array_ops.cast(onehot_labels, logits.dtype.base_dtype)
        logits.shape.merge_with(onehot_labels.shape)
        if label_smoothing > 0:
            num_classes = array_ops.cast(array_ops.shape(onehot_labels)[-1], logits.dtype.base_dtype)
            onehot_labels = onehot_labels * (1.0 - label_smoothing) + label_smoothing / num_classes
        onehot_labels = array_ops.stop_gradient(onehot_labels, name="labels_stop_gradient")
        losses = nn_ops.softmax_cross_entropy_with_logits_v2(labels=onehot_labels, logits=logits, name="xentropy")
        return compute_weighted_loss(losses, weights, scope, loss_collection, reduction=reduction)


def sparse_softmax_cross_entropy(labels, logits, weights=1.0, scope=None, loss_collection=GraphKeys.LOSSES,
                                 reduction=Reduction.SUM_BY_NONZERO_WEIGHTS):
    """Softmax cross-entropy against integer class ids, weighted and reduced."""
    _needs(labels, "labels"), _needs(logits, "logits")
    with name_scope(scope, "sparse_softmax_cross_entropy_loss", (logits, labels, weights)) as scope:
        labels, logits, weights = _remove_squeezable_dimensions(labels, logits, weights)
        losses = nn_ops.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=logits, name="xentropy")
        return compute_weighted_loss(losses, weights, scope, loss_collection, reduction=reduction)


def _remove_squeezable_dimensions(labels, predictions, weights):
    """Drops a trailing dim of size 1 from labels [batch, 1] (or weights), as TF does with static ranks."""
    with name_scope(None, "remove_squeezable_dimensions", [labels, predictions]):
        predictions = convert_to_tensor(predictions)
        labels = convert_to_tensor(labels)
        p_rank, l_rank = predictions.shape.ndims, labels.shape.ndims
        if p_rank is not None and l_rank is not None:
            diff = p_rank - l_rank
            if diff == 2 and predictions.shape.sizes[-1] in (1, None):
                predictions = array_ops.squeeze(predictions, [-1])
            elif diff == 0 and labels.shape.sizes[-1] in (1, None):
                labels = array_ops.squeeze(labels, [-1])
    weights = convert_to_tensor(weights)
    if labels.shape.ndims is not None and weights.shape.ndims is not None and \
            weights.shape.ndims - labels.shape.ndims == 1:
        weights = array_ops.squeeze(weights, [-1])
    return labels, predictions, weights


# -- the collection ------------------------------------------------------------------------------
def add_loss(loss, loss_collection=GraphKeys.LOSSES):
    if loss_collection:
        get_default_graph().add_to_collection(loss_collection, loss)


def get_losses(scope=None, loss_collection=GraphKeys.LOSSES):
    return get_default_graph().get_collection(loss_collection, scope)


def get_regularization_losses(scope=None):
    return get_default_graph().get_collection(GraphKeys.REGULARIZATION_LOSSES, scope)


def get_regularization_loss(scope=None, name="total_regularization_loss"):
    losses = get_regularization_losses(scope)
    if losses:
        return math_ops.add_n(losses, name=name)
    return array_ops.constant(0.0)


def get_total_loss(add_regularization_losses=True, name="total_loss", scope=None):
    losses = get_losses(scope=scope)
    if add_regularization_losses:
        losses = losses + get_regularization_losses(scope=scope)
    return math_ops.add_n(losses, name=name)


def huber_loss(labels, predictions, weights=1.0, delta=1.0, scope=None, loss_collection=GraphKeys.LOSSES,
               reduction=Reduction.SUM_BY_NONZERO_WEIGHTS):
    """Squared error for errors up to ``delta``, linear beyond (robust to outliers; DQN's loss):
    0.5 * min(|e|, delta)² + delta * (|e| - min(|e|, delta)), weighted and reduced."""
    _needs(labels, "labels"), _needs(predictions, "predictions")
    with name_scope(scope, "huber_loss", (predictions, labels, weights)) as scope:
        predictions = array_ops.cast(predictions, dtype=dtypes.float32)
        labels = array_ops.cast(labels, dtype=dtypes.float32)
        predictions.shape.merge_with(labels.shape)
        abs_error = math_ops.abs(math_ops.subtract(predictions, labels))
        quadratic = math_ops.minimum(abs_error, delta)
        linear = math_ops.subtract(abs_error, quadratic)
        losses = math_ops.add(math_ops.multiply(convert_to_tensor(0.5, dtype=quadratic.dtype.base_dtype),
                                                math_ops.multiply(quadratic, quadratic)),
                              math_ops.multiply(delta, linear))
        return compute_weighted_loss(losses, weights, scope, loss_collection, reduction=reduction)


def sigmoid_cross_entropy(multi_class_labels, logits, weights=1.0, label_smoothing=0, scope=None,
                          loss_collection=GraphKeys.LOSSES, reduction=Reduction.SUM_BY_NONZERO_WEIGHTS):
    """tf.nn.sigmoid_cross_entropy_with_logits per element (labels smoothed towards 0.5 when
    ``label_smoothing``), weighted and reduced."""
    _needs(multi_class_labels, "multi_class_labels"), _needs(logits, "logits")
    with name_scope(scope, "sigmoid_cross_entropy_loss", (logits, multi_class_labels, weights)) as scope:
        logits = convert_to_tensor(logits)
        multi_class_labels = array_ops.cast(multi_class_labels, logits.dtype.base_dtype)
        logits.shape.merge_with(multi_class_labels.shape)
        if label_smoothing > 0:
            multi_class_labels = multi_class_labels * (1 - label_smoothing) + 0.5 * label_smoothing
        losses = sigmoid_cross_entropy_with_logits(labels=multi_class_labels, logits=logits, name="xentropy")
        return compute_weighted_loss(losses, weights, scope, loss_collection, reduction=reduction)
