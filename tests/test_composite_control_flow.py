"""Control flow carrying IndexedSlices and SparseTensors, references passed on, tf.tuple of
IndexedSlices, FIFOQueue.from_list and TF's structure errors, compared with what TensorFlow 2.21
recorded for the same programs (tests/cases/composite_control_flow_cases.py; tools/record_cases.py composite_control_flow)."""
import pathlib
import sys

import pytest

import devlab as tf

sys.path.insert(0, str(pathlib.Path(__file__).parent / "cases"))
from recorded import compare, load  # noqa: E402

CASES, RECORDED = load("composite_control_flow", "tf_composite_control_flow.json")


@pytest.mark.parametrize("name", sorted(CASES))
def test_graph_placement_values_and_errors_match_tensorflow(name):
    compare(tf, CASES[name], RECORDED[name])


