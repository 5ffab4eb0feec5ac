"""Records what TensorFlow 2.21 gives for tests/cases/sync_replicas_cases.py (its own venv):

    TF_ENABLE_ONEDNN_OPTS=0 /path/to/tf-venv/bin/python tools/record_sync_replicas_run.py
"""
import json
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tests", "cases"))

import sync_replicas_cases  # noqa: E402
import tensorflow.compat.v1 as tf  # noqa: E402

tf.disable_eager_execution()
out = {"tensorflow": tf.__version__, "one_replica": sync_replicas_cases.run(tf)}
with open(os.path.join(ROOT, "tests", "data", "tf_sync_replicas_run.json"), "w") as f:
    json.dump(out, f, indent=1)
print(out)
