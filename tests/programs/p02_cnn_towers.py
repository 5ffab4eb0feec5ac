"""Split-batch CNN towers: variables on the CPU through a device function, gradients averaged on the CPU.

The canonical in-graph multi-GPU program of the TF1 era (TensorFlow-Examples'
``multigpu_cnn.py``, the models repo's ``cifar10_multi_gpu_train.py``): the batch is
``tf.split`` across towers, each tower runs a small CNN (``tf.layers.conv2d`` and
``tf.nn.conv2d``, ``max_pooling2d``/``max_pool``, ``flatten``, ``dense``, ``dropout``) inside
``tf.name_scope('tower_%d')`` and ``tf.variable_scope(tf.get_variable_scope(), reuse=i > 0)``,
with a device function (``assign_to_device`` over ``PS_OPS``) that puts the variables on the
CPU; the towers' gradients are averaged on the CPU (``expand_dims`` + ``concat`` +
``reduce_mean``) and applied with Adam. The dropout rate is a ``placeholder_with_default``
fed 0.0 while recording, so the graph is the real dropout graph and the values do not
depend on TensorFlow's random numbers. Weights start from fixed numpy values.
"""
import numpy as np

PS_OPS = ['Variable', 'VariableV2', 'AutoReloadVariable']

num_classes = 3
batch_size = 8
learning_rate = 0.01


def data():
    rng = np.random.RandomState(0)
    x = rng.rand(batch_size, 8, 8, 1).astype(np.float32)
    y = np.eye(num_classes, dtype=np.float32)[rng.randint(0, num_classes, batch_size)]
    return x, y


