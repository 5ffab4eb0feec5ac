"""The recorded TensorFlow facts in ../shared/conformance, run through the same comparison
that ``check.py`` uses (present beside every checkout of this project, and in CI)."""
import importlib
import json
import os
import sys

import pytest

import devlab as tf

HERE = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "..", "shared", "conformance")
if not os.path.isdir(HERE):
    pytest.skip("../shared/conformance is not beside this checkout", allow_module_level=True)
sys.path.insert(0, HERE)
check = importlib.import_module("check")
cases = importlib.import_module("public_cases")
EXPECTED = json.load(open(os.path.join(HERE, "public_expected.json")))


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_public_case(name):
    with tf.Graph().as_default():
        got = cases.CASES[name](tf)
    assert check.compare(got, EXPECTED[name]) == []
