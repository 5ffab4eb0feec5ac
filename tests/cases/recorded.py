"""The one comparison of a recorded case: what devlab answers for a program against what
TensorFlow 2.21 recorded for the same program (``tools/record_*.py``): the same keys; ops,
placements, errors and every other record exactly; values equal to float32 precision."""
import importlib
import json
import pathlib

import pytest

DATA = pathlib.Path(__file__).parent.parent / "data"


def close(got, want):
    """Equal structure and strings, numbers equal to float32 precision."""
    if isinstance(want, list):
        return isinstance(got, list) and len(got) == len(want) and all(close(g, w) for g, w in zip(got, want))
    if isinstance(want, (str, bool)) or want is None:
        return got == want
    return isinstance(got, (int, float)) and not isinstance(got, bool) and got == pytest.approx(want, rel=1e-5,
                                                                                                   abs=1e-6)


def check(got, want):
    """Asserts that devlab's record ``got`` (JSON-able) matches TensorFlow's ``want``."""
    got = json.loads(json.dumps(got))
    assert got.keys() == want.keys()
    for key in sorted(want):
        if key != "values":
            assert got[key] == want[key], key
    if "values" in want:
        assert close(got["values"], want["values"]), (got["values"], want["values"])


def load(name, data_file):
    """The ``CASES`` of ``tests/cases/<name>_cases.py`` and TensorFlow's records of them
    (``tests/data/<data_file>``)."""
    cases = importlib.import_module(f"{name}_cases").CASES
    return cases, json.loads((DATA / data_file).read_text())


def compare(tf, case, want):
    """Runs one case under devlab in a fresh graph and checks it against TensorFlow's record."""
    with tf.Graph().as_default():
        check(case(tf), want)
