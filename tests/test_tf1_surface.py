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


def test_a_missing_api_reached_through_a_library_names_the_users_line_and_the_library(tmp_path):
    """An API devlab lacks, asked for by an installed library wrapping TF, names its full tf.X
    name, the user's line (the first frame outside devlab and the library) and the library's."""
    import subprocess
    lib = tmp_path / "site-packages" / "wraplib.py"
    lib.parent.mkdir()
    lib.write_text("import devlab as tf\n\ndef layer(x):\n    return tf.nn.no_such_op(x)\n")
    script = tmp_path / "train.py"
    script.write_text("import wraplib\n\ntry:\n    wraplib.layer(1)\nexcept AttributeError as e:\n    print(e)\n")
    root = pathlib.Path(__file__).parent.parent
    env = {"PYTHONPATH": f"{root}:{lib.parent}", "PATH": "/usr/bin:/bin"}
    out = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, env=env, check=True)
    assert out.stdout.strip() == (f"devlab does not implement tf.nn.no_such_op yet (used at {script}:4, "
                                  f"through {lib}:4)")
    # called from the user's own code, only the user's line
    direct = tmp_path / "direct.py"
    direct.write_text("import devlab as tf\ntry:\n    tf.train.no_such_thing\nexcept AttributeError as e:\n"
                      "    print(e)\n")
    out = subprocess.run([sys.executable, str(direct)], capture_output=True, text=True, env=env, check=True)
    assert out.stdout.strip() == f"devlab does not implement tf.train.no_such_thing yet (used at {direct}:3)"
