"""Records what TensorFlow 2.21 writes for tests/cases/tfrecord_cases.py (its own venv):

    TF_ENABLE_ONEDNN_OPTS=0 /path/to/tf-venv/bin/python tools/record_tfrecord.py
"""
import json
import os
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tests", "cases"))

import tfrecord_cases as cases  # noqa: E402
import tensorflow.compat.v1 as tf  # noqa: E402

tf.disable_eager_execution()
with tempfile.TemporaryDirectory() as d:
    path = os.path.join(d, "data.tfrecords")
    out = {"tensorflow": tf.__version__, "example": cases.example(tf).SerializeToString().hex(),
           "file": cases.write_file(tf, path), "records": cases.read_file(tf, path)}
with open(os.path.join(ROOT, "tests", "data", "tf_tfrecord.json"), "w") as f:
    json.dump(out, f, indent=1)
print(out)
