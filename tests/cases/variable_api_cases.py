"""Variable-scope arguments that once were accepted and ignored (issue 24): ``custom_getter`` (on
``variable_scope``, chained as TF chains nested ones, on ``get_variable``, and reaching
``tf.layers``' variables), ``caching_device`` (the ``read`` Identity on the caching device, not
beside the variable), ``dtype`` and ``regularizer`` of a scope, ``read_value=False`` of
``Variable.assign``, ``verify_shape`` of ``tf.constant`` and the other small arguments the
signature audit found. The first case is tensor2tensor's ``Parallelism`` with daisy-chained
per-tower variable copies.
The same functions run under TensorFlow 2.21 (tools/record_cases.py variable_api writes what it
does to tests/data/tf_variable_api.json) and under devlab (tests/test_variable_api.py compares)."""
import re

import numpy as np

from control_flow_cases import graph_facts
from rnn_cases import _values
from script_cases import _error

X = (np.arange(12, dtype=np.float32).reshape(3, 4) - 5.0) / 10.0


def run(tf, fetch, feed=None, rewrites_off=False, cpus=3, steps=0, train=None):
    """(placements from the partition graphs, the value of ``fetch``) on ``cpus`` CPUs, after the
    variables are initialized and ``train`` ran ``steps`` times."""
    config = tf.ConfigProto(device_count={"CPU": cpus})
    if rewrites_off:
        config.graph_options.rewrite_options.disable_meta_optimizer = True
        config.graph_options.optimizer_options.opt_level = -1
    opts = tf.RunOptions(output_partition_graphs=True)
    md = tf.RunMetadata()
    with tf.Session(config=config) as sess:
        sess.run(tf.global_variables_initializer())
        for _ in range(steps):
            sess.run(train, feed_dict=feed)
        value = sess.run(fetch, feed_dict=feed, options=opts, run_metadata=md)
    placed = {n.name: n.device for pg in md.partition_graphs for n in pg.node if not re.search(r"(^|/)_", n.name)}
    return placed, value


def _facts(tf, fetch, feed=None, rewrites_off=False, **kw):
    facts = {"ops": graph_facts(tf)}
    placed, value = run(tf, fetch, feed, rewrites_off=rewrites_off, **kw)
    facts.update(placed=placed, values=_values(value))
    return facts


# -- tensor2tensor's Parallelism: one model per tower, variables read through a daisy chain ----------
class Parallelism:
    """tensor2tensor's ``expert_utils.Parallelism`` (the parts a data-parallel model uses): each
    tower in its name scope, the variable scope re-entered with reuse after the first, its
    caching device, and a custom getter that copies each variable once per device, chained from
    the previous tower's copy (``daisy_chain_variables``)."""

    def __init__(self, tf, devices, caching_devices):
        self.tf, self.devices, self.caching_devices = tf, devices, caching_devices

    def __call__(self, fn, *args):
        tf = self.tf
        cache = {}
        outputs = []
        for i, device in enumerate(self.devices):
            def daisy_chain_getter(getter, name, *a, device=device, **kw):
                if (device, name) in cache:
                    return cache[(device, name)]
                if name in cache:
                    getter(name, *a, **kw)
                    v = tf.identity(cache[name])
                else:
                    var = getter(name, *a, **kw)
                    v = tf.identity(var._ref())
                cache[(device, name)] = v
                cache[name] = v
                return v
            with tf.name_scope(f"parallel_{i}"):
                with tf.variable_scope(tf.get_variable_scope(), reuse=True if i > 0 else None,
                                       caching_device=self.caching_devices[i], custom_getter=daisy_chain_getter):
                    with tf.device(device):
                        outputs.append(fn(*[a[i] for a in args]))
        return outputs


