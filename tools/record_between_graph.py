"""Records what TensorFlow 2.21 gives for tests/cases/between_graph_cases.py, with its own
in-process gRPC servers on free localhost ports (its own venv):

    TF_ENABLE_ONEDNN_OPTS=0 /path/to/tf-venv/bin/python tools/record_between_graph.py
"""
import json
import os
import socket
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tests", "cases"))

import between_graph_cases as cases  # noqa: E402
import tensorflow.compat.v1 as tf  # noqa: E402

tf.disable_eager_execution()
tf.disable_resource_variables()  # TF1's ref variables, as the programs of the time made them


def addresses(n):
    out, held = [], []
    for _ in range(n):
        s = socket.socket()
        s.bind(("localhost", 0))
        held.append(s)
        out.append(f"localhost:{s.getsockname()[1]}")
    for s in held:
        s.close()
    return out


out = {"tensorflow": tf.__version__}
for name in sys.argv[1:] or ["two_clients", "waiting_worker", "sync_two_workers", "replica_program"]:
    out[name] = getattr(cases, name)(tf, addresses)
    # mnist_replica.py's known hang: sometimes the chief stops first and the other worker waits for
    # a token for ever; the recording is of a run where both finished
    for _ in range(5):
        if out[name].get("finished", True):
            break
        out[name] = getattr(cases, name)(tf, addresses)
    print(name, out[name], flush=True)
path = os.path.join(ROOT, "tests", "data", "tf_between_graph.json")
old = json.load(open(path)) if os.path.exists(path) and sys.argv[1:] else {}
with open(path, "w") as f:
    json.dump({**old, **out}, f, indent=1)
