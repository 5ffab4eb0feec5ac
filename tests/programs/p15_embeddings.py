"""A bag-of-words classifier trained on two towers, its embedding table pinned to the CPU: the
classic TF1 embedding program.

The table lives on ``/cpu:0`` (``tf.device('/cpu:0')`` around ``tf.get_variable``, as TF1 code
did because the GPU had no sparse update kernels); each tower looks up the words of its half of
the batch with ``tf.nn.embedding_lookup`` (the ``GatherV2`` runs beside the table, so only the
rows looked up travel to the tower), averages them over the sentence, and classifies with a
dense layer. The gradient of the table is an ``IndexedSlices``: with one loss over both towers
the two towers' slices are concatenated and the optimizer updates only the rows looked up
(``Unique`` + ``UnsortedSegmentSum`` then ``SparseApplyAdagrad``/``SparseApplyMomentum``, or one
``ScatterSub`` for gradient descent), all beside the table. The ``dense_average`` variant
averages per-tower gradients the cifar10_multi_gpu way (``expand_dims``/``concat``/
``reduce_mean``), which turns the slices dense (``UnsortedSegmentSum``). The ``partitioned``
variant makes the table a partitioned variable (``fixed_size_partitioner``): three shards, each
looked up beside itself and updated on its own.
"""
import numpy as np

VOCAB, DIM, CLASSES = 12, 4, 3
BATCH_SIZE, WORDS = 6, 5


def build(tf, devices=('/cpu:1', '/cpu:2'), optimizer="adagrad", dense_average=False, shards=None):
    rng = np.random.RandomState(3)
    with tf.device('/cpu:0'):
        values = rng.uniform(-1, 1, (VOCAB, DIM)).astype(np.float32)
        if shards:  # a partitioned variable: embeddings/part_0, part_1, ... each a block of rows
            table = tf.get_variable('embeddings', [VOCAB, DIM], initializer=values,
                                    partitioner=tf.fixed_size_partitioner(shards))
        else:
            table = tf.get_variable('embeddings', [VOCAB, DIM], initializer=tf.constant_initializer(values))
        w = tf.get_variable('softmax_w', [DIM, CLASSES], initializer=tf.constant_initializer(
            rng.uniform(-0.5, 0.5, (DIM, CLASSES)).astype(np.float32)))
        b = tf.get_variable('softmax_b', [CLASSES], initializer=tf.zeros_initializer())
        global_step = tf.train.get_or_create_global_step()
        words = tf.placeholder(tf.int32, [BATCH_SIZE, WORDS], name='words')
        labels = tf.placeholder(tf.int64, [BATCH_SIZE], name='labels')
        word_batches = tf.split(words, len(devices))
        label_batches = tf.split(labels, len(devices))
    if optimizer == "adagrad":
        opt = tf.train.AdagradOptimizer(0.5)
    elif optimizer == "momentum":
        opt = tf.train.MomentumOptimizer(0.2, 0.9)
    else:
        opt = tf.train.GradientDescentOptimizer(0.5)

    losses, tower_grads = [], []
    for i, dev in enumerate(devices):
        with tf.device(dev), tf.name_scope('tower_%d' % i):
            embedded = tf.nn.embedding_lookup(table, word_batches[i])
            sentence = tf.reduce_mean(embedded, axis=1)
            logits = tf.matmul(sentence, w) + b
            loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(
                labels=label_batches[i], logits=logits))
            losses.append(loss)
            if dense_average:
                tower_grads.append(opt.compute_gradients(loss))

    with tf.device('/cpu:0'):
        total_loss = tf.add_n(losses) / len(devices)
        if dense_average:
            averaged = []
            for grad_and_vars in zip(*tower_grads):
                grads = [tf.expand_dims(g, 0) for g, _ in grad_and_vars]
                averaged.append((tf.reduce_mean(tf.concat(axis=0, values=grads), 0), grad_and_vars[0][1]))
            train_op = opt.apply_gradients(averaged, global_step=global_step)
        else:
            train_op = opt.minimize(total_loss, global_step=global_step)

    r = np.random.RandomState(8)
    feed = {words: r.randint(0, VOCAB - 2, (BATCH_SIZE, WORDS)).astype(np.int32),  # the last two words never occur
            labels: r.randint(0, CLASSES, BATCH_SIZE).astype(np.int64)}
    fetch = {"total_loss": total_loss, "embeddings": tf.convert_to_tensor(table), "softmax_w": w,
             "global_step": global_step}
    return {"train": train_op, "steps": 3, "feed": feed, "fetch": fetch}


VARIANTS = {
    "adagrad": {"config": {"device_count": {"CPU": 3}},
                "note": "towers on /cpu:1 and /cpu:2 standing in for GPUs; sparse Adagrad on the table"},
    "momentum": {"kwargs": {"optimizer": "momentum"}, "config": {"device_count": {"CPU": 3}},
                 "note": "SparseApplyMomentum: rows not looked up keep their momentum"},
    "sgd": {"kwargs": {"optimizer": "sgd"}, "config": {"device_count": {"CPU": 3}},
            "note": "gradient descent subtracts the scaled slices with one ScatterSub"},
    "dense_average": {"kwargs": {"optimizer": "sgd", "dense_average": True}, "config": {"device_count": {"CPU": 3}},
                      "note": "per-tower gradients averaged with expand_dims/concat/reduce_mean: made dense"},
    "partitioned": {"kwargs": {"shards": 3}, "config": {"device_count": {"CPU": 3}},
                    "note": "the table as a partitioned variable (fixed_size_partitioner(3)): three shards looked up "
                            "with DynamicPartition / ParallelDynamicStitch, each updated sparsely"},
    "gpu": {"kwargs": {"devices": ('/gpu:0', '/gpu:1')}, "config": {"allow_soft_placement": True},
            "record": ["ops", "placed"],
            "note": "the GPU program as written; placed with soft placement on a machine without GPUs"},
}
