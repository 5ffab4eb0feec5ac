"""``tf.nn``: activations, convolution and pooling, dropout, losses and recurrent networks."""
from .unimplemented import Namespace, module_getattr
from .api.candidate_sampling_ops import (compute_accidental_hits, log_uniform_candidate_sampler,  # noqa: F401
                                         uniform_candidate_sampler)
from .api.embedding_ops import embedding_lookup  # noqa: F401
from .api.embedding_sparse import embedding_lookup_sparse, safe_embedding_lookup_sparse  # noqa: F401
from .api.math_ops import sigmoid, tanh  # noqa: F401
from .api.nn_impl import (batch_normalization, dropout, fused_batch_norm, moments, xw_plus_b,  # noqa: F401
                          zero_fraction)
from .api.nn_ops import (avg_pool, bias_add, conv2d, convolution, l2_loss, local_response_normalization,  # noqa: F401
                         log_softmax, lrn, max_pool, relu, softmax, softmax_cross_entropy_with_logits,
                         softmax_cross_entropy_with_logits_v2, sparse_softmax_cross_entropy_with_logits)
from .api.nn_ops import crelu, elu, in_top_k, leaky_relu, relu6, selu, softplus, softsign, top_k  # noqa: F401
from .api.nn_impl import l2_normalize, nce_loss, sampled_softmax_loss, sigmoid_cross_entropy_with_logits  # noqa: F401
from .api.rnn import dynamic_rnn, static_rnn  # noqa: F401
from .api.bidirectional_rnn import bidirectional_dynamic_rnn  # noqa: F401
from .api.rnn_cell import BasicLSTMCell, BasicRNNCell, GRUCell, LSTMCell, LSTMStateTuple
from .api.rnn_cell_base import LayerRNNCell, RNNCell
from .api.rnn_cell_wrappers import DeviceWrapper, DropoutWrapper, MultiRNNCell, ResidualWrapper

rnn_cell = Namespace("tf.nn.rnn_cell", RNNCell=RNNCell, LayerRNNCell=LayerRNNCell, BasicRNNCell=BasicRNNCell,
                     GRUCell=GRUCell, BasicLSTMCell=BasicLSTMCell, LSTMCell=LSTMCell, LSTMStateTuple=LSTMStateTuple,
                     MultiRNNCell=MultiRNNCell, DeviceWrapper=DeviceWrapper, DropoutWrapper=DropoutWrapper,
                     ResidualWrapper=ResidualWrapper)

__getattr__ = module_getattr("tf.nn", __name__)
