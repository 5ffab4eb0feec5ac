"""The training-script surface newcomers paste: tf.train's RMSProp, Adagrad, Adadelta, Ftrl and
proximal optimizers (also under replica_device_setter), learning-rate schedules, clip_by_global_norm /
clip_by_norm / global_norm, leaky_relu, elu, selu, softplus, relu6, top_k (and its gradient),
in_top_k, the argmax accuracy, tf.metrics (mean, accuracy, precision, recall, regression errors),
sigmoid cross-entropy, huber loss, l2_normalize, reduce_logsumexp, count_nonzero and tf.math. The
graphs (names, types, inputs, control inputs, requested devices, colocation), placements, values
and errors TensorFlow 2.21 recorded for the same programs (tests/cases/script_cases.py;
tools/record_cases.py script records them)."""
import json
import pathlib
import sys

import pytest

import devlab as tf

HERE = pathlib.Path(__file__).parent
sys.path.insert(0, str(HERE / "cases"))
import script_cases  # noqa: E402
from recorded import check  # noqa: E402

RECORDED = json.loads((HERE / "data" / "tf_script_surface.json").read_text())


@pytest.mark.parametrize("name", sorted(script_cases.CASES))
def test_graph_placement_values_and_errors_match_tensorflow(name):
    with tf.Graph().as_default():
        got = script_cases.CASES[name](tf)
    check(got, RECORDED[name])  # ops, placed, error, slots, collections exactly; values closely
