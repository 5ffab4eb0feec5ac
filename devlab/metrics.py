"""``tf.metrics``: streaming metrics kept in local variables (``mean``, ``accuracy``, ``precision``,
``recall`` and the counts they are made of, mean absolute and (root) mean squared errors)."""
from .api.metrics_impl import (accuracy, false_negatives, false_positives, mean, mean_absolute_error,  # noqa: F401
                               mean_squared_error, precision, recall, root_mean_squared_error, true_positives)
from .unimplemented import module_getattr

__getattr__ = module_getattr("tf.metrics", __name__)
