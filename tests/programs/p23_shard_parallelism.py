"""A data-parallel helper calling a model function once per shard device, with variable sharing, caching devices or daisy-chained variable reads.

In the style of tensor2tensor's ``expert_utils.Parallelism`` (public), written for devlab; no
code copied. Patterns: a ``ShardRunner`` object holding the shard devices that calls
``fn(*args)`` once per shard under ``tf.name_scope('shard_%d')``, ``tf.variable_scope(
tf.get_variable_scope(), reuse=True if i > 0 or reuse else None, caching_device=...,
custom_getter=...)`` and ``tf.device(device)`` (a string or a ``replica_device_setter``),
arguments given per shard or once for all, and the per-shard results transposed into one list
per output; a custom getter that daisy-chains reads (a variable read on shard ``i`` is the
``identity`` of its read on shard ``i - 1``, so each device copies from its neighbour); the
shard losses ``add_n``-ed and minimised with ``colocate_gradients_with_ops=True``. Weights are
fixed numbers: values are compared.
"""
import numpy as np

batch, features, hidden, classes = 6, 4, 5, 3


class ShardRunner(object):
    def __init__(self, tf, devices, reuse=True, caching_devices=None, daisy_chain=False):
        self.tf, self.devices, self.reuse = tf, list(devices), reuse
        self.caching_devices, self.daisy_chain = caching_devices, daisy_chain
        self.n = len(self.devices)

    def _per_shard(self, arg):
        return arg if isinstance(arg, list) else [arg] * self.n

    def __call__(self, fn, *args):
        tf = self.tf
        args = [self._per_shard(a) for a in args]
        reads = {}  # variable name -> its read on the previous shard

        def chained_getter(getter, name, *a, **kw):
            var = getter(name, *a, **kw)
            value = tf.identity(reads[name]) if name in reads else var.read_value()
            reads[name] = value
            return value

        results = []
        for i, device in enumerate(self.devices):
            caching = self.caching_devices[i] if self.caching_devices else None
            with tf.name_scope('shard_%d' % i):
                with tf.variable_scope(tf.get_variable_scope(), reuse=True if i > 0 and self.reuse else None,
                                       caching_device=caching,
                                       custom_getter=chained_getter if self.daisy_chain else None):
                    with tf.device(device):
                        results.append(fn(*[a[i] for a in args]))
        if isinstance(results[0], tuple):  # one list per output
            return tuple(list(r) for r in zip(*results))
        return results


def build(tf, devices=('/cpu:1', '/cpu:2', '/cpu:3'), caching=False, daisy_chain=False, ps=False):
    rng = np.random.RandomState(6)
    w1 = rng.uniform(-0.5, 0.5, (features, hidden)).astype(np.float32)
    w2 = rng.uniform(-0.5, 0.5, (hidden, classes)).astype(np.float32)
    x = rng.rand(batch, features).astype(np.float32)
    y = rng.randint(0, classes, batch).astype(np.int32)

    def model(inputs, labels, scale):
        h = tf.nn.tanh(tf.matmul(inputs, tf.get_variable('w1', initializer=w1)))
        logits = tf.matmul(h, tf.get_variable('w2', initializer=w2)) * scale
        loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=logits))
        return logits, loss

    if ps:  # device functions, as a trainer with parameter servers sets them up
        shard_devices = [tf.train.replica_device_setter(ps_tasks=1, ps_device='/cpu:0', worker_device=d)
                         for d in devices]
    else:
        shard_devices = list(devices)
    runner = ShardRunner(tf, shard_devices, caching_devices=list(devices) if caching else None,
                         daisy_chain=daisy_chain)
    with tf.device('/cpu:0'):
        xs = tf.split(tf.constant(x), runner.n)
        ys = tf.split(tf.constant(y), runner.n)
    logits, losses = runner(model, xs, ys, 2.0)
    total = tf.add_n(losses) / runner.n
    train_op = tf.train.GradientDescentOptimizer(0.5).minimize(total, colocate_gradients_with_ops=True)
    fetch = {"loss": total, "logits": tf.concat(logits, 0)}
    fetch.update({v.op.name: v for v in tf.global_variables()})
    return {"train": train_op, "steps": 2, "fetch": fetch}


VARIANTS = {
    "shared": {"kwargs": {}, "config": {"device_count": {"CPU": 4}},
               "note": "three shards on /cpu:1../cpu:3 standing in for GPUs, variables on the first"},
    "caching": {"kwargs": {"caching": True}, "config": {"device_count": {"CPU": 4}},
                "note": "each shard reads the variables through a cache on its own device"},
    "daisy_chain": {"kwargs": {"daisy_chain": True}, "config": {"device_count": {"CPU": 4}},
                    "note": "each shard's reads copied from the previous shard's"},
    "parameter_server": {"kwargs": {"ps": True}, "config": {"device_count": {"CPU": 4}},
                         "note": "replica_device_setter device functions: variables on /cpu:0"},
}
