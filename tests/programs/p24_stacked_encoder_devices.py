"""A GNMT-style encoder and decoder spread over devices: a bidirectional first layer, residual layers round-robin over the towers through DeviceWrapper, gradients colocated and clipped.

In the style of the nmt tutorial's GNMT model helpers (public), written for devlab; no code
copied. Patterns: source and target embeddings on ``/cpu:0``; a cell factory (``LSTMCell``,
``DropoutWrapper``, ``ResidualWrapper`` from a given layer on, ``DeviceWrapper`` with the device
chosen as ``towers[(layer + base) % len(towers)]``); the encoder's first layer a
``bidirectional_dynamic_rnn`` with ``sequence_length`` whose outputs are ``concat``-ed, the
other layers a ``MultiRNNCell`` unrolled by ``dynamic_rnn`` from the second device on; the
decoder a ``MultiRNNCell`` started from the encoder's states (the forward state of the
bidirectional layer, then the unidirectional layers'), an output projection
``layers.Dense(use_bias=False)``, a masked cross-entropy (``sequence_mask``), ``tf.gradients``
with ``colocate_gradients_with_ops=True``, ``clip_by_global_norm`` and SGD. Weights come
from a deterministic scope initializer: values are compared.
"""
import numpy as np

src_vocab, tgt_vocab, units = 9, 10, 5
batch, src_len, tgt_len = 2, 4, 3
encoder_layers, residual_from = 3, 2


def build(tf, towers=('/cpu:1', '/cpu:2'), keep_prob=1.0):
    def deterministic(shape, dtype=None, partition_info=None):
        n = int(np.prod(shape))
        return tf.constant(0.2 * np.sin(np.arange(n) * 1.3 + 0.5).reshape(shape).astype(np.float32))

    def make_cell(layer, base, residual=False):
        cell = tf.nn.rnn_cell.LSTMCell(units)
        if keep_prob < 1.0:
            cell = tf.nn.rnn_cell.DropoutWrapper(cell, input_keep_prob=keep_prob)
        if residual:
            cell = tf.nn.rnn_cell.ResidualWrapper(cell)
        return tf.nn.rnn_cell.DeviceWrapper(cell, towers[(layer + base) % len(towers)])

    rng = np.random.RandomState(2)
    src = rng.randint(0, src_vocab, (batch, src_len)).astype(np.int32)
    tgt_in = rng.randint(0, tgt_vocab, (batch, tgt_len)).astype(np.int32)
    tgt_out = rng.randint(0, tgt_vocab, (batch, tgt_len)).astype(np.int32)

    with tf.variable_scope('seq2seq', initializer=deterministic):
        with tf.device('/cpu:0'), tf.variable_scope('embeddings'):
            src_table = tf.get_variable('src', [src_vocab, units])
            tgt_table = tf.get_variable('tgt', [tgt_vocab, units])
        src_lengths = tf.constant([4, 3], name='src_lengths')
        tgt_lengths = tf.constant([3, 2], name='tgt_lengths')

        with tf.variable_scope('encoder'):
            emb = tf.nn.embedding_lookup(src_table, src)
            (out_fw, out_bw), (state_fw, _) = tf.nn.bidirectional_dynamic_rnn(
                make_cell(0, 0), make_cell(0, 1), emb, sequence_length=src_lengths, dtype=tf.float32)
            bi_out = tf.concat([out_fw, out_bw], -1)
            upper = tf.nn.rnn_cell.MultiRNNCell(
                [make_cell(i, 1, residual=i + 1 >= residual_from) for i in range(encoder_layers - 1)])
            enc_out, upper_states = tf.nn.dynamic_rnn(upper, bi_out, sequence_length=src_lengths, dtype=tf.float32)
            enc_state = (state_fw,) + tuple(upper_states)

        with tf.variable_scope('decoder'):
            dec_cell = tf.nn.rnn_cell.MultiRNNCell(
                [make_cell(i, 0, residual=i >= residual_from) for i in range(encoder_layers)])
            dec_emb = tf.nn.embedding_lookup(tgt_table, tgt_in)
            dec_out, _ = tf.nn.dynamic_rnn(dec_cell, dec_emb, initial_state=enc_state,
                                           sequence_length=tgt_lengths)
            projection = tf.layers.Dense(tgt_vocab, use_bias=False, name='output_projection')
            logits = projection(dec_out)

        xent = tf.nn.sparse_softmax_cross_entropy_with_logits(labels=tgt_out, logits=logits)
        mask = tf.sequence_mask(tgt_lengths, tgt_len, dtype=tf.float32)
        loss = tf.reduce_sum(xent * mask) / batch

    params = tf.trainable_variables()
    grads = tf.gradients(loss, params, colocate_gradients_with_ops=True)
    clipped, norm = tf.clip_by_global_norm(grads, 5.0)
    train_op = tf.train.GradientDescentOptimizer(0.5).apply_gradients(zip(clipped, params))
    fetch = {"loss": loss, "grad_norm": norm, "encoder_output": enc_out,
             "projection": projection.kernel}
    return {"train": train_op, "steps": 2, "fetch": fetch}


VARIANTS = {
    "cpu": {"kwargs": {}, "config": {"device_count": {"CPU": 3}},
            "note": "layers round-robin over /cpu:1 and /cpu:2 standing in for GPUs, embeddings on /cpu:0"},
    "dropout": {"kwargs": {"keep_prob": 0.8}, "config": {"device_count": {"CPU": 3}},
                "record": ["ops", "placed"],
                "note": "DropoutWrapper inside the DeviceWrapper: TF fails to run it (the colocated gradient of a "
                        "dropout Mul inside the while loop cannot merge two devices); the error is the fact"},
    "gpu": {"kwargs": {"towers": ('/gpu:0', '/gpu:1')}, "execute": False,
            "note": "the GPU program as written: built only"},
}