def case_tensor2tensor_parallelism_daisy_chain(tf, rewrites_off=False):
    x = tf.placeholder(tf.float32, [3, 4], name="x")
    halves = [x[:2], x[2:]]

    def model(inputs):
        h = tf.layers.dense(inputs, 3, activation=tf.nn.tanh, name="hidden",
                            kernel_initializer=tf.constant_initializer(0.1))
        w = tf.get_variable("out_w", [3, 2], initializer=tf.constant_initializer(0.2))
        return tf.reduce_sum(tf.matmul(h, w))

    par = Parallelism(tf, ["/cpu:1", "/cpu:2"], ["/cpu:1", "/cpu:2"])
    losses = par(model, halves)
    loss = tf.add_n(losses)
    train = tf.train.GradientDescentOptimizer(0.1).minimize(loss)
    names = sorted(v.name for v in tf.global_variables())
    facts = _facts(tf, [loss] + losses, {x: X}, rewrites_off, steps=1, train=train)
    facts["variables"] = names
    return facts


def case_caching_device_places_the_read_there(tf, rewrites_off=False):
    with tf.device("/cpu:0"):
        with tf.variable_scope("s", caching_device="/cpu:1"):
            a = tf.get_variable("a", [2], initializer=tf.ones_initializer())
            b = tf.get_variable("b", [2], initializer=tf.ones_initializer(), caching_device="/cpu:2")
        c = tf.Variable([1.0, 2.0], name="c", caching_device=lambda op: "/cpu:2")
    tf.get_variable_scope().set_caching_device("/cpu:1")
    d = tf.get_variable("d", [], initializer=tf.zeros_initializer())
    with tf.device("/cpu:2"):
        total = a + b + c + d
    return _facts(tf, total, rewrites_off=rewrites_off)


# -- custom getters: chained, per call, reaching tf.layers ---------------------------------------------
def case_nested_custom_getters_chain_inner_first(tf, rewrites_off=False):
    calls = []

    def outer(getter, name, *args, **kwargs):
        calls.append("outer " + name)
        return getter(name, *args, **kwargs) * 2.0

    def inner(getter, name, *args, **kwargs):
        calls.append("inner " + name)
        kwargs["trainable"] = False
        return getter(name, *args, **kwargs) + 1.0

    with tf.variable_scope("a", custom_getter=outer):
        with tf.variable_scope("b", custom_getter=inner):
            v = tf.get_variable("v", [2], initializer=tf.constant_initializer(3.0))
            y = tf.layers.dense(tf.constant([[1.0, 2.0]]), 1, kernel_initializer=tf.ones_initializer())
        w = tf.get_variable("w", [], initializer=tf.constant_initializer(4.0),
                            custom_getter=lambda getter, *a, **k: getter(*a, **k) - 1.0)
    facts = _facts(tf, [v, y, w], rewrites_off=rewrites_off)
    facts.update(calls=calls, trainable=sorted(t.name for t in tf.trainable_variables()))
    return facts


def case_custom_getter_gets_every_argument(tf, rewrites_off=False):
    seen = {}

    def record(getter, name, shape=None, dtype=None, initializer=None, regularizer=None, reuse=None,
               trainable=None, collections=None, caching_device=None, partitioner=None, validate_shape=True,
               use_resource=None, **rest):
        seen[name] = [shape, dtype.name, reuse, trainable, caching_device, validate_shape, sorted(rest)]
        return getter(name, shape, dtype, initializer, regularizer, reuse, trainable, collections, caching_device,
                      partitioner, validate_shape, use_resource, **rest)

    with tf.variable_scope("r", custom_getter=record, caching_device="/cpu:1"):
        tf.get_variable("v", [2, 3], trainable=False)
    with tf.variable_scope("r", reuse=True, custom_getter=record):
        tf.get_variable("v", [2, 3])
    with tf.variable_scope("r", reuse=True):
        err = _error(lambda: tf.get_variable("q", [1], custom_getter=3))
    return {"seen": seen, "error": err["error"], "ops": graph_facts(tf)}


