"""tf.train.list_variables / load_variable (train/checkpoint_utils.py) against TF 2.21's recorded
answers for the same program (tests/cases/checkpoint_cases.py, tools/record_checkpoint_utils.py)."""
import json
import os
import sys

import pytest

import devlab as tf

HERE = os.path.dirname(__file__)
sys.path.insert(0, os.path.join(HERE, "cases"))
import checkpoint_cases as cases  # noqa: E402

with open(os.path.join(HERE, "data", "tf_checkpoint_utils.json")) as f:
    RECORDED = json.load(f)


def test_list_and_load_variables_as_tensorflow(tmp_path):
    assert cases.run(tf, str(tmp_path)) == RECORDED["run"]


def test_a_folder_without_checkpoints_is_tensorflows_value_error(tmp_path):
    with pytest.raises(ValueError, match="Couldn't find 'checkpoint' file or checkpoints"):
        tf.train.list_variables(str(tmp_path))
