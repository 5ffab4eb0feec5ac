"""A model deployed as clones: a deployment config gives the device of each clone, of the variables, of the inputs and of the optimizer; each clone's gradients are summed across clones and applied once.

In the style of slim's ``model_deploy`` helpers and the training scripts that used them
(public), written for devlab; no code copied. Patterns: a ``DeploymentConfig``-like object
(``num_clones``, ``clone_on_cpu``, ``replica_id``, ``num_replicas``, ``num_ps_tasks``, worker and
ps job names) whose methods return device strings, or a device *function* for the variables
that sends variable ops round-robin over the ps tasks (its string puts ``/task:N`` after
``/device:CPU:0``, as such helpers built it by appending); the global step made under the
variables' device; inputs made and split on the inputs' device; the model function called once
per clone under ``name_scope('clone_%d')`` (no scope at all for one clone),
``tf.device(clone)`` and ``variable_scope(get_variable_scope(), reuse=True if i > 0 else None)``
with a custom getter that creates each variable under the variables' device (and, with ps tasks,
a caching device that reads it where it is used); L2 regularisers on ``get_variable``
(``REGULARIZATION_LOSSES`` holds clone 0's only), batch norm whose ``UPDATE_OPS`` are taken from
the first clone's scope; each clone's losses gathered from ``LOSSES`` by its scope, scaled by
``1 / num_clones``, with the regularisation added on clone 0 only; ``compute_gradients`` on the
clone's device; gradients summed across clones (``add_n`` named ``<var>/sum_grads``) on the
optimizer's device or colocated with the variable; per-clone and total loss summaries, variable
histograms, ``summary.merge``; ``exponential_decay`` on the global step, Momentum (slots beside
the variables); one train op (``identity`` of the total loss under the update's control
dependencies). Weights start from fixed numbers, so values are compared.
"""
import numpy as np

batch_per_clone, features, hidden, classes = 3, 5, 6, 4


class DeploymentConfig(object):
    """Where each part of a cloned model lives: clones, variables, inputs, optimizer.

    ``gpu_stand_in`` names the device type a clone uses in place of a GPU (TensorFlow's CPU
    build has none: ``'CPU'`` puts clone i on ``/device:CPU:i+1``).
    """

    def __init__(self, num_clones=1, clone_on_cpu=False, replica_id=0, num_replicas=1, num_ps_tasks=0,
                 worker_job_name='worker', ps_job_name='ps', gpu_stand_in=None):
        if num_replicas > 1 and num_ps_tasks < 1:
            raise ValueError('num_ps_tasks must be positive when there are several replicas')
        if replica_id >= num_replicas:
            raise ValueError('replica_id must be below num_replicas')
        self.num_clones, self.clone_on_cpu = num_clones, clone_on_cpu
        self.replica_id, self.num_replicas, self.num_ps_tasks = replica_id, num_replicas, num_ps_tasks
        self.gpu_stand_in = gpu_stand_in
        # Without ps tasks the program is one local process: no job names in any device string.
        self.ps_device = '/job:' + ps_job_name if num_ps_tasks else ''
        self.worker_device = '/job:%s/task:%d' % (worker_job_name, replica_id) if num_ps_tasks else ''

    def clone_scope(self, i):
        return 'clone_%d' % i if self.num_clones > 1 else ''

    def clone_device(self, i):
        if self.clone_on_cpu:
            return self.worker_device + '/device:CPU:0'
        if self.gpu_stand_in:
            return self.worker_device + '/device:%s:%d' % (self.gpu_stand_in, i + 1)
        return self.worker_device + '/device:GPU:%d' % i

    def inputs_device(self):
        return self.worker_device + '/device:CPU:0'

    def optimizer_device(self):
        return self.worker_device + '/device:CPU:0'

    def caching_device(self):
        """With remote variables each reader keeps a copy on its own device; locally none."""
        return (lambda op: op.device) if self.num_ps_tasks else None

    def variables_device(self):
        """A string without ps tasks; with them a function spreading variable ops over the tasks."""
        base = self.ps_device + '/device:CPU:0'
        if not self.num_ps_tasks:
            return base
        tasks, state = self.num_ps_tasks, {'next': 0}

        def choose(op):
            if op.device:
                return op.device
            if not op.node_def.op.startswith('Variable'):
                return op.device
            task = state['next']
            state['next'] = (task + 1) % tasks
            return '%s/task:%d' % (base, task)

        return choose


