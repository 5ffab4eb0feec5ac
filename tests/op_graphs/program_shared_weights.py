# Train and eval nets sharing weights: one model function called under variable_scope('model') and again with reuse=True; dense layers and batch normalization (training vs inference), UPDATE_OPS gating the train op, on /cpu:1.
rng = np.random.RandomState(3)


def fixed(*shape):
    return tf.constant_initializer(rng.uniform(-0.5, 0.5, size=shape).astype(np.float32))


W1, W2 = fixed(4, 8), fixed(8, 2)


def model(x, training):
    h = tf.layers.dense(x, 8, activation=tf.nn.relu, kernel_initializer=W1, name="hidden")
    h = tf.layers.batch_normalization(h, training=training, name="bn")
    return tf.layers.dense(h, 2, kernel_initializer=W2, name="logits")


x_train = tf.constant(rng.uniform(-1, 1, (6, 4)).astype(np.float32), name="x_train")
y_train = tf.constant(rng.randint(0, 2, 6).astype(np.int32), name="y_train")
x_eval = tf.constant(rng.uniform(-1, 1, (3, 4)).astype(np.float32), name="x_eval")
with tf.device("/cpu:1"):
    with tf.variable_scope("model"):
        train_logits = model(x_train, training=True)
    with tf.variable_scope("model", reuse=True):
        eval_logits = model(x_eval, training=False)
    loss = tf.losses.sparse_softmax_cross_entropy(labels=y_train, logits=train_logits)
    update_ops = tf.get_collection(tf.GraphKeys.UPDATE_OPS)
    with tf.control_dependencies(update_ops):
        train_op = tf.train.GradientDescentOptimizer(0.1).minimize(loss)
    prediction = tf.argmax(eval_logits, 1)
CONFIG = {"device_count": {"CPU": 2}}
PRERUN = [train_op] * 3
FETCH = [loss, eval_logits, prediction]