def build(tf, devices=('/cpu:1', '/cpu:2'), ps_device='/cpu:0', ps_prefix='', average_on='/cpu:0'):
    rng = np.random.RandomState(42)

    def fixed(*shape):  # fixed numbers instead of a random initializer
        return tf.constant_initializer(rng.uniform(-0.3, 0.3, size=shape).astype(np.float32))

    # By default, all variables will be placed on the tower's device;
    # a custom device function assigns all variables to the CPU.
    def assign_to_device(device, ps_device='/cpu:0'):
        def _assign(op):
            node_def = op if isinstance(op, tf.NodeDef) else op.node_def
            if node_def.op in PS_OPS:
                return ps_prefix + ps_device
            else:
                return device
        return _assign

    # Create model
    def conv_net(x, n_classes, dropout, reuse, is_training):
        with tf.variable_scope('ConvNet', reuse=reuse):
            x = tf.reshape(x, shape=[-1, 8, 8, 1])
            # Convolution Layer with 4 filters and a kernel size of 3
            conv1 = tf.layers.conv2d(x, 4, 3, activation=tf.nn.relu, padding='same',
                                     kernel_initializer=fixed(3, 3, 1, 4))
            conv1 = tf.layers.max_pooling2d(conv1, 2, 2)
            # The same with the low-level API: get_variable, conv2d, bias_add, max_pool
            w2 = tf.get_variable('w2', [3, 3, 4, 6], initializer=fixed(3, 3, 4, 6))
            b2 = tf.get_variable('b2', [6], initializer=tf.constant_initializer(0.1))
            conv2 = tf.nn.conv2d(conv1, w2, strides=[1, 1, 1, 1], padding='SAME')
            conv2 = tf.nn.relu(tf.nn.bias_add(conv2, b2))
            conv2 = tf.nn.max_pool(conv2, ksize=[1, 2, 2, 1], strides=[1, 2, 2, 1], padding='SAME')
            # Flatten the data to a 1-D vector for the fully connected layer
            fc1 = tf.layers.flatten(conv2)
            fc1 = tf.layers.dense(fc1, 16, kernel_initializer=fixed(24, 16))
            fc1 = tf.layers.dropout(fc1, rate=dropout, training=is_training)
            out = tf.layers.dense(fc1, n_classes, kernel_initializer=fixed(16, n_classes))
            # Because 'softmax_cross_entropy_with_logits' already applies softmax,
            # we only apply softmax to testing network
            out = tf.nn.softmax(out) if not is_training else out
        return out

    # Build the function to average the gradients
    def average_gradients(tower_grads):
        average_grads = []
        for grad_and_vars in zip(*tower_grads):
            # Note that each grad_and_vars looks like the following:
            #   ((grad0_gpu0, var0_gpu0), ... , (grad0_gpuN, var0_gpuN))
            grads = []
            for g, _ in grad_and_vars:
                # Add 0 dimension to the gradients to represent the tower.
                expanded_g = tf.expand_dims(g, 0)
                # Append on a 'tower' dimension which we will average over below.
                grads.append(expanded_g)
            # Average over the 'tower' dimension.
            grad = tf.concat(grads, 0)
            grad = tf.reduce_mean(grad, 0)
            # The Variables are redundant because they are shared across towers,
            # so we just return the first tower's pointer to the Variable.
            v = grad_and_vars[0][1]
            grad_and_var = (grad, v)
            average_grads.append(grad_and_var)
        return average_grads

    num_gpus = len(devices)
    # Place all ops on CPU by default
    with tf.device('/cpu:0'):
        tower_grads = []
        tower_losses = []

        # tf Graph input
        X = tf.placeholder(tf.float32, [None, 8, 8, 1])
        Y = tf.placeholder(tf.float32, [None, num_classes])
        dropout = tf.placeholder_with_default(0.25, [], name='dropout_rate')

        images = tf.split(X, num_gpus)
        labels = tf.split(Y, num_gpus)
        optimizer = tf.train.AdamOptimizer(learning_rate=learning_rate)

        # Loop over all GPUs and construct their own computation graph
        for i in range(num_gpus):
            with tf.device(assign_to_device(devices[i], ps_device=ps_device)):
                with tf.name_scope('tower_%d' % i):
                    with tf.variable_scope(tf.get_variable_scope(), reuse=i > 0):
                        # Because Dropout have different behavior at training and prediction time, we
                        # need to create 2 distinct computation graphs that share the same weights.
                        logits_train = conv_net(images[i], num_classes, dropout, reuse=i > 0, is_training=True)
                        logits_test = conv_net(images[i], num_classes, dropout, reuse=True, is_training=False)

                        # Define loss and optimizer (with train logits, for dropout to take effect)
                        loss_op = tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits(
                            logits=logits_train, labels=labels[i]))
                        grads = optimizer.compute_gradients(loss_op)

                        # Only first GPU compute accuracy
                        if i == 0:
                            # Evaluate model (with test logits, for dropout to be disabled)
                            correct_pred = tf.equal(tf.argmax(logits_test, 1), tf.argmax(labels[i], 1))
                            accuracy = tf.reduce_mean(tf.cast(correct_pred, tf.float32))

                        tower_grads.append(grads)
                        tower_losses.append(loss_op)

        with tf.device(average_on):  # '/cpu:0' as written; the doctor's tests average on a GPU
            tower_grads = average_gradients(tower_grads)
        train_op = optimizer.apply_gradients(tower_grads)
        loss = tf.reduce_mean(tower_losses)

    x, y = data()
    fetch = {"loss": loss, "accuracy": accuracy}
    fetch.update({v.op.name: v for v in tf.trainable_variables() if 'bias' in v.op.name or v.op.name.endswith('b2')})
    return {"train": train_op, "steps": 3, "feed": {X: x, Y: y, dropout: 0.0}, "fetch": fetch}


VARIANTS = {
    "cpu": {"kwargs": {}, "config": {"device_count": {"CPU": 3}},
            "note": "towers on /cpu:1 and /cpu:2 standing in for GPUs, variables on /cpu:0"},
    "gpu": {"kwargs": {"devices": ('/gpu:0', '/gpu:1')}, "config": {"allow_soft_placement": True},
            "record": ["ops", "placed"],
            "note": "the GPU program as written; placed with soft placement on a machine without GPUs"},
    "double_slash": {"kwargs": {"ps_prefix": "/"}, "execute": False,
                     "note": "the public code's `return \"/\" + ps_device` returns '//cpu:0'; the outer "
                             "tf.device('/cpu:0') merges it into '/device:CPU:0', so the program works"},
}
