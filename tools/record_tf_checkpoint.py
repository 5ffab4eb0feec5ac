"""Record checkpoints TensorFlow's Saver writes (its V2 format), for tests/test_tf_checkpoint.py.

    /work/tfvenv/bin/python tools/record_tf_checkpoint.py   # TF 2.21 in its own venv, never a devlab dependency

Writes tests/data/tf_checkpoints/: ``model.ckpt.index`` and ``model.ckpt.data-00000-of-00001`` (one
shard), ``sharded.ckpt.*`` (``Saver(sharded=True)`` over two CPUs: two data shards), and
``values.json``: the program below (shared with the test) and the value TF saved for each variable.
"""
import json
import os

PROGRAM = """
with tf.device("/cpu:0"):
    kernel = tf.Variable(np.arange(6, dtype=np.float32).reshape(3, 2) / 4 - 0.5, name="dense/kernel")
    bias = tf.Variable([0.25, -1.5], dtype=tf.float32, name="dense/bias")
    step = tf.Variable(123456789012, dtype=tf.int64, name="global_step")
    counts = tf.Variable([3, -1, 0, 7], dtype=tf.int32, name="counts")
with tf.device("/cpu:1"):
    scale = tf.Variable(2.0 ** -30, dtype=tf.float64, name="scale")
    flags = tf.Variable([True, False, True], name="flags")
    half = tf.Variable([1.5, -0.125], dtype=tf.float16, name="half")
    words = tf.Variable([b"ab", b"", b"\\xff\\x00c"], name="words")
    empty = tf.Variable(np.zeros((0, 3), np.float32), name="empty")
VARIABLES = [kernel, bias, step, counts, scale, flags, half, words, empty]
"""


def _json(value):
    if value.dtype.kind == "O" or value.dtype.kind == "S":
        return [v.hex() for v in value.reshape(-1).tolist()]
    return value.reshape(-1).tolist()


if __name__ == "__main__":
    import numpy as np
    import tensorflow.compat.v1 as tf
    tf.disable_v2_behavior()
    out_dir = os.path.join(os.path.dirname(__file__), "..", "tests", "data", "tf_checkpoints")
    os.makedirs(out_dir, exist_ok=True)
    env = {"tf": tf, "np": np}
    exec(PROGRAM, env)  # noqa: S102 - our own program
    config = tf.ConfigProto(device_count={"CPU": 2})
    with tf.Session(config=config) as sess:
        sess.run(tf.global_variables_initializer())
        values = {v.op.name: sess.run(v) for v in env["VARIABLES"]}
        tf.train.Saver().save(sess, os.path.join(out_dir, "model.ckpt"), write_meta_graph=False,
                              write_state=False)
        tf.train.Saver(sharded=True).save(sess, os.path.join(out_dir, "sharded.ckpt"), write_meta_graph=False,
                                          write_state=False)
    record = {"tensorflow": tf.__version__, "program": PROGRAM,
              "values": {name: {"dtype": tf.as_dtype(v.dtype).name if v.dtype.kind != "O" else "string",
                                "shape": list(v.shape), "flat": _json(np.asarray(v))}
                         for name, v in values.items()}}
    with open(os.path.join(out_dir, "values.json"), "w") as f:
        json.dump(record, f, indent=1)
        f.write("\n")
    print(sorted(os.listdir(out_dir)))
