"""tf.nn.rnn_cell, dynamic_rnn, static_rnn and tf.TensorArray: the graphs, placements, values and
errors TensorFlow 2.21 recorded for the same programs (tests/cases/rnn_cases.py;
tools/record_cases.py rnn records them), and what devlab adds: one layer per simulated GPU, TensorArray
kernels' errors, the stepper walking dynamic_rnn's loop."""
import json
import pathlib
import sys

import pytest

import devlab as tf

HERE = pathlib.Path(__file__).parent
sys.path.insert(0, str(HERE / "cases"))
import rnn_cases  # noqa: E402
from recorded import check  # noqa: E402

RECORDED = json.loads((HERE / "data" / "tf_rnn.json").read_text())


@pytest.mark.parametrize("name", sorted(rnn_cases.CASES))
def test_graph_placement_and_values_match_tensorflow(name):
    check(rnn_cases.CASES[name](tf), RECORDED[name])
