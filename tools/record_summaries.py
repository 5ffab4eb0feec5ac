"""Record the bytes TensorFlow's summary ops output, for tests/test_summaries.py.

    /work/tfvenv/bin/python tools/record_summaries.py   # TF 2.21 in its own venv, never a devlab dependency

Writes tests/data/tf_summaries.json: the program below (shared with the test) and the base64 of
each fetched summary.
"""
import base64
import json
import os

PROGRAM = """
x = tf.constant(np.array([0.0, 1.5, -2.0, 3.0, 1e-13, 7.0, 7.0, -1e30], np.float32))
with tf.name_scope("tower_0"):
    s1 = tf.summary.scalar("loss", tf.reduce_sum(x[:4]))
    h = tf.summary.histogram("acts", x)
z = tf.summary.scalar("zero", 0.0)
ints = tf.summary.histogram("ints", tf.constant([3, 3, 0, -2]))
merged = tf.summary.merge_all()
empty = tf.summary.histogram("empty", tf.zeros([0]))
FETCH = [s1, h, z, ints, merged, empty]
"""

if __name__ == "__main__":
    import numpy as np
    import tensorflow.compat.v1 as tf
    tf.disable_v2_behavior()
    env = {"tf": tf, "np": np}
    exec(PROGRAM, env)  # noqa: S102 - our own program
    with tf.Session() as sess:
        values = sess.run(env["FETCH"])
    out = {"tensorflow": tf.__version__, "program": PROGRAM,
           "summaries": [base64.b64encode(v).decode() for v in values]}
    path = os.path.join(os.path.dirname(__file__), "..", "tests", "data", "tf_summaries.json")
    with open(path, "w") as f:
        json.dump(out, f, indent=1)
        f.write("\n")