def create_clones(tf, config, model_fn, *args):
    """Calls ``model_fn`` once per clone; returns ``[(outputs, scope, device)]``."""
    var_device = config.variables_device()

    def on_variables_device(getter, *a, **kw):
        with tf.device(var_device):
            return getter(*a, **kw)

    clones = []
    for i in range(config.num_clones):
        with tf.name_scope(config.clone_scope(i)) as scope:
            device = config.clone_device(i)
            with tf.device(device):
                with tf.variable_scope(tf.get_variable_scope(), reuse=True if i > 0 else None,
                                       custom_getter=on_variables_device, caching_device=config.caching_device()):
                    outputs = model_fn(i, *args)
            clones.append((outputs, scope, device))
    return clones


def clone_loss_and_grads(tf, optimizer, clone, num_clones, regularization_losses, summaries):
    """The clone's scaled loss (plus the regularisation, on the first clone) and its gradients."""
    _, scope, device = clone
    with tf.device(device):
        parts = []
        losses = tf.get_collection(tf.GraphKeys.LOSSES, scope)
        if losses:
            loss = tf.add_n(losses, name='clone_loss')
            if num_clones > 1:
                loss = tf.div(loss, 1.0 * num_clones, name='scaled_clone_loss')
            parts.append(loss)
            summaries.append(tf.summary.scalar('%s/clone_loss' % (scope.rstrip('/') or 'clone'), loss))
        if regularization_losses:
            reg = tf.add_n(regularization_losses, name='regularization_loss')
            parts.append(reg)
            summaries.append(tf.summary.scalar('regularization_loss', reg))
        total = tf.add_n(parts)
        return total, optimizer.compute_gradients(total)


def sum_across_clones(tf, grads_per_clone, colocate):
    """One gradient per variable: the clones' gradients added, beside the variable if asked."""
    summed = []
    for pairs in zip(*grads_per_clone):
        var = pairs[0][1]
        grads = [g for g, v in pairs if g is not None]
        if not grads:
            continue
        if len(grads) == 1:
            summed.append((grads[0], var))
            continue
        if colocate:
            with tf.colocate_with(var):
                summed.append((tf.add_n(grads, name=var.op.name + '/sum_grads'), var))
        else:
            summed.append((tf.add_n(grads, name=var.op.name + '/sum_grads'), var))
    return summed


