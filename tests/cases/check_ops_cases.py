"""Issue 27's check ops: TF's element-wise asserts (equal, none_equal, less_equal, greater,
greater_equal, near, negative, non_negative, non_positive), the rank and type checks, assert_shapes,
ensure_shape, is_non_decreasing/is_strictly_increasing and assert_same_float_dtype: the ops they
build, what they decide while building (TF's errors), and what they say when run. The same
functions run under TensorFlow 2.21 (``tools/record_cases.py check_ops tests/data/tf_check_ops.json``)
and under devlab (tests/test_check_ops.py compares)."""
from control_flow_cases import graph_facts
from rnn_cases import _values
from script_cases import _error


def _run(tf, fetch, feed=None):
    with tf.Session() as sess:
        return sess.run(fetch, feed_dict=feed)


def _run_error(tf, fetch, feed=None):
    return _error(lambda: _run(tf, fetch, feed))


def case_element_wise_asserts_build_as_tf(tf, rewrites_off=False):
    x = tf.placeholder(tf.float32, [2], name="x")
    y = tf.constant([1.0, 2.0], name="y")
    checks = [tf.assert_equal(x, y), tf.assert_none_equal(x, -y), tf.assert_less_equal(x, y),
              tf.assert_greater(x, -y), tf.assert_greater_equal(x, y, message="ge"), tf.assert_near(x, y),
              tf.assert_negative(-x), tf.assert_non_negative(x), tf.assert_non_positive(-x)]
    with tf.control_dependencies(checks):
        out = tf.identity(x)
    return {"ops": graph_facts(tf), "values": _values(_run(tf, out, {x: [1.0, 2.0]})),
            "equal_fails": _run_error(tf, checks[0], {x: [1.0, 3.0]}),
            "non_positive_fails": _run_error(tf, checks[8], {x: [-1.0, 3.0]}),
            "near_fails": _run_error(tf, checks[5], {x: [1.5, 2.0]})}


def case_static_mismatch_raises_while_building(tf, rewrites_off=False):
    return {"equal": _error(lambda: tf.assert_equal([1, 2], [1, 3], message="custom")),
            "greater": _error(lambda: tf.assert_greater(1, 2)),
            "negative": _error(lambda: tf.assert_negative([1], message="neg"))}


def case_assert_equal_of_itself_is_a_no_op(tf, rewrites_off=False):
    x = tf.constant([1, 2], name="x")
    return {"type": tf.assert_equal(x, x).type, "ops": graph_facts(tf)}


def case_rank_checks(tf, rewrites_off=False):
    x = tf.placeholder(tf.float32, [None, 3], name="x")
    unknown = tf.placeholder(tf.float32, name="unknown")
    static = [tf.assert_rank(x, 2).name, tf.assert_rank_at_least(x, 1).name, tf.assert_rank_in(x, [1, 2]).name]
    dynamic = tf.assert_rank(unknown, 2)
    return {"static": static, "ops": graph_facts(tf),
            "rank": _error(lambda: tf.assert_rank(x, 3, message="m")),
            "at_least": _error(lambda: tf.assert_rank_at_least(x, 3)),
            "rank_in": _error(lambda: tf.assert_rank_in(x, (0, 1))),
            "not_scalar": _error(lambda: tf.assert_rank(x, [2])),
            "dynamic_fails": _run_error(tf, dynamic, {unknown: [1.0]})}


def case_type_checks(tf, rewrites_off=False):
    x = tf.constant([1.0], name="x")
    i = tf.constant([1], name="i")
    return {"type": _error(lambda: tf.assert_type(x, tf.int32, message="m")),
            "integer": _error(lambda: tf.assert_integer(x)),
            "scalar": _error(lambda: tf.assert_scalar(x)),
            "same_float": _error(lambda: tf.debugging.assert_same_float_dtype([x, i])),
            "not_float": _error(lambda: tf.debugging.assert_same_float_dtype([i])),
            "float": tf.debugging.assert_same_float_dtype([x, None]).name,
            "ok": [tf.assert_type(i, tf.int32).name, tf.assert_integer(i).name, tf.assert_scalar(3).name]}


def case_assert_shapes(tf, rewrites_off=False):
    x = tf.placeholder(tf.float32, [None, 3], name="x")
    y = tf.placeholder(tf.float32, [None, None], name="y")
    z = tf.placeholder(tf.float32, name="z")
    check = tf.debugging.assert_shapes([(x, ("N", "Q")), (y, ("N", 2)), (z, (..., "Q"))])
    ok = _values(_run(tf, [check, x], {x: [[1, 2, 3]], y: [[1, 2]], z: [[4, 5, 6]]})[1:])
    return {"ops": graph_facts(tf), "ok": ok,
            "symbol_fails": _run_error(tf, check, {x: [[1, 2, 3]], y: [[1, 2], [3, 4]], z: [[4, 5, 6]]}),
            "static": _error(lambda: tf.debugging.assert_shapes({x: (2, 4)}, message="m")),
            "ellipsis_late": _error(lambda: tf.debugging.assert_shapes([(x, (2, ...))]))}


def case_ensure_shape(tf, rewrites_off=False):
    p = tf.placeholder(tf.float32, [None, None, 3], name="p")
    merged = tf.ensure_shape(p, (5, 4, None))
    q = tf.placeholder(tf.float32, name="q")
    derived = tf.ensure_shape(tf.divide(q, 3.0, name="MyDivide"), (None, 2))
    grad = tf.gradients(derived, q)[0]
    return {"merged": str(merged.shape), "ops": graph_facts(tf),
            "values": _values(_run(tf, [derived, grad], {q: [[3.0, 6.0]]})),
            "run_fails": _run_error(tf, derived, {q: [[1.0], [2.0]]}),
            "static": _error(lambda: tf.ensure_shape(p, (2, 2, 4)))}


def case_monotonic(tf, rewrites_off=False):
    values = [[1, 1, 2], [3, 1], [7], [[1, 2], [3, 4]], [1.0, 1.0]]
    fetch = [[tf.is_non_decreasing(v), tf.is_strictly_increasing(v)] for v in values]
    return {"values": _values(_run(tf, fetch)), "string": _error(lambda: tf.is_non_decreasing(["a", "b"]))}


def case_proper_iterable(tf, rewrites_off=False):
    return {"string": _error(lambda: tf.assert_proper_iterable("ab")),
            "int": _error(lambda: tf.assert_proper_iterable(3)),
            "list": _error(lambda: tf.assert_proper_iterable([1]))}


CASES = {name[len("case_"):]: fn for name, fn in sorted(globals().items()) if name.startswith("case_")}
