"""A two-layer LSTM language model fed by a range_input_producer queue, gradients clipped by global norm.

In the style of the models repo's ptb_word_lm tutorial (public), written for devlab; no code
copied. Patterns: the reader's batching of one long id list (``reshape`` to
``[batch, len]``, ``range_input_producer(epochs, shuffle=False).dequeue()`` as the step index,
``strided_slice`` windows, ``set_shape``), the embedding table on ``/cpu:0``, a
``MultiRNNCell`` of two ``LSTMCell``\\ s unrolled by ``dynamic_rnn`` from ``zero_state``, the
final state fed back as the next step's initial state, ``sparse_softmax_cross_entropy`` summed
over the batch, a non-trainable learning-rate variable changed through a placeholder and
``assign``, ``clip_by_global_norm`` over ``tf.gradients`` of the trainable variables, SGD
``apply_gradients`` with the global step, and the queue runners started under a
``Coordinator``. The weights come from a deterministic initializer set on the variable scope,
so the costs are compared.
"""
import numpy as np

import harness

vocab, hidden, layers = 12, 5, 2
batch_size, num_steps = 2, 3
max_grad_norm = 1.0


def word_ids():
    return list(np.random.RandomState(5).randint(0, vocab, 26))


def run(tf, sess_config, model_device='/cpu:1'):
    def deterministic(shape, dtype=None, partition_info=None):  # same numbers under TF and devlab
        n = int(np.prod(shape))
        return tf.constant(0.1 * np.sin(np.arange(1, n + 1)).reshape(shape).astype(np.float32))

    # The reader: windows of num_steps ids, one per dequeued step index.
    with tf.name_scope('reader'):
        raw = tf.convert_to_tensor(word_ids(), name='raw_ids', dtype=tf.int32)
        batch_len = len(word_ids()) // batch_size
        data = tf.reshape(raw[:batch_size * batch_len], [batch_size, batch_len])
        steps_per_epoch = (batch_len - 1) // num_steps
        i = tf.train.range_input_producer(steps_per_epoch, shuffle=False).dequeue()
        inputs = tf.strided_slice(data, [0, i * num_steps], [batch_size, (i + 1) * num_steps])
        inputs.set_shape([batch_size, num_steps])
        targets = tf.strided_slice(data, [0, i * num_steps + 1], [batch_size, (i + 1) * num_steps + 1])
        targets.set_shape([batch_size, num_steps])

    with tf.variable_scope('lm', initializer=deterministic):
        with tf.device('/cpu:0'):
            table = tf.get_variable('embedding', [vocab, hidden])
            embedded = tf.nn.embedding_lookup(table, inputs)
        with tf.device(model_device):
            cell = tf.nn.rnn_cell.MultiRNNCell([tf.nn.rnn_cell.LSTMCell(hidden) for _ in range(layers)])
            start_state = cell.zero_state(batch_size, tf.float32)
            outputs, end_state = tf.nn.dynamic_rnn(cell, embedded, initial_state=start_state)
            flat = tf.reshape(outputs, [-1, hidden])
            out_w = tf.get_variable('out_w', [hidden, vocab])
            out_b = tf.get_variable('out_b', [vocab])
            logits = tf.matmul(flat, out_w) + out_b
            losses = tf.nn.sparse_softmax_cross_entropy_with_logits(labels=tf.reshape(targets, [-1]),
                                                                    logits=logits)
            cost = tf.reduce_sum(losses) / batch_size

    lr = tf.Variable(0.0, trainable=False, name='lr')
    lr_value = tf.placeholder(tf.float32, [], name='lr_value')
    set_lr = tf.assign(lr, lr_value)
    params = tf.trainable_variables()
    grads, global_norm = tf.clip_by_global_norm(tf.gradients(cost, params), max_grad_norm)
    train_op = tf.train.GradientDescentOptimizer(lr).apply_gradients(
        zip(grads, params), global_step=tf.train.get_or_create_global_step())

    costs = []
    with tf.Session(config=sess_config) as sess:
        harness.traced_run(tf, sess, tf.global_variables_initializer())
        coord = tf.train.Coordinator()
        threads = tf.train.start_queue_runners(sess=sess, coord=coord)
        harness.traced_run(tf, sess, set_lr, {lr_value: 0.5})
        state = sess.run(start_state)
        for _ in range(2 * steps_per_epoch):
            feed = {}
            for layer, (c, h) in enumerate(start_state):
                feed[c], feed[h] = state[layer].c, state[layer].h
            step_cost, norm, state, _ = harness.traced_run(tf, sess, [cost, global_norm, end_state, train_op], feed)
            costs.append([step_cost, norm])
        final_lr = sess.run(lr)
        coord.request_stop()
        coord.join(threads)
    return {"costs": costs, "lr": final_lr}


VARIANTS = {
    "cpu": {"config": {"device_count": {"CPU": 2}},
            "note": "embedding on /cpu:0, the LSTM stack and softmax on /cpu:1 standing in for a GPU"},
}
