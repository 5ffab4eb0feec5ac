"""What newcomers' training scripts paste: the other optimizers (RMSProp, Adagrad, Adadelta, Ftrl,
proximal), learning-rate schedules, gradient clipping by norm, more activations, top-k and accuracy,
``tf.metrics``, sigmoid and huber losses, ``tf.math``, written once against the TF1 API; each case
returns its facts (ops with inputs, control inputs and colocation groups, placements from the
partition graphs, values) or the error.
The same functions run under TensorFlow 2.21 (tools/record_cases.py script writes what it does to
tests/data/tf_script_surface.json) and under devlab (tests/test_script_surface.py compares)."""
import numpy as np

from control_flow_cases import graph_facts
from rnn_cases import _run, _values

R = np.random.RandomState(11)
X = R.uniform(-1, 1, (4, 3)).astype(np.float32)
Y = R.uniform(-1, 1, (4, 2)).astype(np.float32)
W0 = R.uniform(-0.5, 0.5, (3, 2)).astype(np.float32)
LOGITS = np.array([[0.1, 0.7, 0.2], [0.5, 0.5, -1.0], [2.0, -1.0, 0.3], [0.0, 0.1, 0.9]], np.float32)
LABELS = np.array([1, 1, 2, 2], np.int64)


def _facts(tf, fetch, feed=None, **kw):
    facts = {"ops": graph_facts(tf)}
    placed, value = _run(tf, fetch, feed, **kw)
    facts.update(placed=placed, values=_values(value))
    return facts


def _error(fn):
    try:
        fn()
    except Exception as e:  # noqa: BLE001 - the class and words are the fact
        lines = [l for l in str(e).splitlines() if l.strip() and not l[0].isspace()  # TF's run-time error
                 and not l.startswith(("Graph execution error", "Detected at node", "Node:"))]  # says where first
        return {"error": [type(e).__name__, lines[0]]}
    return {"error": None}


# -- optimizers: the variables on /cpu:1, the loss on /cpu:2, the updates colocated with the variables
def _optimizer_case(make):
    def case(tf, rewrites_off=False):
        x = tf.placeholder(tf.float32, [4, 3], name="x")
        y = tf.placeholder(tf.float32, [4, 2], name="y")
        with tf.device("/cpu:1"):
            w = tf.Variable(W0, name="w")
            b = tf.Variable([0.1, -0.2], name="b")
        with tf.device("/cpu:2"):
            loss = tf.reduce_mean(tf.square(tf.matmul(x, w) + b - y))
        global_step = tf.train.get_or_create_global_step()
        opt = make(tf)
        train = opt.minimize(loss, global_step=global_step)
        slots = [opt.get_slot(v, n) for n in opt.get_slot_names() for v in (w, b)]
        facts = _facts(tf, [loss, w, b, global_step] + slots, {x: X, y: Y}, train=train, steps=3,
                       rewrites_off=rewrites_off)
        facts["slots"] = [opt.get_slot_names(), [s.op.name for s in slots], opt.get_name()]
        return facts
    return case


def _on_parameter_servers(make):
    """The same model under replica_device_setter with two ps tasks: graph only (no cluster runs)."""
    def case(tf, rewrites_off=False):
        cluster = tf.train.ClusterSpec({"ps": ["ps0:2222", "ps1:2222"], "worker": ["w0:2222"]})
        with tf.device(tf.train.replica_device_setter(cluster=cluster)):
            x = tf.placeholder(tf.float32, [4, 3], name="x")
            y = tf.placeholder(tf.float32, [4, 2], name="y")
            w = tf.Variable(W0, name="w")
            b = tf.Variable([0.1, -0.2], name="b")
            loss = tf.reduce_mean(tf.square(tf.matmul(x, w) + b - y))
            global_step = tf.train.get_or_create_global_step()
            grads_and_vars = make(tf).compute_gradients(loss)
            grads, variables = zip(*grads_and_vars)
            clipped, _ = tf.clip_by_global_norm(grads, 1.0)
            make(tf).apply_gradients(zip(clipped, variables), global_step=global_step)
        return {"ops": graph_facts(tf)}
    return case


