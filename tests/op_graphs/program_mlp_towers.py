# An MLP trained on two towers in the cifar10_multi_gpu_train style: variables made on the CPU (_variable_on_cpu) with L2 weight decay (tf.nn.l2_loss into the 'losses' collection), xw_plus_b, clip_by_value, an exponentially decaying learning rate, summaries, gradients averaged on the CPU.
rng = np.random.RandomState(7)


def _variable_on_cpu(name, shape, initializer):
    with tf.device("/cpu:0"):
        return tf.get_variable(name, shape, initializer=initializer)


def _variable_with_weight_decay(name, shape, wd):
    var = _variable_on_cpu(name, shape, tf.constant_initializer(rng.uniform(-0.5, 0.5, shape).astype(np.float32)))
    if wd is not None:
        weight_decay = tf.multiply(tf.nn.l2_loss(var), wd, name="weight_loss")
        tf.add_to_collection("losses", weight_decay)
    return var


def inference(x):
    with tf.variable_scope("hidden1"):
        weights = _variable_with_weight_decay("weights", [4, 8], wd=0.004)
        biases = _variable_on_cpu("biases", [8], tf.constant_initializer(0.1))
        hidden = tf.nn.relu(tf.nn.xw_plus_b(x, weights, biases), name="hidden")
        tf.summary.histogram("hidden1/activations", hidden)
    with tf.variable_scope("softmax_linear"):
        weights = _variable_with_weight_decay("weights", [8, 3], wd=None)
        biases = _variable_on_cpu("biases", [3], tf.constant_initializer(0.0))
        return tf.nn.xw_plus_b(hidden, weights, biases, name="logits")


def tower_loss(scope, x, labels):
    logits = inference(x)
    xent = tf.nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=logits, name="cross_entropy")
    tf.add_to_collection("losses", tf.reduce_mean(xent, name="cross_entropy_mean"))
    total = tf.add_n(tf.get_collection("losses", scope), name="total_loss")
    tf.summary.scalar("total_loss", total)
    return total


global_step = tf.train.get_or_create_global_step()
lr = tf.train.exponential_decay(0.5, global_step, 2, 0.5, staircase=True)
opt = tf.train.GradientDescentOptimizer(lr)
x = tf.constant(rng.uniform(-1, 1, (6, 4)).astype(np.float32), name="x")
y = tf.constant(rng.randint(0, 3, 6).astype(np.int32), name="y")
xs, ys = tf.split(x, 2), tf.split(y, 2)
tower_grads = []
for i in range(2):
    with tf.device("/cpu:%d" % (i + 1)):
        with tf.name_scope("tower_%d" % i) as scope:
            with tf.variable_scope("model", reuse=i > 0):
                loss = tower_loss(scope, xs[i], ys[i])
            grads = opt.compute_gradients(loss)
            tower_grads.append([(tf.clip_by_value(g, -1.0, 1.0), v) for g, v in grads])
with tf.device("/cpu:0"):
    averaged = []
    for grad_and_vars in zip(*tower_grads):
        grad = tf.reduce_mean(tf.concat([tf.expand_dims(g, 0) for g, _ in grad_and_vars], 0), 0)
        averaged.append((grad, grad_and_vars[0][1]))
    train_op = opt.apply_gradients(averaged, global_step=global_step)
summaries = tf.summary.merge_all()
CONFIG = {"device_count": {"CPU": 3}}
PRERUN = [train_op] * 3
FETCH = [loss, lr, global_step] + tf.trainable_variables()
