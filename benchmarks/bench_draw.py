"""Drawing a 10,000-op graph folded by name scope (issue: under 2 s on a 2-core machine).

    python benchmarks/bench_draw.py
"""
import sys

sys.path.insert(0, __file__.rsplit("/", 1)[0])
from common import median_seconds, row  # noqa: E402

import devlab as tf  # noqa: E402
from devlab.views.graph_view import GraphView  # noqa: E402


def main():
    with tf.Graph().as_default():
        x = tf.constant(1.0)
        for layer in range(50):
            with tf.name_scope(f"layer{layer}"), tf.device("/gpu:0" if layer % 2 else "/cpu:0"):
                for _ in range(100):
                    x = tf.cos(tf.sin(x))
        sess = tf.Session(config=tf.ConfigProto(device_count={"GPU": 1}))
        sess.run(x)
        n = len(sess.graph.get_operations())
        print(f"Drawing a {n}-op graph (50 name scopes alternating 2 devices), collapsed, to SVG; median of 3")
        row("GraphView(...).svg()  (collapsed)", median_seconds(lambda: GraphView(sess).svg(), repeat=3))


if __name__ == "__main__":
    main()
