"""``tf.layers``: ``dense`` and ``batch_normalization``, built from variables and ops."""
from .core import dense  # noqa: F401
from .normalization import batch_normalization  # noqa: F401
