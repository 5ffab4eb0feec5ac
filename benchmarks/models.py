"""The real models of the models benchmark, written once against ``tf`` (TensorFlow's
``compat.v1`` or devlab): each function builds a graph and returns (graph, init, train, loss, feed).

- ``cnn_towers``: cifar10_multi_gpu_train's model, smaller: two 5x5x64 convolutions each with a
  3x3/2 max pool, then two dense layers; the batch split over ``/cpu:0`` and ``/cpu:1``, the
  variables on ``/cpu:0``, the towers' gradients averaged there.
- ``ptb_lm``: the PTB language model: an embedding on ``/cpu:0``, two ``LSTMCell``s through
  ``dynamic_rnn``, a softmax over the vocabulary, plain SGD.
- ``word2vec``: skip-gram with an embedding on the CPU, ``nce_loss`` and SGD (sparse updates).

The sizes are arguments so the tests can build the same programs small.
"""
import numpy as np


def cnn_towers(tf, batch=64, image=24, channels=64, hidden=384, classes=10, towers=2, seed=0,
               devices=None, variables="/cpu:0"):
    """``devices``: each tower's device (default ``/cpu:0``, ``/cpu:1``, ...); ``variables``: theirs."""
    devices = devices or [f"/cpu:{t}" for t in range(towers)]
    g = tf.Graph()
    with g.as_default():
        tf.set_random_seed(seed)
        with tf.device(variables):
            init = tf.truncated_normal_initializer(stddev=0.05, seed=seed)
            side = -(-(-(-image // 2)) // 2)  # two SAME pools of stride 2
            w1 = tf.get_variable("conv1/w", [5, 5, 3, channels], initializer=init)
            b1 = tf.get_variable("conv1/b", [channels], initializer=tf.zeros_initializer())
            w2 = tf.get_variable("conv2/w", [5, 5, channels, channels], initializer=init)
            b2 = tf.get_variable("conv2/b", [channels], initializer=tf.constant_initializer(0.1))
            w3 = tf.get_variable("dense1/w", [side * side * channels, hidden], initializer=init)
            b3 = tf.get_variable("dense1/b", [hidden], initializer=tf.constant_initializer(0.1))
            w4 = tf.get_variable("dense2/w", [hidden, classes], initializer=init)
            b4 = tf.get_variable("dense2/b", [classes], initializer=tf.zeros_initializer())
        opt = tf.train.GradientDescentOptimizer(0.1)
        per = batch // towers
        images, labels, tower_grads, losses = [], [], [], []
        for t in range(towers):
            with tf.device(devices[t]), tf.name_scope(f"tower_{t}"):
                x = tf.placeholder(tf.float32, [per, image, image, 3], name="images")
                y = tf.placeholder(tf.int32, [per], name="labels")
                h = tf.nn.relu(tf.nn.conv2d(x, w1, [1, 1, 1, 1], "SAME") + b1)
                h = tf.nn.max_pool(h, [1, 3, 3, 1], [1, 2, 2, 1], "SAME")
                h = tf.nn.relu(tf.nn.conv2d(h, w2, [1, 1, 1, 1], "SAME") + b2)
                h = tf.nn.max_pool(h, [1, 3, 3, 1], [1, 2, 2, 1], "SAME")
                h = tf.reshape(h, [per, -1])
                h = tf.nn.relu(tf.matmul(h, w3) + b3)
                logits = tf.matmul(h, w4) + b4
                loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=logits))
                tower_grads.append(opt.compute_gradients(loss))
                images.append(x)
                labels.append(y)
                losses.append(loss)
        with tf.device(variables):
            averaged = [(tf.add_n([g_ for g_, _ in pairs]) * (1.0 / towers), pairs[0][1]) for pairs in zip(*tower_grads)]
            train = opt.apply_gradients(averaged)
            loss = tf.add_n(losses) * (1.0 / towers)
        init_op = tf.global_variables_initializer()
    rng = np.random.default_rng(seed)
    feed = {}
    for x, y in zip(images, labels):
        feed[x] = rng.standard_normal(x.shape.as_list()).astype(np.float32)
        feed[y] = rng.integers(0, classes, y.shape.as_list()).astype(np.int32)
    return g, init_op, train, loss, feed


def ptb_lm(tf, batch=20, steps=20, vocab=2000, hidden=256, layers=2, seed=0):
    g = tf.Graph()
    with g.as_default():
        tf.set_random_seed(seed)
        init = tf.random_uniform_initializer(-0.1, 0.1, seed=seed)
        with tf.variable_scope("model", initializer=init):
            words = tf.placeholder(tf.int32, [batch, steps], name="words")
            targets = tf.placeholder(tf.int32, [batch, steps], name="targets")
            with tf.device("/cpu:0"):
                embedding = tf.get_variable("embedding", [vocab, hidden])
                inputs = tf.nn.embedding_lookup(embedding, words)
            cell = tf.nn.rnn_cell.MultiRNNCell([tf.nn.rnn_cell.LSTMCell(hidden) for _ in range(layers)])
            outputs, _ = tf.nn.dynamic_rnn(cell, inputs, dtype=tf.float32)
            w = tf.get_variable("softmax_w", [hidden, vocab])
            b = tf.get_variable("softmax_b", [vocab])
            logits = tf.matmul(tf.reshape(outputs, [-1, hidden]), w) + b
            loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(
                labels=tf.reshape(targets, [-1]), logits=logits))
            train = tf.train.GradientDescentOptimizer(1.0).minimize(loss)
        init_op = tf.global_variables_initializer()
    rng = np.random.default_rng(seed)
    feed = {words: rng.integers(0, vocab, (batch, steps)).astype(np.int32),
            targets: rng.integers(0, vocab, (batch, steps)).astype(np.int32)}
    return g, init_op, train, loss, feed


def word2vec(tf, batch=128, vocab=50000, size=128, sampled=64, seed=0):
    g = tf.Graph()
    with g.as_default():
        tf.set_random_seed(seed)
        inputs = tf.placeholder(tf.int32, [batch], name="inputs")
        labels = tf.placeholder(tf.int32, [batch, 1], name="labels")
        with tf.device("/cpu:0"):
            embeddings = tf.Variable(tf.random_uniform([vocab, size], -1.0, 1.0, seed=seed), name="embeddings")
            embed = tf.nn.embedding_lookup(embeddings, inputs)
            nce_w = tf.Variable(tf.truncated_normal([vocab, size], stddev=1.0 / size ** 0.5, seed=seed + 1), name="nce_w")
            nce_b = tf.Variable(tf.zeros([vocab]), name="nce_b")
        loss = tf.reduce_mean(tf.nn.nce_loss(weights=nce_w, biases=nce_b, labels=labels, inputs=embed,
                                             num_sampled=sampled, num_classes=vocab))
        train = tf.train.GradientDescentOptimizer(1.0).minimize(loss)
        init_op = tf.global_variables_initializer()
    rng = np.random.default_rng(seed)
    feed = {inputs: rng.integers(0, vocab, batch).astype(np.int32),
            labels: rng.integers(0, vocab, (batch, 1)).astype(np.int32)}
    return g, init_op, train, loss, feed


MODELS = {"cnn": cnn_towers, "lstm": ptb_lm, "word2vec": word2vec}
