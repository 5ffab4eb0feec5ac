"""The math ops beside the common ones (segment max/min/prod/mean, multiply_no_nan, nextafter,
argmin, cumprod, tf.norm, tf.Print) and their gradients, compared with what TensorFlow 2.21
recorded for the same programs (tests/cases/math_more_cases.py; tools/record_cases.py math_more)."""
import pathlib
import sys

import numpy as np
import pytest

import devlab as tf

sys.path.insert(0, str(pathlib.Path(__file__).parent / "cases"))
from recorded import compare, load  # noqa: E402

CASES, RECORDED = load("math_more", "tf_math_more.json")


@pytest.mark.parametrize("name", sorted(CASES))
def test_graph_placement_values_and_errors_match_tensorflow(name):
    compare(tf, CASES[name], RECORDED[name])


def test_print_writes_tensorflows_summary_to_stderr(capfd):
    x = tf.constant([[1., 2., 3.], [4., 5., 6.]])
    p = tf.Print(x, [x, tf.constant(3), tf.constant(["a", "b"]), tf.constant(2.5)], message="msg: ")
    q = tf.Print(x, [tf.range(10)], summarize=4)
    with tf.Session() as sess:
        np.testing.assert_array_equal(sess.run(p), [[1., 2., 3.], [4., 5., 6.]])
        sess.run(q)
    assert capfd.readouterr().err == "msg: [[1 2 3]...][3][a b][2.5]\n[0 1 2 3...]\n"  # TF 2.21's lines


def test_print_refuses_first_n():
    with pytest.raises(NotImplementedError, match="first_n"):
        tf.Print(tf.constant(1.0), [], first_n=2)
