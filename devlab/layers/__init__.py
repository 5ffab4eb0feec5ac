"""``tf.layers``: ``dense``, ``conv2d``, pooling, ``dropout``, ``flatten`` and ``batch_normalization``,
built from variables and ops as TF's ``tf.layers`` builds them."""
from .convolutional import conv2d  # noqa: F401
from .core import Dense, dense, dropout, flatten  # noqa: F401
from .normalization import batch_normalization  # noqa: F401
from .pooling import average_pooling2d, max_pooling2d  # noqa: F401
from ..unimplemented import module_getattr

__getattr__ = module_getattr("tf.layers", __name__)
