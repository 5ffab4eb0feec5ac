"""The default drawing of big graphs: one node per device (the device view) against the op
drawing folded as far as it goes. What it prints, per graph: ops, drawn nodes, SVG size, seconds.

    python benchmarks/bench_device_view.py

1. tests/data/tf_graphs/big_10k.pb: 10,002 ops in 20 name scopes on two CPUs (modelled run);
2. a 12,500-multiply chain (25,000 ops with their constants) with no name scopes (folding has nothing to fold), on CPU:0, GPU:0, GPU:1.
"""
import re
import subprocess
import sys
import time

import numpy as np

sys.path.insert(0, __file__.rsplit("/", 1)[0])
from common import describe_machine  # noqa: E402

import devlab as tf  # noqa: E402
from devlab import config  # noqa: E402
from devlab.graphs import load_graph  # noqa: E402
from devlab.runtime.protos import ConfigProto  # noqa: E402
from devlab.runtime.session import Session  # noqa: E402
from devlab.views.graph_view import DOT_TIMEOUT, GraphView  # noqa: E402


def measure(title, sess, plan):
    for level in ("device", "ops"):
        start = time.perf_counter()
        view = GraphView(sess, plan, level=level)
        try:
            svg = view.svg()
        except subprocess.TimeoutExpired:  # the op drawing of a graph folding cannot shrink
            print(f"{title:<40} {level:<7} {len(view.ops):>7} ops: dot gave up after {DOT_TIMEOUT} s")
            continue
        seconds = time.perf_counter() - start
        nodes = len(re.findall(r'class="node', svg))
        print(f"{title:<40} {level:<7} {len(view.ops):>7} ops {nodes:>6} nodes {len(svg) / 1024:>9.1f} KB SVG "
              f"{seconds:>7.2f} s")


def main():
    print(describe_machine())
    with config.override(default_cpus=2):
        sess = Session(graph=load_graph("tests/data/tf_graphs/big_10k.pb"), config=ConfigProto(allow_soft_placement=True))
        run = sess.modelled_run()
    measure("big_10k.pb (20 scopes, 2 CPUs)", sess, run.plan)
    g = tf.Graph()
    with g.as_default():
        with tf.device("/cpu:0"):
            h = tf.constant(np.ones(4, np.float32))
        for i in range(12_499):
            with tf.device(["/cpu:0", "/gpu:0", "/gpu:1"][(i // 200) % 3]):
                h = h * 1.0001
        sess = tf.Session(graph=g, config=tf.ConfigProto(device_count={"GPU": 2}))
        run = sess.modelled_run(h)
    measure("12.5k-op chain, no scopes, 3 devices", sess, run.plan)


if __name__ == "__main__":
    main()
