"""``tf.metrics``: streaming metrics kept in local variables (``mean``, ``accuracy``)."""
from .ops.metrics_impl import accuracy, mean  # noqa: F401
from .unimplemented import module_getattr

__getattr__ = module_getattr("tf.metrics", __name__)
