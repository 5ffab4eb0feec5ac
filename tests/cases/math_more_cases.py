"""The math ops beside the common ones and their gradients: the sorted-segment max/min/prod/mean,
``tf.math.multiply_no_nan``, ``nextafter``, ``argmin``, ``cumprod``, ``reduce_prod``'s gradient
(two exclusive cumprods), ``tf.norm`` and ``tf.Print``'s graph; with TF's run-time errors.
The same functions run under TensorFlow 2.21 (``tools/record_cases.py math_more
tests/data/tf_math_more.json``) and under devlab (tests/test_math_more.py compares)."""
import numpy as np

from control_flow_cases import graph_facts, run
from rnn_cases import _values
from script_cases import _error


def _facts(tf, fetch, feed=None, rewrites_off=False):
    facts = {"ops": graph_facts(tf)}
    placed, value = run(tf, fetch, feed, rewrites_off=rewrites_off)
    facts.update(placed=placed, values=_values(value))
    return facts


def case_segment_reductions_and_their_gradients(tf, rewrites_off=False):
    data = tf.constant([[1., 2.], [3., -4.], [5., 6.], [0., 6.]], name="data")
    ids = tf.constant([0, 0, 2, 2], dtype=tf.int64, name="ids")
    outs = [tf.segment_max(data, ids), tf.segment_min(data, ids), tf.segment_prod(data, ids),
            tf.segment_mean(data, ids)]
    grads = [tf.gradients(o, data)[0] for o in outs]
    return _facts(tf, outs + grads, rewrites_off=rewrites_off)


def case_segment_errors(tf, rewrites_off=False):
    data = tf.constant([[1., 2.], [3., -4.], [5., 6.]], name="data")
    facts = {}
    with tf.Session() as sess:
        facts["unsorted"] = _error(lambda: sess.run(tf.segment_max(data, [1, 0, 0])))
        facts["size"] = _error(lambda: sess.run(tf.segment_min(data, [0, 0])))
        facts["negative"] = _error(lambda: sess.run(tf.segment_prod(data, [-1, 0, 0])))
    return facts


def case_mul_no_nan_nextafter_argmin_cumprod(tf, rewrites_off=False):
    x = tf.constant([0., 1., np.nan, np.inf, -2.], name="x")
    y = tf.constant([0., 0., 0., 2., 3.], name="y")
    m = tf.math.multiply_no_nan(x, y)
    a = tf.constant([[3., 1., 2.], [0., 5., -1.]], name="a")
    n = tf.math.nextafter(a, 10.)
    am = tf.argmin(a, 1)
    am32 = tf.math.argmin(a, 0, output_type=tf.int32)
    c = tf.math.cumprod(a, 1, exclusive=True, reverse=True)
    cg = tf.gradients(tf.math.cumprod(a, 1), a)[0]
    return _facts(tf, [m, n, am, am32, c, cg], rewrites_off=rewrites_off)


def case_prod_gradient_with_zeros(tf, rewrites_off=False):
    a = tf.constant([[1., 0., 2.], [3., 4., 5.]], name="a")
    p = tf.reduce_prod(a, axis=-1)
    g = tf.gradients(p, a)[0]
    g_all = tf.gradients(tf.reduce_prod(a), a)[0]
    return _facts(tf, [p, g, g_all], rewrites_off=rewrites_off)


def case_norms(tf, rewrites_off=False):
    x = tf.constant([[1., -2., 3.], [4., 5., -6.]], name="x")
    outs = [tf.norm(x), tf.norm(x, axis=0), tf.norm(x, axis=1, keepdims=True), tf.norm(x, ord=1),
            tf.norm(x, ord=np.inf, axis=1), tf.norm(x, ord=3, axis=0), tf.linalg.norm(x, ord="fro", axis=(0, 1)),
            tf.norm(x, ord=1, axis=[0, 1]), tf.norm(x, ord=np.inf, axis=(0, 1))]
    facts = _facts(tf, outs, rewrites_off=rewrites_off)
    facts["bad_ord"] = _error(lambda: tf.norm(x, ord=-1))
    return facts


