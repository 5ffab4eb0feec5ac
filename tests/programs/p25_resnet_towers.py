"""Residual-network towers under a local device setter, each gradient averaged on its variable's device, Momentum applied on the consolidation device.

In the style of the models repo's cifar10_estimator ResNet towers (public), written for
devlab; no code copied. Patterns: a device-function class (a ``local_device_setter``)
sending variable ops round-robin to the parameter devices and the rest to the tower's device;
towers under ``variable_scope('net', reuse=bool(i != 0))``, ``name_scope('tower_%d')`` and
``tf.device(setter)``; a small residual net (``layers.conv2d`` without bias,
``layers.batch_normalization(training=True)``, identity shortcut, ``reduce_mean`` global
pooling, ``layers.dense``); weight decay over the tower's trainable variables
(``l2_loss``/``add_n``); ``tf.gradients`` per tower; each variable's gradients averaged with
``add_n``/``multiply`` under ``tf.device(var.device)``; ``piecewise_constant`` on the global
step; ``MomentumOptimizer`` on the consolidation device; the first tower's ``UPDATE_OPS``
grouped with the train op. Kernels come from a deterministic scope initializer and the
averaged gradients are gated with ``tf.tuple``, so values are compared.
"""
import numpy as np

images_per_tower, size, channels, classes = 2, 6, 3, 4
filters = 4


class RoundRobinSetter(object):
    """Variable ops go to the parameter devices in turn; every other op to the worker device."""
    VARIABLE_OPS = ('Variable', 'VariableV2', 'VarHandleOp')

    def __init__(self, worker_device, ps_devices):
        self.worker_device, self.ps_devices, self.next = worker_device, list(ps_devices), 0

    def __call__(self, op):
        if op.device:
            return op.device
        if op.type in self.VARIABLE_OPS:
            device = self.ps_devices[self.next % len(self.ps_devices)]
            self.next += 1
            return device
        return self.worker_device


def build(tf, towers=('/cpu:1', '/cpu:2'), ps_devices=('/cpu:0',), consolidation='/cpu:0'):
    def deterministic(shape, dtype=None, partition_info=None):
        n = int(np.prod(shape))
        return tf.constant(0.3 * np.cos(np.arange(n) * 0.7).reshape(shape).astype(np.float32))

    def net(x):
        x = tf.layers.conv2d(x, filters, 3, padding='same', use_bias=False, name='stem')
        x = tf.nn.relu(tf.layers.batch_normalization(x, momentum=0.9, epsilon=1e-5, training=True, name='stem_bn'))
        shortcut = x
        y = tf.layers.conv2d(x, filters, 3, padding='same', use_bias=False, name='res_a')
        y = tf.nn.relu(tf.layers.batch_normalization(y, momentum=0.9, epsilon=1e-5, training=True, name='res_a_bn'))
        y = tf.layers.conv2d(y, filters, 3, padding='same', use_bias=False, name='res_b')
        y = tf.layers.batch_normalization(y, momentum=0.9, epsilon=1e-5, training=True, name='res_b_bn')
        x = tf.nn.relu(y + shortcut)
        x = tf.reduce_mean(x, [1, 2])
        return tf.layers.dense(x, classes, name='logits')

    rng = np.random.RandomState(4)
    images = rng.rand(len(towers) * images_per_tower, size, size, channels).astype(np.float32)
    labels = rng.randint(0, classes, len(towers) * images_per_tower).astype(np.int32)

    tower_losses, tower_grads, update_ops = [], [], []
    for i, dev in enumerate(towers):
        setter = RoundRobinSetter(dev, ps_devices)
        with tf.variable_scope('net', reuse=bool(i != 0), initializer=deterministic):
            with tf.name_scope('tower_%d' % i) as name_scope, tf.device(setter):
                lo, hi = i * images_per_tower, (i + 1) * images_per_tower
                logits = net(tf.constant(images[lo:hi]))
                loss = tf.losses.sparse_softmax_cross_entropy(labels[lo:hi], logits)
                params = tf.trainable_variables()
                loss += 2e-4 * tf.add_n([tf.nn.l2_loss(v) for v in params])
                tower_losses.append(loss)
                tower_grads.append(zip(tf.gradients(loss, params), params))
                if i == 0:  # the moving averages of one tower are enough
                    update_ops = tf.get_collection(tf.GraphKeys.UPDATE_OPS, name_scope)

    with tf.name_scope('gradient_averaging'):
        by_var = {}
        for grads in tower_grads:
            for g, v in grads:
                by_var.setdefault(v, []).append(g)
        averaged = []
        for v, gs in by_var.items():
            with tf.device(v.device):
                averaged.append((tf.multiply(tf.add_n(gs), 1. / len(gs)), v))
        gated = tf.tuple([g for g, _ in averaged])
        averaged = list(zip(gated, [v for _, v in averaged]))

    with tf.device(consolidation):
        step = tf.train.get_or_create_global_step()
        lr = tf.train.piecewise_constant(step, [1], [0.1, 0.01])
        loss = tf.reduce_mean(tower_losses, name='loss')
        opt = tf.train.MomentumOptimizer(lr, momentum=0.9)
        train_op = tf.group(opt.apply_gradients(averaged, global_step=step), *update_ops)

    fetch = {"loss": loss, "lr": lr}
    fetch.update({v.op.name: v for v in tf.global_variables() if 'moving' in v.op.name or 'logits' in v.op.name})
    return {"train": train_op, "steps": 2, "fetch": fetch}


VARIANTS = {
    "cpu": {"kwargs": {}, "config": {"device_count": {"CPU": 3}},
            "note": "towers on /cpu:1, /cpu:2 standing in for GPUs, variables and Momentum on /cpu:0"},
    "two_ps": {"kwargs": {"ps_devices": ('/cpu:0', '/cpu:3')}, "config": {"device_count": {"CPU": 4}},
               "note": "variables spread round-robin over /cpu:0 and /cpu:3"},
    "gpu": {"kwargs": {"towers": ('/gpu:0', '/gpu:1')}, "execute": False,
            "note": "the GPU program as written: built only"},
}
