"""Issue 27's variable policies and tapes, compared with what TensorFlow 2.21 recorded for the same
programs (tests/cases/variable_policy_cases.py; tools/record_cases.py variable_policy records them):
synchronization/aggregation (ON_READ not trainable), constraints applied after the optimizer's
update, VariableDef round trips, variable creators, variable_scope misuse, slots of partitioned
shards, Adagrad on an unknown shape, graph-mode tf.GradientTape and tf.recompute_grad."""
import pathlib
import sys

import pytest

import devlab as tf

sys.path.insert(0, str(pathlib.Path(__file__).parent / "cases"))
from recorded import compare, load  # noqa: E402

CASES, RECORDED = load("variable_policy", "tf_variable_policy.json")


@pytest.mark.parametrize("name", sorted(CASES))
def test_graph_values_and_errors_match_tensorflow(name):
    compare(tf, CASES[name], RECORDED[name])
