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


def test_list_local_devices_lists_the_simulated_gpus_a_session_gets():
    """Scripts count GPUs with device_lib: it lists the GPUs devlab simulates, as a session has them."""
    from devlab import config
    from devlab.aliases import tensorflow_is_devlab
    with tensorflow_is_devlab(), config.override(simulated_gpus=2):
        from tensorflow.python.client import device_lib
        devices = device_lib.list_local_devices()
        with tf.Session() as sess:
            session_devices = [d.name for d in sess.list_devices()]
    assert [d.name for d in devices] == ["/device:CPU:0", "/device:GPU:0", "/device:GPU:1"]
    assert sorted(d.name.split("/device:")[1] for d in devices) == sorted(n.split("/device:")[1] for n in session_devices)
    assert all("Simulated GPU" in d.physical_device_desc for d in devices if d.device_type == "GPU")
    one = device_lib.list_local_devices(tf.ConfigProto(device_count={"GPU": 1}))
    assert [d.device_type for d in one] == ["CPU", "GPU"]
