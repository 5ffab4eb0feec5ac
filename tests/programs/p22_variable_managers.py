"""Three ways to keep a model's variables across towers: one copy on a parameter device, one copy per tower kept equal by a copy all-reduce, or independent copies.

In the style of tf_cnn_benchmarks' variable managers (public), written for devlab; no code
copied. Patterns: ``parameter_server``: each tower under
``tf.device(tf.train.replica_device_setter(worker_device=tower, ps_device=..., ps_tasks=1))``
and ``variable_scope('v', reuse=i > 0)``, the towers' gradients averaged (``add_n`` then
``multiply``) on the parameter device, applied once; ``replicated``: variables in
``variable_scope('v%d' % i)`` on each tower's device, each gradient summed on the device of
tower 0's copy (``colocate_with``), copied back to each tower with ``identity`` under
``tf.device``, each tower applying to its own copy, and ``assign`` ops that copy
``v0``'s values into the other copies (the post-init sync, run here after training, when it must
change nothing); ``independent``: each tower trains its own copy. The
inputs are made on each tower's device; ``tf.tuple`` gates each tower's gradients so no
update races a gradient that still reads the variable; the train ops are grouped in
``name_scope('train_ops_group')``. Weights start from fixed numbers: values are compared.
"""
import numpy as np

towers = ('/cpu:1', '/cpu:2')
batch, features, hidden, classes = 4, 5, 6, 3


def build(tf, update='parameter_server', ps_device='/cpu:0'):
    rng = np.random.RandomState(9)
    w1_init = rng.uniform(-0.5, 0.5, (features, hidden)).astype(np.float32)
    w2_init = rng.uniform(-0.5, 0.5, (hidden, classes)).astype(np.float32)

    def model(images):
        w1 = tf.get_variable('fc1/w', initializer=w1_init)
        b1 = tf.get_variable('fc1/b', [hidden], initializer=tf.zeros_initializer())
        w2 = tf.get_variable('fc2/w', initializer=w2_init)
        return tf.matmul(tf.nn.relu(tf.matmul(images, w1) + b1), w2)

    def tower_inputs(i):  # synthetic data made on the tower's own device
        images = tf.constant(np.random.RandomState(i).rand(batch, features).astype(np.float32), name='images')
        labels = tf.constant(np.arange(batch) % classes, dtype=tf.int32, name='labels')
        return images, labels

    opt = tf.train.GradientDescentOptimizer(0.3)
    losses, tower_grads, tower_vars = [], [], []
    for i, dev in enumerate(towers):
        if update == 'parameter_server':
            device = tf.train.replica_device_setter(worker_device=dev, ps_device=ps_device, ps_tasks=1)
            scope = tf.variable_scope('v', reuse=i > 0)
        else:
            device = dev
            scope = tf.variable_scope('v%d' % i)
        with tf.device(device), scope as vs, tf.name_scope('tower_%d' % i):
            images, labels = tower_inputs(i)
            logits = model(images)
            loss = tf.losses.sparse_softmax_cross_entropy(labels, logits)
            params = [v for v in tf.trainable_variables() if v.op.name.startswith(vs.name + '/')]
            grads = tf.tuple(tf.gradients(loss, params))
        losses.append(loss)
        tower_grads.append(grads)
        tower_vars.append(params)

    post_init = []
    if update == 'parameter_server':
        with tf.device(ps_device), tf.name_scope('average_gradients'):
            averaged = [tf.multiply(tf.add_n(list(gs)), 1.0 / len(towers)) for gs in zip(*tower_grads)]
        with tf.name_scope('apply'):
            train_ops = [opt.apply_gradients(zip(averaged, tower_vars[0]))]
    elif update == 'replicated':
        train_ops = []
        summed = []
        for gs, first in zip(zip(*tower_grads), tower_vars[0]):
            with tf.colocate_with(first), tf.name_scope('allreduce'):
                summed.append(tf.add_n(list(gs)) / len(towers))
        for i, dev in enumerate(towers):
            with tf.device(dev), tf.name_scope('apply_%d' % i):
                copies = [tf.identity(g) for g in summed]
                train_ops.append(opt.apply_gradients(zip(copies, tower_vars[i])))
        with tf.name_scope('post_init'):
            for i in range(1, len(towers)):
                for src, dst in zip(tower_vars[0], tower_vars[i]):
                    post_init.append(dst.assign(src.read_value()))
    else:
        train_ops = []
        for i, dev in enumerate(towers):
            with tf.device(dev):
                train_ops.append(opt.apply_gradients(zip(tower_grads[i], tower_vars[i])))

    with tf.name_scope('train_ops_group'):
        train = tf.group(*train_ops)
    fetch = {v.op.name: v for v in tf.global_variables()}
    fetch['loss'] = tf.reduce_mean(losses)
    # The harness runs run_only after training; the copies start equal and stay equal, so
    # copying v0 into v1 there must change nothing (the fetched values show it).
    return {"train": train, "steps": 2, "run_only": post_init, "fetch": fetch}


VARIANTS = {
    "parameter_server": {"kwargs": {}, "config": {"device_count": {"CPU": 3}},
                         "note": "one copy on /cpu:0 through replica_device_setter; towers on /cpu:1, /cpu:2"},
    "parameter_server_gpu": {"kwargs": {"ps_device": "/gpu:0"}, "execute": False,
                             "note": "the parameter device a GPU: built only"},
    "replicated": {"kwargs": {"update": "replicated"}, "config": {"device_count": {"CPU": 3}},
                   "note": "a copy per tower, gradients summed beside v0's copy and copied back"},
    "independent": {"kwargs": {"update": "independent"}, "config": {"device_count": {"CPU": 3}},
                    "note": "each tower trains its own copy"},
}
