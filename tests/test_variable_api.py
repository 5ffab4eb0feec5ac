"""Arguments of the variable API once accepted and ignored (issue 24): custom getters (nested,
per call, reaching tf.layers, tensor2tensor's daisy-chained Parallelism), caching devices, a
scope's dtype and regularizer, ``read_value=False``, ``verify_shape``, the xent ``_sentinel`` and
``dim``, aggregation methods: compared with what TensorFlow 2.21 recorded for the same programs
(tests/cases/variable_api_cases.py; tools/record_cases.py variable_api records them). Then what
devlab rejects rather than build a different graph: each one line naming the argument and the
user's line."""
import pathlib
import sys

import pytest

import devlab as tf

sys.path.insert(0, str(pathlib.Path(__file__).parent / "cases"))
from recorded import compare, load  # noqa: E402

CASES, RECORDED = load("variable_api", "tf_variable_api.json")


@pytest.mark.parametrize("name", sorted(CASES))
def test_graph_placement_values_and_errors_match_tensorflow(name):
    compare(tf, CASES[name], RECORDED[name])
