"""Records what TensorFlow 2.21 does with the control-flow cases (run it under a TensorFlow venv):

    /path/to/tf-venv/bin/python tools/record_control_flow.py tests/data/tf_control_flow.json

Control flow v1 (Switch/Merge, Enter/Exit) as TF 1.x and ``tf.compat.v1`` with v2 control flow
disabled build it; graph rewrites off, so the placement is the placer's (and partitioner's).
"""
import json
import os
import sys

import tensorflow.compat.v1 as tf

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "tests", "cases"))
import control_flow_cases  # noqa: E402

tf.disable_v2_behavior()
tf.disable_control_flow_v2()
out = {"_meta": {"tensorflow": tf.__version__, "control_flow": "v1", "rewrites": "off"}}
for name, fn in control_flow_cases.CASES.items():
    with tf.Graph().as_default():
        out[name] = fn(tf, rewrites_off=True)
with open(sys.argv[1], "w") as f:
    json.dump(out, f, indent=1, sort_keys=True)
print(f"recorded {len(control_flow_cases.CASES)} cases")
