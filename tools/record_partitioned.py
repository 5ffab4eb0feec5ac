"""Records what TensorFlow 2.21 does with the partitioned-variable cases (run it under a TensorFlow venv):

    TF_ENABLE_ONEDNN_OPTS=0 /path/to/tf-venv/bin/python tools/record_partitioned.py tests/data/tf_partitioned.json

The partitioned variables (and Savers of them) of
``tests/cases/partitioned_cases.py`` in ``tf.compat.v1`` graph mode with v2 behaviour (and so v2
control flow) disabled; graph rewrites off, so the placement is the placer's (and partitioner's).
"""
import json
import os
import sys

os.environ.setdefault("TF_ENABLE_ONEDNN_OPTS", "0")
import tensorflow.compat.v1 as tf  # noqa: E402

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "tests", "cases"))
import partitioned_cases  # noqa: E402

tf.disable_v2_behavior()
tf.disable_control_flow_v2()
tf.logging.set_verbosity(tf.logging.ERROR)
out = {"_meta": {"tensorflow": tf.__version__, "control_flow": "v1", "rewrites": "off"}}
for name, fn in partitioned_cases.CASES.items():
    with tf.Graph().as_default():
        out[name] = fn(tf, rewrites_off=True)
with open(sys.argv[1], "w") as f:
    json.dump(out, f, indent=1, sort_keys=True)
print(f"recorded {len(partitioned_cases.CASES)} cases")
