"""tf.nn.rnn_cell, dynamic_rnn, static_rnn and tf.TensorArray: the graphs, placements, values and
errors TensorFlow 2.21 recorded for the same programs (tests/cases/rnn_cases.py;
tools/record_cases.py rnn records them), and what devlab adds: one layer per simulated GPU, TensorArray
kernels' errors, the stepper walking dynamic_rnn's loop."""
import pathlib
import sys

import pytest

import devlab as tf

sys.path.insert(0, str(pathlib.Path(__file__).parent / "cases"))
from recorded import compare, load  # noqa: E402

CASES, RECORDED = load("rnn", "tf_rnn.json")


@pytest.mark.parametrize("name", sorted(CASES))
def test_graph_placement_and_values_match_tensorflow(name):
    compare(tf, CASES[name], RECORDED[name])
