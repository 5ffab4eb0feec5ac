"""Time limits and cancellation in one process (runtime/time_limits.py) against TF 2.21's recorded
runs of the same programs (tests/cases/time_limit_cases.py, tools/record_time_limits.py)."""
import json
import os
import sys

import devlab as tf

HERE = os.path.dirname(__file__)
sys.path.insert(0, os.path.join(HERE, "cases"))
import time_limit_cases as cases  # noqa: E402

with open(os.path.join(HERE, "data", "tf_time_limits.json")) as f:
    RECORDED = json.load(f)


def test_run_options_timeout_raises_deadline_exceeded():
    got, want = cases.run_timeout(tf), dict(RECORDED["run_timeout"])
    # TF ran the control-dependency write before the dequeue timed out and kept it (1.0); a devlab
    # run is one transaction, so a run that fails commits nothing
    assert want.pop("other_after") == 1.0 and got.pop("other_after") == 0.0
    assert got == want


def test_config_operation_timeout_applies_to_every_run():
    assert cases.config_timeout(tf) == RECORDED["config_timeout"]


def test_close_from_another_thread_cancels_a_waiting_run():
    assert cases.close_cancels(tf) == RECORDED["close_cancels"]
