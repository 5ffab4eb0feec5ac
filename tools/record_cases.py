"""Records what TensorFlow 2.21 does with one file of recorded cases (run it under a TensorFlow venv):

    /path/to/tf-venv/bin/python tools/record_cases.py sparse tests/data/tf_sparse.json

The first argument names ``tests/cases/<name>_cases.py``: ``control_flow``, ``graph_value``, ``rnn``, ``sampled``, ``script``
(written to ``tf_script_surface.json``), ``sparse``, ``partitioned``. Every function in its
``CASES`` runs in a fresh graph under ``tf.compat.v1`` with v2 behaviour (and so v2 control
flow: Switch/Merge, Enter/Exit as TF 1.x builds them) disabled, and graph rewrites and oneDNN
off, so the placement is the placer's (and partitioner's). ``tf.nn.rnn_cell`` and ``tf.layers``
need Keras 2 under TF 2.16+: as ``record_programs.py``, this puts ``tools/.tf_keras`` on the path
with TF_USE_LEGACY_KERAS=1. The devlab side of each file's tests compares with the JSON written.
"""
import importlib
import json
import os
import sys

os.environ.setdefault("TF_USE_LEGACY_KERAS", "1")
os.environ.setdefault("TF_ENABLE_ONEDNN_OPTS", "0")
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, ".tf_keras"))
import tensorflow.compat.v1 as tf  # noqa: E402

sys.path.insert(0, os.path.join(HERE, "..", "tests", "cases"))


def main(name, out_path):
    cases = importlib.import_module(f"{name}_cases").CASES
    tf.disable_v2_behavior()
    tf.disable_control_flow_v2()
    tf.logging.set_verbosity(tf.logging.ERROR)
    out = {"_meta": {"tensorflow": tf.__version__, "control_flow": "v1", "rewrites": "off"}}
    for case, fn in cases.items():
        with tf.Graph().as_default():
            out[case] = fn(tf, rewrites_off=True)
    with open(out_path, "w") as f:
        json.dump(out, f, indent=1, sort_keys=True)
    print(f"recorded {len(cases)} cases")


if __name__ == "__main__":
    main(*sys.argv[1:3])