case_rmsprop_on_parameter_servers = _on_parameter_servers(lambda tf: tf.train.RMSPropOptimizer(0.05))
case_ftrl_on_parameter_servers = _on_parameter_servers(lambda tf: tf.train.FtrlOptimizer(0.05))
case_rmsprop = _optimizer_case(lambda tf: tf.train.RMSPropOptimizer(0.05, decay=0.8, momentum=0.5))
case_rmsprop_centered = _optimizer_case(lambda tf: tf.train.RMSPropOptimizer(0.05, centered=True, epsilon=1e-6))
case_adagrad = _optimizer_case(lambda tf: tf.train.AdagradOptimizer(0.3, initial_accumulator_value=0.2))
case_adagrad_callable_rate = _optimizer_case(lambda tf: tf.train.AdagradOptimizer(
    lambda: tf.train.inverse_time_decay(0.3, tf.train.get_global_step(), 1, 0.5)))
case_proximal_adagrad = _optimizer_case(lambda tf: tf.train.ProximalAdagradOptimizer(
    0.3, l1_regularization_strength=0.05, l2_regularization_strength=0.1))
case_proximal_gradient_descent = _optimizer_case(lambda tf: tf.train.ProximalGradientDescentOptimizer(
    0.2, l2_regularization_strength=0.1))
case_adadelta = _optimizer_case(lambda tf: tf.train.AdadeltaOptimizer(1.0, rho=0.9, epsilon=1e-6))
case_ftrl = _optimizer_case(lambda tf: tf.train.FtrlOptimizer(0.3, l1_regularization_strength=0.01,
                                                               l2_regularization_strength=0.02))
case_ftrl_shrinkage = _optimizer_case(lambda tf: tf.train.FtrlOptimizer(
    0.3, learning_rate_power=-0.7, l2_shrinkage_regularization_strength=0.05, name="Shrunk"))


# -- learning-rate schedules on the global step, read at several steps ----------------------------
def case_schedules(tf, rewrites_off=False):
    global_step = tf.train.get_or_create_global_step()
    step = tf.placeholder(tf.int64, [], name="step")
    set_step = tf.assign(global_step, step)
    with tf.device("/cpu:1"):
        rates = [
            tf.train.piecewise_constant(global_step, [2, 4], [1.0, 0.5, 0.1]),
            tf.train.polynomial_decay(0.1, global_step, 10, end_learning_rate=0.01, power=0.5),
            tf.train.polynomial_decay(0.1, global_step, 4, 0.01, cycle=True, name="cyclic"),
            tf.train.inverse_time_decay(0.1, global_step, 2, 0.5, staircase=True),
            tf.train.natural_exp_decay(0.1, global_step, 2, 0.5),
            tf.train.cosine_decay(0.1, global_step, 10, alpha=0.1),
            tf.train.exponential_decay(0.1, global_step, 3, 0.5),
            tf.train.cosine_decay_restarts(0.1, global_step, 2, alpha=0.1),
            tf.train.cosine_decay_restarts(0.1, global_step, 3, t_mul=1.0, m_mul=0.5, name="restarts"),
            tf.train.linear_cosine_decay(0.1, global_step, 10, num_periods=2, alpha=0.1),
        ]
    facts = {"ops": graph_facts(tf)}
    config = tf.ConfigProto(device_count={"CPU": 2})
    if rewrites_off:
        config.graph_options.rewrite_options.disable_meta_optimizer = True
        config.graph_options.optimizer_options.opt_level = -1
    values = []
    with tf.Session(config=config) as sess:
        sess.run(tf.global_variables_initializer())
        for s in (0, 1, 2, 3, 5, 9, 12):
            sess.run(set_step, {step: s})
            values.append(sess.run(rates))
    facts["values"] = _values(values)
    return facts


def case_piecewise_values_of_two_dtypes(tf, rewrites_off=False):
    global_step = tf.train.get_or_create_global_step()
    return _error(lambda: tf.train.piecewise_constant(global_step, [2, 4], [1.0, 2, 3.0]))


def case_piecewise_float_boundaries(tf, rewrites_off=False):
    global_step = tf.train.get_or_create_global_step()
    return _error(lambda: tf.train.piecewise_constant(global_step, [2.0, 4.0], [1.0, 0.5, 0.1]))


# -- clipping by norm: a tensor per device, each clipped beside it ------------------------------------
def case_clip_by_norms(tf, rewrites_off=False):
    x = tf.placeholder(tf.float32, [4, 3], name="x")
    with tf.device("/cpu:1"):
        a = tf.identity(x * 2.0, name="a")
    with tf.device("/cpu:2"):
        b = tf.constant([[3.0, -4.0]], name="b")
    clipped, norm = tf.clip_by_global_norm([a, None, b], 2.0)
    loose, _ = tf.clip_by_global_norm([a, b], 100.0, use_norm=norm, name="loose")
    rows = tf.clip_by_norm(a, 1.0, axes=[1])
    whole = tf.clip_by_norm(b, 2.5, name="whole")
    total = tf.global_norm([a, b])
    grads = tf.gradients(tf.reduce_sum(rows * a) + tf.reduce_sum(clipped[0]), x)
    return _facts(tf, [clipped[0], clipped[2], norm, loose[0], rows, whole, total] + grads, {x: X}, cpus=3,
                  rewrites_off=rewrites_off)


