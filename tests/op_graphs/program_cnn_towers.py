# A split-batch CNN over two towers (/cpu:1 and /cpu:2 standing in for GPUs): tf.split, tf.layers.conv2d + tf.nn.conv2d, pooling, flatten, dense, dropout; variables on /cpu:0 through a device function; gradients averaged on the CPU (expand_dims, concat, reduce_mean) and applied with Adam; a test net sharing the weights.
PS_OPS = ["Variable", "VariableV2", "AutoReloadVariable"]
rng = np.random.RandomState(42)


def fixed(*shape):
    return tf.constant_initializer(rng.uniform(-0.3, 0.3, size=shape).astype(np.float32))


K1, K2, K3, K4 = fixed(3, 3, 1, 4), fixed(3, 3, 4, 6), fixed(24, 16), fixed(16, 3)


def assign_to_device(device, ps_device="/cpu:0"):
    def _assign(op):
        node_def = op if isinstance(op, tf.NodeDef) else op.node_def
        return ps_device if node_def.op in PS_OPS else device
    return _assign


def conv_net(x, dropout, reuse, is_training):
    with tf.variable_scope("ConvNet", reuse=reuse):
        x = tf.reshape(x, shape=[-1, 8, 8, 1])
        conv1 = tf.layers.conv2d(x, 4, 3, activation=tf.nn.relu, padding="same", kernel_initializer=K1, name="conv1")
        conv1 = tf.layers.max_pooling2d(conv1, 2, 2, name="pool1")
        w2 = tf.get_variable("w2", [3, 3, 4, 6], initializer=K2)
        b2 = tf.get_variable("b2", [6], initializer=tf.constant_initializer(0.1))
        conv2 = tf.nn.relu(tf.nn.bias_add(tf.nn.conv2d(conv1, w2, strides=[1, 1, 1, 1], padding="SAME"), b2))
        conv2 = tf.nn.max_pool(conv2, ksize=[1, 2, 2, 1], strides=[1, 2, 2, 1], padding="SAME")
        fc1 = tf.layers.flatten(conv2, name="flat")
        fc1 = tf.layers.dense(fc1, 16, kernel_initializer=K3, name="fc1")
        fc1 = tf.layers.dropout(fc1, rate=dropout, training=is_training, name="drop")
        out = tf.layers.dense(fc1, 3, kernel_initializer=K4, name="out")
        return out if is_training else tf.nn.softmax(out)


def average_gradients(tower_grads):
    average_grads = []
    for grad_and_vars in zip(*tower_grads):
        grads = [tf.expand_dims(g, 0) for g, _ in grad_and_vars]
        grad = tf.reduce_mean(tf.concat(grads, 0), 0)
        average_grads.append((grad, grad_and_vars[0][1]))
    return average_grads


with tf.device("/cpu:0"):
    X = tf.placeholder(tf.float32, [None, 8, 8, 1], name="X")
    Y = tf.placeholder(tf.float32, [None, 3], name="Y")
    dropout = tf.placeholder_with_default(0.25, [], name="dropout_rate")
    images, labels = tf.split(X, 2), tf.split(Y, 2)
    optimizer = tf.train.AdamOptimizer(learning_rate=0.01)
    tower_grads, tower_losses = [], []
    for i in range(2):
        with tf.device(assign_to_device("/cpu:%d" % (i + 1))):
            with tf.name_scope("tower_%d" % i):
                logits = conv_net(images[i], dropout, reuse=i > 0, is_training=True)
                probs = conv_net(images[i], dropout, reuse=True, is_training=False)
                loss_op = tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits(logits=logits, labels=labels[i]))
                tower_grads.append(optimizer.compute_gradients(loss_op))
                tower_losses.append(loss_op)
                if i == 0:
                    correct = tf.equal(tf.argmax(probs, 1), tf.argmax(labels[i], 1))
                    accuracy = tf.reduce_mean(tf.cast(correct, tf.float32))
    train_op = optimizer.apply_gradients(average_gradients(tower_grads))
    loss = tf.reduce_mean(tower_losses)

data = np.random.RandomState(0)
x_value = data.rand(8, 8, 8, 1).astype(np.float32)
y_value = np.eye(3, dtype=np.float32)[data.randint(0, 3, 8)]
CONFIG = {"device_count": {"CPU": 3}}
FEED = {"X": x_value, "Y": y_value, "dropout_rate": 0.0}
PRERUN = [train_op] * 3
FETCH = [loss, accuracy] + [v for v in tf.trainable_variables() if "bias" in v.op.name]
