"""Hostile arguments to the public ``tf.*`` functions get TensorFlow's error, never Python's.

First the recorded cases (tests/cases/hostile_cases.py, recorded from TensorFlow 2.21 by
``tools/record_cases.py hostile``): each of issue 26's examples gives TF's error class and first
line, at build time or at run time as TF does, and a failed call leaves no op TF would not leave.
Then a hypothesis property over every public op-building function (tests/hostile.py): random
arguments give only TypeError, ValueError, NotImplementedError or a ``tf.errors`` class, within
5 s and under a memory bound. ``HYPOTHESIS_PROFILE=fuzz`` draws far more examples.
"""
import os
import pathlib
import sys

import pytest
from hypothesis import HealthCheck, given, settings

import devlab as tf

sys.path.insert(0, str(pathlib.Path(__file__).parent / "cases"))
sys.path.insert(0, str(pathlib.Path(__file__).parent))
import hostile  # noqa: E402
from recorded import load  # noqa: E402

CASES, RECORDED = load("hostile", "tf_hostile.json")


# TF converts some arguments twice (first to the type the OpDef prefers, then as they are), so the
# Const its node text names is ``dim_1`` where devlab's is ``dim``; and TF reports a ragged
# tf.stack without the node. For these the error class and the reason are compared, not the node.
NODE_TEXT_DIFFERS = {"expand_dims_with_empty_dim", "pad_with_scalar_paddings", "stack_ragged"}


def _reason(error):
    return error and [error[0], error[1].split(" for '{{node ")[0]]


@pytest.mark.parametrize("name", sorted(CASES))
def test_error_class_and_first_line_match_tensorflow(name):
    want = RECORDED[name]
    with tf.Graph().as_default() as g:
        got = CASES[name](tf)
        left = {op.name: op.type for op in g.get_operations()}
    same = _reason if name in NODE_TEXT_DIFFERS else (lambda e: e)
    assert same(got["build"]) == same(want["build"])
    assert got["run"] == want["run"]
    assert got.get("next") == want.get("next")
    if want["build"]:  # a failed build leaves only what TF leaves (Consts of the arguments), never the op
        made = {n for n in got["ops"] if left[n] != "Const"}
        assert made <= set(want["ops"]), (made, want["ops"])


# -- the property ---------------------------------------------------------------------------------
FUZZING = os.environ.get("HYPOTHESIS_PROFILE") == "fuzz"
# Per function: a few in CI; under the fuzz profile its count, or HOSTILE_EXAMPLES (a long run's spread).
EXAMPLES = int(os.environ.get("HOSTILE_EXAMPLES", settings.default.max_examples)) if FUZZING else 6


def test_every_public_function_is_drawn():
    assert len(hostile.FUNCTIONS) >= 100, sorted(hostile.FUNCTIONS)


@pytest.mark.parametrize("name", sorted(hostile.FUNCTIONS))
def test_random_arguments_get_tf_errors_quickly_and_within_memory(name):
    fn = hostile.FUNCTIONS[name]

    @settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck),
              database=None if not FUZZING else settings.default.database)
    @given(hostile.arguments(fn))
    def check(drawn):
        problem = hostile.call(fn, *drawn)
        assert problem is None or problem[0] == "confusing", \
            f"{hostile.describe(name, *drawn)}: {problem[0]}: {problem[2]}"

    check()
