"""``tf.metrics``: streaming metrics kept in local variables (``mean``, ``accuracy``, ``precision``,
``recall`` and the counts they are made of)."""
from .ops.metrics_impl import (accuracy, false_negatives, false_positives, mean, precision, recall,  # noqa: F401
                               true_positives)
from .unimplemented import module_getattr

__getattr__ = module_getattr("tf.metrics", __name__)
