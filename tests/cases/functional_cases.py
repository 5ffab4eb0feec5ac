"""``tf.map_fn`` and ``tf.scan`` (TensorArrays around a while loop) with their gradients, a
second-order gradient of a while loop (TF's TypeError, after which the graph builds on), and
``nest``'s words for structures that differ, recorded under TensorFlow 2.21
(``tools/record_cases.py functional tests/data/tf_functional.json``) and compared by
tests/test_functional.py."""
import collections

import numpy as np

from control_flow_cases import graph_facts, run
from rnn_cases import _values
from script_cases import _error


def _nest(tf):
    if tf.__name__.startswith("devlab"):
        from devlab.api import nest
        return nest
    from tensorflow.python.util import nest
    return nest


def _facts(tf, fetch, feed=None, rewrites_off=False):
    facts = {"ops": graph_facts(tf)}
    placed, value = run(tf, fetch, feed, rewrites_off=rewrites_off)
    facts.update(placed=placed, values=_values(value))
    return facts


def case_map_fn_and_its_gradient(tf, rewrites_off=False):
    x = tf.constant([1.0, 2.0, 3.0], name="x")
    y = tf.map_fn(lambda z: z * z, x)
    pair = tf.map_fn(lambda t: (t[0] + t[1], t[0] * t[1]), (x, x), dtype=(tf.float32, tf.float32))
    g = tf.gradients(y, x)[0]
    facts = _facts(tf, [y, g, pair], rewrites_off=rewrites_off)
    facts["shapes"] = [str(y.shape), str(pair[0].shape)]
    return facts


def case_scan_forward_reversed_and_its_gradient(tf, rewrites_off=False):
    x = tf.constant([1.0, 2.0, 3.0, 4.0], name="x")
    s = tf.scan(lambda a, e: a + e, x)
    r = tf.scan(lambda a, e: a * e, x, initializer=tf.constant(2.0), reverse=True)
    g = tf.gradients(r, x)[0]
    return _facts(tf, [s, r, g], rewrites_off=rewrites_off)


def case_second_order_gradient_of_a_loop(tf, rewrites_off=False):
    theta = tf.Variable(1.0, name="theta")
    result = tf.scan(lambda prev, x: prev + x * theta, np.array([1., 2., 3.], dtype=np.float32))
    grad = tf.gradients(result, theta)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        facts = {"values": _values(sess.run([result, grad]))}
    # (TF leaves the graph inside the gradient loop's context after this error; devlab restores
    # the context it found, so only what TF allows after it is compared)
    facts["second_order"] = _error(lambda: tf.gradients(grad, theta))
    stopped = tf.gradients(tf.stop_gradient(grad), theta)
    facts["stopped"] = [g is None for g in stopped]
    return facts


def case_nest_in_tensorflows_words(tf, rewrites_off=False):
    nest = _nest(tf)
    named = collections.namedtuple("named", ("a", "b"))
    facts = {name: _error(lambda a=a, b=b: nest.assert_same_structure(a, b)) for name, (a, b) in {
        "nesting": ([1, (2, 3)], [1, 2]), "count": ([1, 2], [1, 2, 3]), "types": ([1, 2], (1, 2)),
        "namedtuple": (named(1, 2), (1, 2)), "keys": ({"a": 1}, {"b": 1}), "leaf": (1, [1])}.items()}
    facts["flatten"] = nest.flatten({"b": 1, "a": [2, 3]}) + nest.flatten(None) + nest.flatten("ab")
    facts["pack"] = str(nest.pack_sequence_as([1, (2, 3)], [4, 5, 6]))
    facts["pack_error"] = _error(lambda: nest.pack_sequence_as([1, (2, 3)], [4, 5]))
    facts["map"] = str(nest.map_structure(lambda x, y: x + y, named(1, 2), named(3, 4)))
    facts["is_nested"] = [nest.is_nested([1]), nest.is_nested(1), nest.is_nested("ab")]
    return facts


CASES = {name[len("case_"):]: fn for name, fn in sorted(globals().items()) if name.startswith("case_")}
