"""The TF1 API TF's own test files and pasted TF1 code reach for (GraphDefs, NodeDefs,
``create_op``, ``count_up_to``, ``make_callable``, ``_increment_global_step``, dtypes,
``tf.gfile``, ``tf.io.read_file``): devlab against TensorFlow 2.21's records of the same
programs (tests/cases/tf1_surface_cases.py; tools/record_cases.py tf1_surface records them)."""
import pathlib
import sys

import pytest

import devlab as tf

sys.path.insert(0, str(pathlib.Path(__file__).parent / "cases"))
from recorded import compare, load  # noqa: E402

CASES, RECORDED = load("tf1_surface", "tf_tf1_surface.json")


@pytest.mark.parametrize("name", sorted(CASES))
def test_matches_tensorflow(name):
    compare(tf, CASES[name], RECORDED[name])
