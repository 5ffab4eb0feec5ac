"""Issue 27's initializers and the ops they build, compared with what TensorFlow 2.21 recorded for
the same programs (tests/cases/init_ops_cases.py; tools/record_cases.py init_ops records them):
VarianceScaling, UniformUnitScaling, GlorotNormal, Orthogonal, Identity and tf.eye, TF1's
tf.constant filling out too few values, tf.linspace, tf.qr and the matrix-diagonal ops."""
import pathlib
import sys

import pytest

import devlab as tf

sys.path.insert(0, str(pathlib.Path(__file__).parent / "cases"))
from recorded import compare, load  # noqa: E402

CASES, RECORDED = load("init_ops", "tf_init_ops.json")


@pytest.mark.parametrize("name", sorted(CASES))
def test_graph_values_and_errors_match_tensorflow(name):
    compare(tf, CASES[name], RECORDED[name])