# -- the scope's dtype and regularizer --------------------------------------------------------------
def case_variable_scope_dtype_and_regularizer(tf, rewrites_off=False):
    with tf.variable_scope("d", dtype=tf.float64, regularizer=lambda v: tf.reduce_sum(v) * 0.5):
        a = tf.get_variable("a", [2], initializer=tf.ones_initializer())
        with tf.variable_scope("inner"):
            b = tf.get_variable("b", [], initializer=tf.zeros_initializer())
            c = tf.get_variable("c", [2], dtype=tf.float32, initializer=tf.ones_initializer())
    with tf.variable_scope("int", dtype=tf.int32):
        n = tf.get_variable("n", [2])
    mismatch = _error(lambda: tf.get_variable("m", initializer=np.array([1, 2], np.int32), dtype=tf.float32))
    with tf.variable_scope("layer"):
        tf.layers.dense(tf.constant([[1.0, 2.0]]), 2, kernel_initializer=tf.ones_initializer(),
                        kernel_regularizer=lambda w: tf.reduce_mean(w) * 0.1, name="reg")
    losses = tf.get_collection(tf.GraphKeys.REGULARIZATION_LOSSES)
    facts = _facts(tf, [a, b, c, n] + losses, rewrites_off=rewrites_off, cpus=1)
    facts.update(dtypes=[t.dtype.name for t in (a, b, c, n)], error=mismatch["error"],
                 losses=[t.name for t in losses])
    return facts


# -- small arguments the signature audit found ---------------------------------------------------------
def case_assign_read_value_and_constant_verify_shape(tf, rewrites_off=False):
    v = tf.Variable([1.0, 2.0], name="v")
    ops = [v.assign([3.0, 4.0], read_value=False), v.assign_add([1.0, 1.0], read_value=False),
           v.assign_sub([0.5, 0.5], read_value=False)]
    kinds = [type(o).__name__ == "Operation" for o in ops]
    value = v.assign([5.0, 6.0])
    bad = _error(lambda: tf.constant([1.0, 2.0], shape=[3], verify_shape=True))
    good = tf.constant([1.0, 2.0, 3.0], shape=[3], verify_shape=True)
    facts = _facts(tf, [value, good], rewrites_off=rewrites_off)
    facts.update(operations=kinds, error=bad["error"])
    return facts


def case_xent_positional_arguments_and_softmax_dim(tf, rewrites_off=False):
    """TF 2.21's v1 xent functions take (labels, logits) positionally (no ``_sentinel``); ``dim`` is
    the old name of ``axis``; ``tf.assign``'s third argument is ``validate_shape``."""
    logits = tf.constant([[0.5, -1.0], [2.0, 0.0], [0.1, 0.3]])
    labels = tf.constant([[1.0, 0.0], [0.0, 1.0], [0.5, 0.5]])
    sigmoid = tf.nn.sigmoid_cross_entropy_with_logits(labels, logits)
    sparse = tf.nn.sparse_softmax_cross_entropy_with_logits(tf.constant([0, 1, 1]), logits)
    dense = tf.nn.softmax_cross_entropy_with_logits_v2(labels=labels, logits=logits, dim=-1)
    soft = [tf.nn.softmax(logits, axis=1), tf.nn.log_softmax(logits, dim=-1), tf.nn.softmax(logits, dim=1)]
    v = tf.Variable([1.0, 2.0], name="v")
    grown = tf.assign(v, [1.0, 2.0, 3.0], False)
    facts = _facts(tf, [sigmoid, sparse, dense] + soft + [grown], rewrites_off=rewrites_off)
    facts["grown_shape"] = grown.shape.as_list()
    return facts