def case_print_passes_its_input_on(tf, rewrites_off=False):
    x = tf.constant([[1., 2., 3.], [4., 5., 6.]], name="x")
    p = tf.Print(x, [x, tf.constant(3), tf.constant(2.5)], message="x is ", summarize=4)
    facts = _facts(tf, tf.identity(p) * 2.0, rewrites_off=rewrites_off)
    facts["attrs"] = [p.op.get_attr("summarize"), p.op.get_attr("first_n")]
    return facts


def case_complex_numbers_and_their_gradients(tf, rewrites_off=False):
    re = tf.constant([[1., -2.], [0.5, 3.]], name="re")
    im = tf.constant([[2., 1.], [-1., 0.]], name="im")
    c = tf.complex(re, im)
    parts = [tf.math.real(c), tf.math.imag(c), tf.abs(c), tf.math.real(tf.math.conj(c))]
    p = tf.reduce_prod(c, axis=-1)
    seed = tf.constant(np.array([1 + 1j, 2 - 1j], np.complex64), name="seed")
    g_prod = tf.gradients(p, c, grad_ys=seed)[0]
    g_abs = tf.gradients(tf.abs(c), c)[0]
    g_parts = tf.gradients(tf.abs(c), [re, im])
    facts = _facts(tf, parts + [tf.math.real(g_prod), tf.math.imag(g_prod), tf.math.real(g_abs),
                                tf.math.imag(g_abs)] + g_parts, rewrites_off=rewrites_off)
    facts["dtypes"] = [c.dtype.name, parts[2].dtype.name, tf.complex(tf.cast(re, tf.float64), tf.cast(im, tf.float64)).dtype.name]
    facts["bad_types"] = _error(lambda: tf.complex(re, tf.cast(im, tf.float64)))
    return facts


def case_complex_gradient_checker(tf, rewrites_off=False):
    c = tf.constant(np.array([[1 + 3j, 2 - 1j], [3j, 4]], np.complex64), name="c")
    out = tf.reduce_prod(c, -1)
    with tf.Session():
        theoretical, numerical = tf.test.compute_gradient(c, [2, 2], out, [2], x_init_value=np.array(
            [[1 + 3j, 2 - 1j], [3j, 4]], np.complex64))
    return {"values": [np.round(theoretical, 3).tolist(), np.round(numerical, 2).tolist()],
            "shapes": [list(theoretical.shape), list(numerical.shape)]}


def case_clip_by_average_norm(tf, rewrites_off=False):
    t = tf.constant([[-3.0, 0.0, 0.0], [4.0, 0.0, 0.0]], name="t")
    return _facts(tf, [tf.clip_by_average_norm(t, 0.8), tf.clip_by_average_norm(t, 0.9),
                       tf.clip_by_average_norm(t, tf.constant(0.5))], rewrites_off=rewrites_off)


def case_complex_gradients_through_split_and_concat(tf, rewrites_off=False):
    c = tf.constant(np.array([[1 + 1j, 2 - 1j, 3j, 4]], np.complex64), name="c")
    parts = tf.split(c, 2, axis=1)
    seeds = [tf.constant(np.array([[1j, 2]], np.complex64)), tf.constant(np.array([[3, -1j]], np.complex64))]
    g = tf.gradients(parts, c, seeds)[0]
    return _facts(tf, [tf.math.real(g), tf.math.imag(g)], rewrites_off=rewrites_off)


def case_embedding_lookup_with_max_norm(tf, rewrites_off=False):
    table = tf.constant([[3.0, 4.0], [0.3, 0.4], [6.0, 8.0]], name="table")
    shards = [tf.constant([[3.0, 4.0], [6.0, 8.0]], name="s0"), tf.constant([[0.3, 0.4]], name="s1")]
    ids = tf.constant([[0, 1], [2, 0]], name="ids")
    one = tf.nn.embedding_lookup(table, ids, max_norm=2.0)
    sharded = tf.nn.embedding_lookup(shards, tf.constant([0, 1, 2]), max_norm=1.0)
    return _facts(tf, [one, sharded], rewrites_off=rewrites_off)


CASES = {name[len("case_"):]: fn for name, fn in sorted(globals().items()) if name.startswith("case_")}
