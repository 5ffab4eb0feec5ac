"""Partitioned variables: the graphs, placements, values and errors TensorFlow 2.21 recorded for
the same programs (tests/cases/partitioned_cases.py; tools/record_cases.py partitioned records them)."""
import json
import pathlib
import sys

import pytest

import devlab as tf

HERE = pathlib.Path(__file__).parent
sys.path.insert(0, str(HERE / "cases"))
import partitioned_cases  # noqa: E402
from recorded import check  # noqa: E402

RECORDED = json.loads((HERE / "data" / "tf_partitioned.json").read_text())


@pytest.mark.parametrize("name", sorted(partitioned_cases.CASES))
def test_graph_placement_values_and_errors_match_tensorflow(name):
    with tf.Graph().as_default():
        got = partitioned_cases.CASES[name](tf)
    check(got, RECORDED[name])
