"""tf.map_fn and tf.scan with their gradients, a second-order gradient of a while loop and
nest's words for structures that differ, compared with what TensorFlow 2.21
recorded for the same programs (tests/cases/functional_cases.py; tools/record_cases.py functional)."""
import pathlib
import sys

import pytest

import devlab as tf

sys.path.insert(0, str(pathlib.Path(__file__).parent / "cases"))
from recorded import compare, load  # noqa: E402

CASES, RECORDED = load("functional", "tf_functional.json")


@pytest.mark.parametrize("name", sorted(CASES))
def test_graph_placement_values_and_errors_match_tensorflow(name):
    compare(tf, CASES[name], RECORDED[name])


