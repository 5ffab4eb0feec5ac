#!/usr/bin/env python3
"""Record what TensorFlow builds and computes for each snippet of tests/op_graphs/.

usage: <a python with tensorflow> tools/record_op_graphs.py [SNIPPET ...]

A snippet is TF1 code run with ``tf`` (TensorFlow's ``compat.v1`` here, devlab in
tests/test_op_graphs.py) and ``np``; it may set ``FEED`` ({placeholder name: value}) and
``FETCH`` (a list of tensors) to have values recorded, after one run of each item of ``PRERUN``
(training steps) when it sets one. For each snippet this writes
tests/data/op_graphs/<snippet>.json: TensorFlow's version and, per op in creation order,
[name, type, input names, control input names, Const value (small ones), output shapes,
requested device, colocation groups], and
the fetched values (in a session made with ``ConfigProto(**CONFIG)`` when the snippet sets
``CONFIG``). Each op also has its requested device and colocation groups. TensorFlow is never a
devlab dependency: run this from its own venv
(``tf.compat.v1.layers`` needs ``tf_keras`` and ``TF_USE_LEGACY_KERAS=1``).
"""
import glob
import json
import os
import sys

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
os.environ.setdefault("TF_USE_LEGACY_KERAS", "1")

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SNIPPETS = os.path.join(ROOT, "tests", "op_graphs")
OUT = os.path.join(ROOT, "tests", "data", "op_graphs")


def plain(value):
    import numpy as np
    value = np.asarray(value)
    if value.dtype == object:
        return [v.decode() if isinstance(v, bytes) else str(v) for v in value.reshape(-1)]
    return np.round(value.astype(float), 6).tolist()


def describe(tf, graph):
    from tensorflow.python.framework import tensor_util
    ops = []
    for op in graph.get_operations():
        const = None
        if op.type == "Const":
            value = tensor_util.MakeNdarray(op.get_attr("value"))
            const = plain(value) if value.size <= 16 else None
        groups = sorted(g.decode() if isinstance(g, bytes) else g for g in op.colocation_groups())
        ops.append([op.name, op.type, [t.name for t in op.inputs], [c.name for c in op.control_inputs], const,
                    [str(t.shape) for t in op.outputs], op.device, groups])
    return ops


def record(name):
    import numpy as np
    import tensorflow.compat.v1 as tf
    tf.disable_v2_behavior()
    env = {"tf": tf, "np": np}
    with tf.Graph().as_default() as graph:
        exec(compile(open(os.path.join(SNIPPETS, name + ".py")).read(), name, "exec"), env)
        facts = {"tensorflow": tf.__version__, "ops": describe(tf, graph)}
        if "FETCH" in env:
            with tf.Session(config=tf.ConfigProto(**env.get("CONFIG", {}))) as sess:
                sess.run(tf.global_variables_initializer())
                feed = {graph.get_tensor_by_name(k + ":0"): v for k, v in env.get("FEED", {}).items()}
                for fetch in env.get("PRERUN", []):  # one run each (training steps), before FETCH
                    sess.run(fetch, feed)
                facts["values"] = [plain(v) for v in sess.run(env["FETCH"], feed)]
    with open(os.path.join(OUT, name + ".json"), "w") as f:
        json.dump(facts, f, indent=0)
        f.write("\n")
    print(name, len(facts["ops"]), "ops")


if __name__ == "__main__":
    sys.path.insert(0, os.environ.get("TF_KERAS_PATH", os.path.join(ROOT, "tools", ".tf_keras")))  # tf_keras for layers
    names = sys.argv[1:] or sorted(os.path.basename(p)[:-3] for p in glob.glob(os.path.join(SNIPPETS, "*.py")))
    for n in names:
        record(n)
