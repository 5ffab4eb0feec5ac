"""Records what TensorFlow 2.21 gives for tests/cases/input_pipeline_cases.py (its own venv):

    TF_ENABLE_ONEDNN_OPTS=0 /path/to/tf-venv/bin/python tools/record_input_pipeline.py
"""
import json
import os
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tests", "cases"))

import input_pipeline_cases as cases  # noqa: E402
import tensorflow.compat.v1 as tf  # noqa: E402

tf.disable_eager_execution()
tf.disable_resource_variables()
with tempfile.TemporaryDirectory() as d:
    out = {"tensorflow": tf.__version__, "mnist_style": cases.run(tf, d), "shuffled": cases.shuffled(tf, d)}
    out["joined"] = cases.joined(tf, d)
    out["shuffle_joined"] = cases.joined(tf, d, shuffle=True)
    del out["shuffled"]["batches"]  # TF's order, which devlab does not reproduce
with open(os.path.join(ROOT, "tests", "data", "tf_input_pipeline.json"), "w") as f:
    json.dump(out, f, indent=1)
print(out)
