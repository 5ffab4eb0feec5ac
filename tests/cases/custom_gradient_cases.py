"""Issue 27's gradient surface: ``tf.custom_gradient`` (graph mode: an IdentityN under
``gradient_override_map``), ``tf.RegisterGradient``, ``tf.identity_n``,
``tf.math.reduce_euclidean_norm`` with its gradient, ``tf.gradients``' experimental aggregation
methods, ``&``/``|``/``^``/``~`` on integers (bitwise ops), list-output ops of one output (their value, not a list of one), xlogy/xdivy/xlog1py with their gradients, and TF's error for a variable made inside a custom-gradient function.
The same functions run under TensorFlow 2.21 (``tools/record_cases.py custom_gradient
tests/data/tf_custom_gradient.json``) and under devlab (tests/test_custom_gradient.py compares)."""
import numpy as np

from control_flow_cases import graph_facts, run
from rnn_cases import _values
from script_cases import _error


def _facts(tf, fetch, feed=None, rewrites_off=False):
    facts = {"ops": graph_facts(tf)}
    placed, value = run(tf, fetch, feed, rewrites_off=rewrites_off)
    facts.update(placed=placed, values=_values(value))
    return facts


def case_custom_gradient_replaces_the_gradient(tf, rewrites_off=False):
    @tf.custom_gradient
    def scaled_identity(x):
        def grad(dy):
            return [3 * dy]
        return tf.identity(x), grad

    @tf.custom_gradient
    def multiply(x1, x2):
        def grad(dy):
            return [dy * x1, dy * x2]  # swapped on purpose: the custom rule, not Mul's, is used
        return x1 * x2, grad

    x1, x2 = tf.constant(3.0, name="x1"), tf.constant(5.0, name="x2")
    y = scaled_identity(scaled_identity(x1))
    z = multiply(x1, x2)
    return _facts(tf, [y, tf.gradients(y, x1), z, tf.gradients(z, [x1, x2])], rewrites_off=rewrites_off)


def case_custom_gradient_with_a_variable_it_reads(tf, rewrites_off=False):
    v = tf.Variable(np.ones(3, np.float32), name="v")
    x = tf.constant(2.0, name="x")

    @tf.custom_gradient
    def times_v(x):
        def grad(dy, variables=None):
            return tf.reduce_sum(dy * 2.0), [dy * 7.0 for _ in variables]
        return x * v, grad

    y = times_v(x)
    g = tf.gradients(y, [x, v])
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        values = sess.run([y] + g)
    return {"ops": graph_facts(tf), "values": _values(values)}


def case_custom_gradient_refuses_a_new_ref_variable(tf, rewrites_off=False):
    @tf.custom_gradient
    def f(x):
        u = tf.get_variable("u", [])
        return x * u, lambda dy, variables=None: (dy, [dy])

    return _error(lambda: f(tf.constant(1.0)))


def case_custom_gradient_needs_the_variables_keyword(tf, rewrites_off=False):
    v = tf.Variable(1.0, name="v")

    @tf.custom_gradient
    def f(x):
        return x * v, lambda dy: dy

    return _error(lambda: f(tf.constant(1.0)))


def case_register_gradient_and_override_map(tf, rewrites_off=False):
    @tf.RegisterGradient("DevlabCaseDoubleGrad")
    def _double(op, grad):
        return [grad * 2.0]

    x = tf.constant([1.0, -2.0], name="x")
    with tf.get_default_graph().gradient_override_map({"Identity": "DevlabCaseDoubleGrad"}):
        y = tf.identity(x, name="y")
    z = tf.identity(y, name="z")  # outside the map: Identity's own gradient
    facts = _facts(tf, tf.gradients(z * z, x), rewrites_off=rewrites_off)
    twice = _error(lambda: tf.RegisterGradient("DevlabCaseDoubleGrad")(_double))["error"]
    facts["twice"] = [twice[0], twice[1].split(" (Previous")[0].strip("\"")]  # TF then names its registry's file
    return facts


