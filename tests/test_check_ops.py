"""Issue 27's check ops, compared with what TensorFlow 2.21 recorded for the same programs
(tests/cases/check_ops_cases.py; tools/record_cases.py check_ops records them): the element-wise
asserts, rank and type checks, assert_shapes, ensure_shape and the monotonic tests: the ops built,
TF's errors while building, and TF's words when a check fails at run time."""
import pathlib
import sys

import pytest

import devlab as tf

sys.path.insert(0, str(pathlib.Path(__file__).parent / "cases"))
from recorded import compare, load  # noqa: E402

CASES, RECORDED = load("check_ops", "tf_check_ops.json")


@pytest.mark.parametrize("name", sorted(CASES))
def test_graph_values_and_errors_match_tensorflow(name):
    compare(tf, CASES[name], RECORDED[name])
