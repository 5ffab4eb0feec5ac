"""Issue 24's graph, value and name classes 5-11 and 13 ("never silently wrong"): reductions over
every axis fold their axes, StringJoin's shape, a gather's sparse gradient through a dense op and
through clipping, Max/Min of nothing, integer division by a fed zero (interpreted and compiled
runs), the dtypes of numpy scalars, tf.layers.dense on a 3-D input, FloorMod/Adam/cond names.
Each is compared with what TensorFlow 2.21 recorded for the same program
(tests/cases/graph_value_cases.py; tools/record_cases.py graph_value records them)."""
import pathlib
import sys

import pytest

import devlab as tf

sys.path.insert(0, str(pathlib.Path(__file__).parent / "cases"))
from recorded import compare, load  # noqa: E402

CASES, RECORDED = load("graph_value", "tf_graph_value.json")


@pytest.mark.parametrize("name", sorted(CASES))
def test_graph_placement_values_and_errors_match_tensorflow(name):
    compare(tf, CASES[name], RECORDED[name])
