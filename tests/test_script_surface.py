"""The training-script surface newcomers paste: tf.train's RMSProp, Adagrad, Adadelta, Ftrl and
proximal optimizers (also under replica_device_setter), learning-rate schedules, clip_by_global_norm /
clip_by_norm / global_norm, leaky_relu, elu, selu, softplus, relu6, top_k (and its gradient),
in_top_k, the argmax accuracy, tf.metrics (mean, accuracy, precision, recall, regression errors),
sigmoid cross-entropy, huber loss, l2_normalize, reduce_logsumexp, count_nonzero and tf.math. The
graphs (names, types, inputs, control inputs, requested devices, colocation), placements, values
and errors TensorFlow 2.21 recorded for the same programs (tests/cases/script_cases.py;
tools/record_cases.py script records them)."""
import pathlib
import sys

import pytest

import devlab as tf

sys.path.insert(0, str(pathlib.Path(__file__).parent / "cases"))
from recorded import compare, load  # noqa: E402

CASES, RECORDED = load("script", "tf_script_surface.json")


@pytest.mark.parametrize("name", sorted(CASES))
def test_graph_placement_values_and_errors_match_tensorflow(name):
    compare(tf, CASES[name], RECORDED[name])  # ops, placed, error, slots, collections exactly; values closely
