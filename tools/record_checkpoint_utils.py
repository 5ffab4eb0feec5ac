"""Records what TensorFlow 2.21 gives for tests/cases/checkpoint_cases.py (its own venv):

    TF_ENABLE_ONEDNN_OPTS=0 /path/to/tf-venv/bin/python tools/record_checkpoint_utils.py
"""
import json
import os
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tests", "cases"))

import checkpoint_cases as cases  # noqa: E402
import tensorflow.compat.v1 as tf  # noqa: E402

tf.disable_eager_execution()
tf.disable_resource_variables()
with tempfile.TemporaryDirectory() as d:
    out = {"tensorflow": tf.__version__, "run": cases.run(tf, d)}
with open(os.path.join(ROOT, "tests", "data", "tf_checkpoint_utils.json"), "w") as f:
    json.dump(out, f, indent=1)
print(out)
