"""Issue 27's gradient surface, compared with what TensorFlow 2.21 recorded for the same programs
(tests/cases/custom_gradient_cases.py; tools/record_cases.py custom_gradient records them):
tf.custom_gradient in graph mode (its IdentityN, the custom rule used, the variables it reads, TF's
errors), tf.RegisterGradient with gradient_override_map, tf.identity_n,
tf.math.reduce_euclidean_norm and its gradient, and the experimental aggregation methods."""
import pathlib
import sys

import pytest

import devlab as tf

sys.path.insert(0, str(pathlib.Path(__file__).parent / "cases"))
from recorded import compare, load  # noqa: E402

CASES, RECORDED = load("custom_gradient", "tf_custom_gradient.json")


@pytest.mark.parametrize("name", sorted(CASES))
def test_graph_placement_values_and_errors_match_tensorflow(name):
    compare(tf, CASES[name], RECORDED[name])