def build(tf, num_clones=1, clone_on_cpu=False, num_ps_tasks=0, replica_id=0, num_replicas=1,
          gpu_stand_in=None, colocate_sums=False):
    config = DeploymentConfig(num_clones=num_clones, clone_on_cpu=clone_on_cpu, replica_id=replica_id,
                              num_replicas=num_replicas, num_ps_tasks=num_ps_tasks, gpu_stand_in=gpu_stand_in)
    rng = np.random.RandomState(26)
    w1_init = rng.uniform(-0.5, 0.5, (features, hidden)).astype(np.float32)
    w2_init = rng.uniform(-0.5, 0.5, (hidden, classes)).astype(np.float32)
    images_np = rng.rand(num_clones * batch_per_clone, features).astype(np.float32)
    labels_np = rng.randint(0, classes, num_clones * batch_per_clone)

    def l2(scale):
        return lambda w: tf.multiply(scale, tf.nn.l2_loss(w), name='l2_regularizer')

    def model(i, images, labels):
        x = images[i]
        with tf.variable_scope('fc1'):
            w = tf.get_variable('weights', initializer=w1_init, regularizer=l2(0.01))
            b = tf.get_variable('biases', [hidden], initializer=tf.zeros_initializer())
            x = tf.nn.relu(tf.nn.bias_add(tf.matmul(x, w), b))
        x = tf.layers.batch_normalization(x, momentum=0.5, training=True, name='bn')
        with tf.variable_scope('logits'):
            w = tf.get_variable('weights', initializer=w2_init, regularizer=l2(0.01))
            logits = tf.matmul(x, w)
        tf.losses.softmax_cross_entropy(tf.one_hot(labels[i], classes), logits)
        return logits

    with tf.device(config.variables_device()):
        global_step = tf.train.create_global_step()

    with tf.device(config.inputs_device()), tf.name_scope('inputs'):
        images = tf.split(tf.constant(images_np, name='images'), num_clones)
        labels = tf.split(tf.constant(labels_np, dtype=tf.int32, name='labels'), num_clones)

    clones = create_clones(tf, config, model, images, labels)
    first_scope = config.clone_scope(0)
    update_ops = tf.get_collection(tf.GraphKeys.UPDATE_OPS, first_scope)
    summaries = [tf.summary.histogram(v.op.name, v) for v in tf.model_variables() + tf.trainable_variables()]

    with tf.device(config.optimizer_device()):
        lr = tf.train.exponential_decay(0.2, global_step, 1, 0.5, staircase=True, name='learning_rate')
        optimizer = tf.train.MomentumOptimizer(lr, 0.9)
        summaries.append(tf.summary.scalar('learning_rate', lr))
        regularization_losses = tf.get_collection(tf.GraphKeys.REGULARIZATION_LOSSES)
        losses, grads = [], []
        for clone in clones:
            with tf.name_scope(clone[1]):
                loss, g = clone_loss_and_grads(tf, optimizer, clone, num_clones, regularization_losses, summaries)
            losses.append(loss)
            grads.append(g)
            regularization_losses = None  # clone 0 carries the regularisation
        total_loss = tf.add_n(losses, name='total_loss')
        summed = sum_across_clones(tf, grads, colocate_sums)
        summaries.append(tf.summary.scalar('total_loss', total_loss))
        update = optimizer.apply_gradients(summed, global_step=global_step)
        update_op = tf.group(update, *update_ops)
        with tf.control_dependencies([update_op]):
            train_tensor = tf.identity(total_loss, name='train_op')
    summary_op = tf.summary.merge(summaries, name='summary_op')

    fetch = {v.op.name: v for v in tf.global_variables()}
    fetch['total_loss'] = total_loss
    collected = tf.get_collection(tf.GraphKeys.REGULARIZATION_LOSSES)
    return {"train": train_tensor, "steps": 2, "fetch": fetch, "run_only": [summary_op],
            "extra": {"clone_devices": [c[2] for c in clones], "clone_scopes": [c[1] for c in clones],
                      "regularization_losses": [t.op.name for t in collected],
                      "update_ops": [op.name for op in update_ops]}}


VARIANTS = {
    "one_clone_cpu": {"kwargs": {"clone_on_cpu": True}, "config": {},
                      "note": "one clone on /device:CPU:0, no clone scope, variables on /device:CPU:0"},
    "two_clones": {"kwargs": {"num_clones": 2, "gpu_stand_in": "CPU"}, "config": {"device_count": {"CPU": 3}},
                   "note": "two clones on /device:CPU:1 and :2 standing in for GPUs; sums on the optimizer's CPU"},
    "two_clones_colocated": {"kwargs": {"num_clones": 2, "gpu_stand_in": "CPU", "colocate_sums": True},
                             "config": {"device_count": {"CPU": 3}},
                             "note": "as two_clones, each sum of gradients colocated with its variable"},
    "two_clones_gpu": {"kwargs": {"num_clones": 2}, "execute": False,
                       "note": "the GPU program as written: built only"},
    "two_clones_gpu_soft": {"kwargs": {"num_clones": 2}, "config": {"allow_soft_placement": True},
                            "record": ["ops", "placed"],
                            "note": "the GPU program soft-placed on a machine without GPUs"},
    "clone_on_cpu": {"kwargs": {"num_clones": 2, "clone_on_cpu": True}, "config": {},
                     "note": "two clones (scopes clone_0, clone_1) both on /device:CPU:0"},
    "two_ps": {"kwargs": {"num_clones": 2, "num_ps_tasks": 2, "colocate_sums": True}, "execute": False,
               "note": "variables round-robin over /job:ps tasks 0 and 1 (task after the device), clones on "
                       "/job:worker/task:0 GPUs, caching devices: built only"},
    "replica_1": {"kwargs": {"num_clones": 1, "num_ps_tasks": 1, "replica_id": 1, "num_replicas": 2}, "execute": False,
                  "note": "the second worker replica with one ps task: built only"},
}
