"""``tf.losses``: losses reduced with weights, added to the LOSSES collection."""
from .api.losses import huber_loss, sigmoid_cross_entropy  # noqa: F401
from .api.losses import (Reduction, absolute_difference, add_loss, compute_weighted_loss,  # noqa: F401
                         get_losses, get_regularization_loss, get_regularization_losses, get_total_loss,
                         mean_squared_error, softmax_cross_entropy, sparse_softmax_cross_entropy)
from .unimplemented import module_getattr  # noqa: E402

__getattr__ = module_getattr("tf.losses", __name__)