def case_global_norm_of_ints(tf, rewrites_off=False):
    return _error(lambda: tf.global_norm([tf.constant([1, 2])]))


def case_clip_by_global_norm_of_zip(tf, rewrites_off=False):
    grads_and_vars = [(tf.constant([1.0, 2.0]), None)]
    return _error(lambda: tf.clip_by_global_norm(zip(*grads_and_vars), 1.0))


# -- activations and their gradients -----------------------------------------------------------------
def case_activations(tf, rewrites_off=False):
    x = tf.placeholder(tf.float32, [4, 3], name="x")
    g = tf.constant(np.arange(12, dtype=np.float32).reshape(4, 3) / 10.0, name="g")
    with tf.device("/cpu:1"):
        ys = [tf.nn.leaky_relu(x * 8.0, alpha=0.1), tf.nn.elu(x), tf.nn.selu(x), tf.nn.softplus(x),
              tf.nn.relu6(x * 8.0), tf.nn.leaky_relu(x, name="lrelu"), tf.nn.softsign(x)]
    doubled = tf.nn.crelu(x)
    grads = [tf.gradients(y, x, grad_ys=g)[0] for y in ys] + tf.gradients(tf.reduce_sum(doubled * 0.5), x)
    return _facts(tf, ys + [doubled] + grads, {x: X}, rewrites_off=rewrites_off)


def case_sigmoid_cross_entropy_and_l2_normalize(tf, rewrites_off=False):
    x = tf.placeholder(tf.float32, [4, 3], name="x")
    targets = tf.constant((X > 0).astype(np.float32), name="targets")
    with tf.device("/cpu:1"):
        logits = x * 3.0
        xent = tf.nn.sigmoid_cross_entropy_with_logits(labels=targets, logits=logits)
        unit = tf.nn.l2_normalize(x, axis=1)
    whole = tf.nn.l2_normalize(x, name="whole")
    loss = tf.reduce_mean(xent) + tf.reduce_sum(unit * targets) + tf.reduce_sum(whole)
    grads = tf.gradients(loss, x)
    return _facts(tf, [xent, unit, whole] + grads, {x: X}, rewrites_off=rewrites_off)


def case_huber_and_sigmoid_losses(tf, rewrites_off=False):
    x = tf.placeholder(tf.float32, [4, 3], name="x")
    targets = tf.constant((X > 0).astype(np.int32), name="targets")
    with tf.device("/cpu:1"):
        huber = tf.losses.huber_loss(tf.zeros([4, 3]), x * 3.0, delta=0.5)
    xent = tf.losses.sigmoid_cross_entropy(targets, x, label_smoothing=0.1, weights=[[1.0], [0.0], [2.0], [1.0]])
    total = tf.losses.get_total_loss()
    grads = tf.gradients(total, x)
    facts = _facts(tf, [huber, xent, total] + grads, {x: X}, rewrites_off=rewrites_off)
    facts["collections"] = [t.name for t in tf.losses.get_losses()]
    return facts


def case_sigmoid_cross_entropy_of_mismatched_shapes(tf, rewrites_off=False):
    return _error(lambda: tf.nn.sigmoid_cross_entropy_with_logits(labels=tf.zeros([4, 2]), logits=tf.zeros([4, 3])))


def case_logsumexp_and_count_nonzero(tf, rewrites_off=False):
    x = tf.placeholder(tf.float32, [4, 3], name="x")
    with tf.device("/cpu:1"):
        rows = tf.reduce_logsumexp(x * 30.0, axis=1)
        kept = tf.reduce_logsumexp(x, axis=0, keepdims=True, name="kept")
    whole = tf.reduce_logsumexp(x)
    positive = tf.count_nonzero(tf.nn.relu(x), axis=1)
    hits = tf.count_nonzero(x > 0.5, dtype=tf.int32)
    grads = tf.gradients(tf.reduce_sum(rows) + tf.reduce_sum(kept) + whole, x)
    return _facts(tf, [rows, kept, whole, positive, hits] + grads, {x: X}, rewrites_off=rewrites_off)


