"""Skip-gram embeddings trained with NCE, the table and the NCE weights pinned to the CPU.

In the style of TensorFlow's word2vec_basic tutorial (public), written for devlab; no code
copied. Patterns: ``name_scope('inputs')`` placeholders, ``tf.device('/cpu:0')`` around the
embedding table (``embedding_lookup``) and the NCE weights and biases, ``tf.nn.nce_loss``
averaged with ``reduce_mean``, ``GradientDescentOptimizer(1.0).minimize``, the cosine
similarity of a few validation words against the L2-normalised table (``sqrt`` of
``reduce_sum(square, keepdims=True)``, ``matmul(transpose_b=True)``), ``summary.scalar`` and
``merge_all``. The ``fixed_samples`` variant passes ``sampled_values`` (the negative classes
and their expected counts) as constants, so the loss and the similarities after training are
compared; ``sampler`` lets ``nce_loss`` draw from its log-uniform sampler (placement only).
"""
import numpy as np

vocabulary_size = 16
embedding_size = 6
batch_size = 8
num_sampled = 4
valid_words = [1, 3, 5]


def skipgram_pairs():
    """(centre word, context word) pairs from a fixed little corpus, window 1."""
    rng = np.random.RandomState(7)
    corpus = rng.randint(0, vocabulary_size, 40)
    centres, contexts = [], []
    for i in range(1, len(corpus) - 1):
        for j in (i - 1, i + 1):
            centres.append(corpus[i])
            contexts.append(corpus[j])
    return np.array(centres[:batch_size], np.int32), np.array(contexts[:batch_size], np.int64)[:, None]


def build(tf, fixed_samples=True):
    rng = np.random.RandomState(11)
    with tf.name_scope('inputs'):
        centre_ids = tf.placeholder(tf.int32, shape=[batch_size], name='centre_ids')
        context_ids = tf.placeholder(tf.int64, shape=[batch_size, 1], name='context_ids')
        probe_ids = tf.constant(valid_words, dtype=tf.int32, name='probe_ids')

    # The lookup and the sampled logits run beside the table: keep all of it on the CPU.
    with tf.device('/cpu:0'):
        with tf.name_scope('embeddings'):
            table = tf.Variable(rng.uniform(-1, 1, (vocabulary_size, embedding_size)).astype(np.float32),
                                name='table')
            vectors = tf.nn.embedding_lookup(table, centre_ids)
        with tf.name_scope('nce'):
            nce_w = tf.Variable((rng.randn(vocabulary_size, embedding_size) / np.sqrt(embedding_size))
                                .astype(np.float32), name='nce_w')
            nce_b = tf.Variable(tf.zeros([vocabulary_size]), name='nce_b')

    sampled_values = None
    if fixed_samples:  # what a candidate sampler would return, fixed so values are comparable
        sampled_values = (tf.constant([2, 7, 9, 13], dtype=tf.int64),
                          tf.fill([batch_size, 1], 0.25),
                          tf.constant([0.3, 0.2, 0.15, 0.1]))
    with tf.name_scope('loss'):
        loss = tf.reduce_mean(tf.nn.nce_loss(weights=nce_w, biases=nce_b, labels=context_ids,
                                             inputs=vectors, num_sampled=num_sampled,
                                             num_classes=vocabulary_size, sampled_values=sampled_values))
    tf.summary.scalar('loss', loss)
    with tf.name_scope('optimizer'):
        train_op = tf.train.GradientDescentOptimizer(1.0).minimize(loss)

    length = tf.sqrt(tf.reduce_sum(tf.square(table), 1, keepdims=True))
    unit_table = table / length
    probes = tf.nn.embedding_lookup(unit_table, probe_ids)
    similarity = tf.matmul(probes, unit_table, transpose_b=True)
    merged = tf.summary.merge_all()

    centres, contexts = skipgram_pairs()
    spec = {"train": [train_op, merged], "steps": 3, "feed": {centre_ids: centres, context_ids: contexts}}
    if fixed_samples:
        spec["fetch"] = {"loss": loss, "similarity": similarity, "nce_b": nce_b}
    return spec


VARIANTS = {
    "fixed_samples": {"kwargs": {}, "config": {},
                      "note": "negative classes given through sampled_values: values compared"},
    "sampler": {"kwargs": {"fixed_samples": False}, "config": {}, "record": ["ops", "placed"],
                "note": "nce_loss's own log-uniform sampler: random negatives, placement only"},
}
