"""Summary ops output the bytes TensorFlow's do: a serialized ``Summary`` (scalars as
simple_value, histograms in TF's default buckets), merged by concatenating values. The program
and TF 2.21's bytes are in tests/data/tf_summaries.json (tools/record_summaries.py)."""
import base64
import json
import os

import numpy as np

import devlab as tf

HERE = os.path.dirname(os.path.abspath(__file__))


def test_summary_ops_output_tensorflows_bytes():
    with open(os.path.join(HERE, "data", "tf_summaries.json")) as f:
        recorded = json.load(f)
    env = {"tf": tf, "np": np}
    exec(recorded["program"], env)  # noqa: S102 - the recorded program
    with tf.Session() as sess:
        values = sess.run(env["FETCH"])
    assert [base64.b64encode(v).decode() for v in values] == recorded["summaries"]
