"""What the programs p26 (slim-style deployment) and p27 (queue-fed towers) reach, compared with what
TensorFlow 2.21 recorded for the same functions (tests/cases/program_surface_cases.py;
``tools/record_cases.py program_surface tests/data/tf_program_surface.json`` records them):
regularisation losses rebuilt beside their variable at each use, ``tf.div``'s Python 2 division,
``tf.model_variables``, no DType equal to None, ``slice_input_producer`` and the batching graphs."""
import pathlib
import sys

import pytest

import devlab as tf

sys.path.insert(0, str(pathlib.Path(__file__).parent / "cases"))
from recorded import compare, load  # noqa: E402

CASES, RECORDED = load("program_surface", "tf_program_surface.json")


@pytest.mark.parametrize("name", sorted(CASES))
def test_graph_placement_values_and_errors_match_tensorflow(name):
    compare(tf, CASES[name], RECORDED[name])


def test_a_collected_loss_converts_to_its_own_dtype_only():
    """TF asserts that a regularisation loss is converted to its own dtype, never as a reference."""
    with tf.Graph().as_default():
        tf.get_variable("w", [2], regularizer=tf.nn.l2_loss)
        loss = tf.get_collection(tf.GraphKeys.REGULARIZATION_LOSSES)[0]
        with pytest.raises(AssertionError):
            tf.convert_to_tensor(loss, dtype=tf.float64)
        assert tf.convert_to_tensor(loss, dtype=tf.float32).op.name == "w/Regularizer/L2Loss_1"