def case_leaky_relu_of_ints(tf, rewrites_off=False):
    y = tf.nn.leaky_relu(tf.constant([-3, 0, 5]))
    return _facts(tf, [y], rewrites_off=rewrites_off)


def case_elu_of_ints(tf, rewrites_off=False):
    return _error(lambda: tf.nn.elu(tf.constant([1, 2])))


def case_relu6_of_strings(tf, rewrites_off=False):
    return _error(lambda: tf.nn.relu6(tf.constant(["a"])))


# -- accuracy, top-k -------------------------------------------------------------------------------
def case_accuracy_and_top_k(tf, rewrites_off=False):
    logits = tf.placeholder(tf.float32, [4, 3], name="logits")
    labels = tf.placeholder(tf.int64, [4], name="labels")
    with tf.device("/cpu:1"):
        prediction = tf.argmax(logits, 1)
        correct = tf.equal(prediction, labels)
        accuracy = tf.reduce_mean(tf.cast(correct, tf.float32), name="accuracy")
    values, indices = tf.nn.top_k(logits, k=2)
    top1 = tf.nn.top_k(logits[0], name="best")
    in_top2 = tf.nn.in_top_k(logits, tf.cast(labels, tf.int32), 2)
    in_top1 = tf.nn.in_top_k(logits, labels, 1, name="top1")
    return _facts(tf, [prediction, correct, accuracy, values, indices, top1.values, top1.indices, in_top2, in_top1],
                  {logits: LOGITS, labels: LABELS}, rewrites_off=rewrites_off)


def case_math_namespace(tf, rewrites_off=False):
    logits = tf.placeholder(tf.float32, [4, 3], name="logits")
    labels = tf.placeholder(tf.int64, [4], name="labels")
    accuracy = tf.math.reduce_mean(tf.cast(tf.math.equal(tf.math.argmax(logits, 1), labels), tf.float32))
    top2 = tf.math.in_top_k(logits, labels, 2)
    spread = tf.math.reduce_logsumexp(tf.math.log1p(tf.math.softplus(logits)), axis=1)
    safe = tf.math.divide_no_nan(tf.math.count_nonzero(logits > 0.3), tf.constant(0, tf.int64))
    return _facts(tf, [accuracy, top2, spread, safe], {logits: LOGITS, labels: LABELS}, rewrites_off=rewrites_off)


def case_top_k_gradient(tf, rewrites_off=False):
    logits = tf.placeholder(tf.float32, [4, 3], name="logits")
    with tf.device("/cpu:1"):
        values, _ = tf.nn.top_k(logits * 2.0, k=2)
    loss = tf.reduce_sum(values * tf.constant([[1.0, 0.5]]))
    grads = tf.gradients(loss, logits)
    return _facts(tf, [values] + grads, {logits: LOGITS}, rewrites_off=rewrites_off)


def case_top_k_too_few_columns(tf, rewrites_off=False):
    logits = tf.placeholder(tf.float32, [None, None], name="logits")
    values, _ = tf.nn.top_k(logits, k=4)
    return _error(lambda: _run(tf, values, {logits: LOGITS}, rewrites_off=rewrites_off))


# -- tf.metrics: local variables total/count, an update op per batch, the value read after ------------
def case_metrics_accuracy_and_mean(tf, rewrites_off=False):
    logits = tf.placeholder(tf.float32, [4, 3], name="logits")
    labels = tf.placeholder(tf.int64, [4], name="labels")
    loss = tf.placeholder(tf.float32, [], name="loss")
    with tf.device("/cpu:1"):
        acc, acc_update = tf.metrics.accuracy(labels=labels, predictions=tf.argmax(logits, 1))
    mean_loss, mean_update = tf.metrics.mean(loss, metrics_collections=["my_metrics"])
    weighted, weighted_update = tf.metrics.mean(tf.constant([1.0, 2.0, 3.0, 4.0]), weights=[0.0, 1.0, 1.0, 2.0],
                                                name="weighted")
    facts = {"ops": graph_facts(tf),
             "collections": [[v.op.name for v in tf.local_variables()],
                             [t.name for t in tf.get_collection("my_metrics")],
                             [v.op.name for v in tf.get_collection(tf.GraphKeys.METRIC_VARIABLES)]]}
    config = tf.ConfigProto(device_count={"CPU": 2})
    if rewrites_off:
        config.graph_options.rewrite_options.disable_meta_optimizer = True
        config.graph_options.optimizer_options.opt_level = -1
    values = []
    with tf.Session(config=config) as sess:
        sess.run(tf.local_variables_initializer())
        for i, batch_loss in enumerate((2.0, 1.0, 0.5)):
            batch_labels = np.roll(LABELS, i)
            values.append(sess.run([acc_update, mean_update, weighted_update],
                                   {logits: LOGITS, labels: batch_labels, loss: batch_loss}))
        values.append(sess.run([acc, mean_loss, weighted]))
    facts["values"] = _values(values)
    return facts


