"""Records what TensorFlow 2.21 does with the recurrent-network cases (run it under a TensorFlow venv):

    /path/to/tf-venv/bin/python tools/record_rnn.py tests/data/tf_rnn.json

``tf.nn.rnn_cell``, ``dynamic_rnn``, ``static_rnn`` and ``tf.TensorArray`` in ``tf.compat.v1``
graph mode with v2 behaviour (and so v2 control flow) disabled; graph rewrites off, so the
placement is the placer's (and partitioner's). ``tf.nn.rnn_cell`` needs Keras 2 under TF 2.16+:
as ``record_programs.py``, this puts ``tools/.tf_keras`` on the path with TF_USE_LEGACY_KERAS=1.
"""
import json
import os
import sys

os.environ.setdefault("TF_USE_LEGACY_KERAS", "1")
os.environ.setdefault("TF_ENABLE_ONEDNN_OPTS", "0")
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".tf_keras"))
import tensorflow.compat.v1 as tf  # noqa: E402

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "tests", "cases"))
import rnn_cases  # noqa: E402

tf.disable_v2_behavior()
tf.disable_control_flow_v2()
out = {"_meta": {"tensorflow": tf.__version__, "control_flow": "v1", "rewrites": "off"}}
for name, fn in rnn_cases.CASES.items():
    with tf.Graph().as_default():
        out[name] = fn(tf, rewrites_off=True)
with open(sys.argv[1], "w") as f:
    json.dump(out, f, indent=1, sort_keys=True)
print(f"recorded {len(rnn_cases.CASES)} cases")