def case_identity_n(tf, rewrites_off=False):
    a, b = tf.constant([1.0, 2.0], name="a"), tf.constant(3, name="b")
    outs = tf.identity_n([a, b])
    g = tf.gradients(outs[0] * 5.0, a)
    return _facts(tf, list(outs) + g, rewrites_off=rewrites_off)


def case_reduce_euclidean_norm_and_its_gradient(tf, rewrites_off=False):
    f = tf.math.reduce_euclidean_norm
    x = tf.constant([[3.0, 5.0], [7.0, 11.0]], name="x")
    i = tf.constant([[3, 5], [7, 11]], name="i")
    u = tf.constant([200, 100], tf.uint8, name="u")
    c = tf.constant([3 + 4j, 1j], tf.complex64, name="c")
    outs = [f(x), f(x, 0), f(x, 1, keepdims=True), f(x, [-1]), f(i, 1), f(u), f(x, [])]
    grads = tf.gradients(f(x, 0), x) + tf.gradients(f(x), x) + tf.gradients(f(x, 1, keepdims=True), x)
    facts = _facts(tf, outs + grads, rewrites_off=rewrites_off)
    with tf.Session() as sess:
        norm = sess.run(f(c))
    facts["complex"] = [float(norm.real), float(norm.imag)]
    return facts


def case_experimental_aggregation_adds_pairwise(tf, rewrites_off=False):
    x = tf.constant([1.0, 2.0], name="x")
    y = x * 2.0 + x * 3.0 + tf.sin(x)
    out = []
    for method in (tf.AggregationMethod.EXPERIMENTAL_TREE, tf.AggregationMethod.EXPERIMENTAL_ACCUMULATE_N,
                   tf.AggregationMethod.ADD_N):
        out += tf.gradients(y, x, aggregation_method=method)
    return _facts(tf, out, rewrites_off=rewrites_off)


def case_xlogy_xdivy_xlog1py_and_their_gradients(tf, rewrites_off=False):
    x = tf.constant([0.0, 1.0, 2.0, 0.5], name="x")
    y = tf.constant([0.0, 3.0, 0.25, 2.0], name="y")  # no nan: the comparison of values needs equal numbers
    row = tf.constant([[2.0], [0.0]], name="row")
    outs = [tf.math.xlogy(x, y), tf.math.xdivy(x, y), tf.math.xlog1py(x, y), tf.math.xlogy(row, y)]
    grads = tf.gradients(outs[0] + outs[1] + outs[2], [x, y]) + tf.gradients(outs[3], [row, y])
    return _facts(tf, outs + grads, rewrites_off=rewrites_off)


def case_list_output_ops_of_one_output(tf, rewrites_off=False):
    x = tf.constant([[1.0, 2.0, 3.0]], name="x")
    y = tf.constant([[1.0, 2.0], [3.0, 4.0]], name="y")
    outs = [tf.unstack(x)[0] + 1.0, tf.split(y, 1)[0] * 2.0, tf.split(y, [2], 1)[0], tf.shape_n([y])[0],
            tf.dynamic_partition(y, [0, 0], 1)[0], tf.identity_n([x])[0]]
    return _facts(tf, outs + [tf.shape(o) for o in outs], rewrites_off=rewrites_off)


def case_bitwise_operators_on_integers(tf, rewrites_off=False):
    x, y = tf.constant([0, 1, 3, -2], name="x"), tf.constant([1, 1, 6, 5], name="y")
    p, q = tf.constant([True, True, False]), tf.constant([True, False, False])
    outs = [x & y, x | y, x ^ y, ~x, x & 2, 6 | y, p & q, p | q, p ^ q, ~p]
    facts = _facts(tf, outs, rewrites_off=rewrites_off)
    facts["float"] = _error(lambda: tf.constant([1.0]) & tf.constant([2.0]))
    return facts


CASES = {name[len("case_"):]: fn for name, fn in sorted(globals().items()) if name.startswith("case_")}
