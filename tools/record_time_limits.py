"""Records what TensorFlow 2.21 gives for tests/cases/time_limit_cases.py (its own venv):

    TF_ENABLE_ONEDNN_OPTS=0 /path/to/tf-venv/bin/python tools/record_time_limits.py
"""
import json
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tests", "cases"))

import time_limit_cases as cases  # noqa: E402
import tensorflow.compat.v1 as tf  # noqa: E402

tf.disable_eager_execution()
tf.disable_resource_variables()
out = {"tensorflow": tf.__version__}
for name in ("run_timeout", "config_timeout", "close_cancels"):
    out[name] = getattr(cases, name)(tf)
    print(name, out[name], flush=True)
with open(os.path.join(ROOT, "tests", "data", "tf_time_limits.json"), "w") as f:
    json.dump(out, f, indent=1)
