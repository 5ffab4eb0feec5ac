"""Sampled losses and candidate sampling: the graphs, placements, values and errors TensorFlow 2.21
recorded for the same programs (tests/cases/sampled_cases.py; tools/record_cases.py sampled records
them), and what holds of devlab's own draws: in range, unique when asked, distributed as the
sampler says, the same again under the same graph seed."""
import json
import math
import pathlib
import sys

import numpy as np
import pytest

import devlab as tf

HERE = pathlib.Path(__file__).parent
sys.path.insert(0, str(HERE / "cases"))
import sampled_cases  # noqa: E402
from recorded import check  # noqa: E402

RECORDED = json.loads((HERE / "data" / "tf_sampled.json").read_text())


@pytest.mark.parametrize("name", sorted(sampled_cases.CASES))
def test_graph_placement_values_and_errors_match_tensorflow(name):
    with tf.Graph().as_default():
        got = sampled_cases.CASES[name](tf)
    check(got, RECORDED[name])