def case_metrics_precision_and_recall(tf, rewrites_off=False):
    predicted = tf.placeholder(tf.int64, [4], name="predicted")
    labels = tf.placeholder(tf.int64, [4], name="labels")
    with tf.device("/cpu:1"):
        precision, precision_update = tf.metrics.precision(labels, predicted)
    recall, recall_update = tf.metrics.recall(labels=labels, predictions=predicted, name="rec",
                                              updates_collections=["my_updates"])
    facts = {"ops": graph_facts(tf), "collections": [[v.op.name for v in tf.local_variables()],
                                                     [t.name for t in tf.get_collection("my_updates")]]}
    config = tf.ConfigProto(device_count={"CPU": 2})
    if rewrites_off:
        config.graph_options.rewrite_options.disable_meta_optimizer = True
        config.graph_options.optimizer_options.opt_level = -1
    values = []
    with tf.Session(config=config) as sess:
        sess.run(tf.local_variables_initializer())
        values.append(sess.run([precision, recall]))  # nothing counted yet: 0, not NaN
        for batch_predicted, batch_labels in (([1, 0, 1, 1], [1, 1, 0, 1]), ([0, 0, 1, 0], [0, 1, 1, 1])):
            values.append(sess.run([precision_update, recall_update],
                                   {predicted: batch_predicted, labels: batch_labels}))
        values.append(sess.run([precision, recall]))
    facts["values"] = _values(values)
    return facts


def case_metrics_regression_errors(tf, rewrites_off=False):
    predictions = tf.placeholder(tf.float32, [4, 1], name="predictions")
    targets = [0.5, -1.0, 2.0, 0.0]
    mae, mae_update = tf.metrics.mean_absolute_error(targets, predictions)
    mse, mse_update = tf.metrics.mean_squared_error(targets, predictions, weights=[1.0, 0.0, 2.0, 1.0])
    rmse, rmse_update = tf.metrics.root_mean_squared_error(targets, predictions, metrics_collections=["m"])
    acc, acc_update = tf.metrics.accuracy([1, 0, 1, 1], tf.cast(predictions > 0, tf.int32), weights=[1, 1, 0, 1])
    facts = {"ops": graph_facts(tf), "collections": [t.name for t in tf.get_collection("m")]}
    values = []
    with tf.Session() as sess:
        sess.run(tf.local_variables_initializer())
        for batch in ([[1.0], [0.0], [2.5], [-1.0]], [[0.0], [-1.5], [1.0], [0.5]]):
            values.append(sess.run([mae_update, mse_update, rmse_update, acc_update], {predictions: batch}))
        values.append(sess.run([mae, mse, rmse, acc]))
    facts["values"] = _values(values)
    return facts


def case_metrics_accuracy_of_mismatched_shapes(tf, rewrites_off=False):
    return _error(lambda: tf.metrics.accuracy(labels=tf.constant([1, 2, 0, 1]), predictions=tf.constant([1, 2, 0])))


def case_in_top_k_of_float_targets(tf, rewrites_off=False):
    return _error(lambda: tf.nn.in_top_k(tf.constant(LOGITS), tf.constant([1.0, 0.0, 2.0, 1.0]), 1))


def case_in_top_k_of_double_predictions(tf, rewrites_off=False):
    return _error(lambda: tf.nn.in_top_k(tf.constant(LOGITS, tf.float64), tf.constant([1, 0, 2, 1]), 1))


# -- optimizers' argument checks ---------------------------------------------------------------------
def case_adagrad_zero_accumulator(tf, rewrites_off=False):
    return _error(lambda: tf.train.AdagradOptimizer(0.1, initial_accumulator_value=0.0))


def case_ftrl_negative_l1(tf, rewrites_off=False):
    return _error(lambda: tf.train.FtrlOptimizer(0.1, l1_regularization_strength=-1.0))


def case_ftrl_positive_power(tf, rewrites_off=False):
    return _error(lambda: tf.train.FtrlOptimizer(0.1, learning_rate_power=0.5))


CASES = {name[5:]: fn for name, fn in sorted(globals().items()) if name.startswith("case_")}