def case_optimizer_aggregation_method_and_gradients(tf, rewrites_off=False):
    v = tf.Variable([1.0, 2.0], name="v")
    y = v * v + v * 3.0
    g = tf.gradients(y, v, aggregation_method=tf.AggregationMethod.ADD_N)
    train = tf.train.GradientDescentOptimizer(0.1).minimize(tf.reduce_sum(y),
                                                            aggregation_method=tf.AggregationMethod.DEFAULT)
    w = tf.Variable([0.5, -0.5], name="w")
    gated = tf.train.MomentumOptimizer(0.1, 0.9).minimize(tf.reduce_sum(w * w * 2.0 + w), var_list=[w],
                                                          gate_gradients=tf.train.Optimizer.GATE_GRAPH)
    return _facts(tf, g + [w], rewrites_off=rewrites_off, steps=2, train=[train, gated])


def case_layers_arguments_batch_norm_unfused_flatten_channels_first(tf, rewrites_off=False):
    """``fused=False`` on a 4-D input builds the unfused ops; beta/gamma regularizers; Flatten of a
    channels_first input transposes first; a scope's caching device reaches a layer's variables."""
    x = tf.placeholder(tf.float32, [2, 2, 2, 3], name="x")
    with tf.variable_scope("net", caching_device="/cpu:1"):
        y = tf.layers.batch_normalization(x, training=True, fused=False, gamma_regularizer=lambda g: tf.reduce_sum(g),
                                          beta_regularizer=lambda b: tf.reduce_sum(b) * 2.0)
        z = tf.layers.batch_normalization(x, training=False, fused=None, name="bn2")
        f = tf.layers.flatten(tf.reshape(tf.range(24.0), [2, 3, 2, 2]), data_format="channels_first")
    updates = tf.get_collection(tf.GraphKeys.UPDATE_OPS)
    losses = tf.get_collection(tf.GraphKeys.REGULARIZATION_LOSSES)
    x_value = np.arange(24, dtype=np.float32).reshape(2, 2, 2, 3) / 7.0
    facts = _facts(tf, [y, z, f] + losses, {x: x_value}, rewrites_off, steps=1, train=updates)
    facts.update(losses=[t.name for t in losses], updates=sorted(u.name for u in updates))
    return facts


def case_get_variable_without_shape_and_local_variables(tf, rewrites_off=False):
    """An initializer that takes no arguments makes the value itself (no shape needed); one that
    needs a shape, or none at all, is TF's ValueError. get_local_variable and no_regularizer
    (issue 27, variable_scope_test.py)."""
    a = tf.get_variable("a", initializer=lambda: [[1.0, 2.0]])
    b = tf.get_variable("b", initializer=lambda scale=2: np.int32(3) * scale)
    errors = [_error(lambda: tf.get_variable("d", initializer=lambda shape: 1.0))["error"],
              _error(lambda: tf.get_variable("e"))["error"],
              _error(lambda: tf.get_variable("f", shape=[None], initializer=tf.zeros_initializer()))["error"],
              _error(lambda: tf.get_variable("g", [1], initializer=tf.constant([1.0])))["error"]]
    with tf.variable_scope("", reuse=True):  # sharing checks the shape and dtype asked for
        errors += [_error(lambda kw=kw: tf.get_variable("a", **kw))["error"]
                   for kw in (dict(shape=[2]), dict(dtype=tf.float64), dict(shape=[None, 2]))]
    with tf.variable_scope("s", regularizer=lambda v: tf.reduce_sum(v)):
        loc = tf.get_local_variable("loc", [2], trainable=True, collections=["mine"],
                                    initializer=tf.ones_initializer())
        tf.get_variable("plain", [1], regularizer=tf.no_regularizer)
    facts = _facts(tf, [a, b])
    facts.update(errors=errors, shapes=[str(v.shape) for v in (a, b)], dtypes=[v.dtype.name for v in (a, b)],
                 local=[v.name for v in tf.local_variables()], trainable=[v.name for v in tf.trainable_variables()],
                 mine=[v.name for v in tf.get_collection("mine")],
                 losses=len(tf.get_collection(tf.GraphKeys.REGULARIZATION_LOSSES)))
    return facts


CASES = {name[len("case_"):]: fn for name, fn in sorted(globals().items()) if name.startswith("case_")}
