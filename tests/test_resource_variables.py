"""Resource variables: the graphs, placements, values and errors TensorFlow 2.21 recorded for
the same programs (tests/cases/resource_variable_cases.py; tools/record_cases.py resource_variable records them)."""
import pathlib
import sys

import pytest

import devlab as tf

sys.path.insert(0, str(pathlib.Path(__file__).parent / "cases"))
from recorded import compare, load  # noqa: E402

CASES, RECORDED = load("resource_variable", "tf_resource_variables.json")


@pytest.mark.parametrize("name", sorted(CASES))
def test_graph_placement_values_and_errors_match_tensorflow(name):
    compare(tf, CASES[name], RECORDED[name])
