"""Drawing placed graphs: building the drawing must stay linear in ops and transfers.

    python benchmarks/bench_draw.py

1. ``to_dot()`` of the runtime benchmark's graph: a 10,000-op chain alternating two devices,
   so every op's input crosses devices (10,000 transfers). Target: well under 100 ms. Its
   numbered ops fold into one series per device, so its SVG (``dot`` included) is fast too.
2. The SVG of a 10,000-op model with 50 name scopes on two devices, folded by scope (dot runs).
"""
import sys

import numpy as np

sys.path.insert(0, __file__.rsplit("/", 1)[0])
from bench_runtime import chain  # noqa: E402
from common import describe_machine, median_seconds, row  # noqa: E402

import devlab as tf  # noqa: E402
from devlab.views.graph_view import GraphView  # noqa: E402


def main():
    print(describe_machine())
    g, x, y = chain(tf, 10_000, ["/cpu:0", "/cpu:1"])
    sess = tf.Session(graph=g, config=tf.ConfigProto(device_count={"CPU": 2}))
    sess.run(y, {x: np.ones(16, np.float32)})
    print(f"{len(g.get_operations())}-op chain alternating CPU:0/CPU:1, {len(sess.last_plan.transfers)} transfers")
    row("GraphView(sess).to_dot()", median_seconds(lambda: GraphView(sess).to_dot(), repeat=5))
    row("GraphView(sess).svg()  (to_dot + dot)", median_seconds(lambda: GraphView(sess).svg(), repeat=3))
    with tf.Graph().as_default():
        x = tf.constant(1.0)
        for layer in range(50):
            with tf.name_scope(f"layer{layer}"), tf.device("/gpu:0" if layer % 2 else "/cpu:0"):
                for _ in range(100):
                    x = tf.cos(tf.sin(x))
        sess = tf.Session(config=tf.ConfigProto(device_count={"GPU": 1}))
        sess.run(x)
        n = len(sess.graph.get_operations())
        print(f"{n}-op graph, 50 name scopes alternating 2 devices, folded by scope")
        row("GraphView(sess).svg()  (to_dot + dot)", median_seconds(lambda: GraphView(sess).svg(), repeat=3))


if __name__ == "__main__":
    main()
