"""Opening and placing a 10,000-node GraphDef written by TensorFlow 2.21 (issue 17: under 2 s).

    python benchmarks/bench_graphs.py

Times, on the machine it runs on: reading and checking ``tests/data/tf_graphs/big_10k.pb``
(10,002 nodes: a 2,000-layer MatMul/AddV2/Tanh chain with its Const weights, in name scopes
alternating between /cpu:0 and /cpu:1) into a new Graph, placing it on 2 CPUs (and on 2 CPUs
plus 8 simulated GPUs), and a modelled run of its output. The first load in a process also
reads TensorFlow's recorded OpDefs and kernel registry (JSON, once); it is shown apart.
"""
import os
import sys
import time

sys.path.insert(0, __file__.rsplit("/", 1)[0])
from common import describe_machine, median_seconds, row  # noqa: E402

import devlab  # noqa: E402

BIG = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "data", "tf_graphs", "big_10k.pb")


def load_and_place(gpus=0):
    graph = devlab.load_graph(BIG)
    session = devlab.Session(graph=graph, config=devlab.ConfigProto(device_count={"CPU": 2, "GPU": gpus}))
    session.ensure_placed()
    return session


def main():
    print(describe_machine())
    t0 = time.perf_counter()
    load_and_place()
    first = time.perf_counter() - t0
    print("big_10k.pb (10,002 nodes, 1.3 MB), median of 5 after the first")
    row("first load + place in a fresh process", first)
    row("load (read, check, build the Graph)", median_seconds(lambda: devlab.load_graph(BIG)))
    total = median_seconds(load_and_place)
    row("load + place on 2 CPUs", total)
    row("load + place on 2 CPUs + 8 simulated GPUs", median_seconds(lambda: load_and_place(8)))
    session = load_and_place()
    row("modelled run of 'output'", median_seconds(lambda: session.modelled_run("output"), repeat=3))
    print(f"  issue 17 asks for load + place under 2 s: {'yes' if max(total, first) < 2 else 'NO'} "
          f"({max(total, first):.3f} s at worst)")


if __name__ == "__main__":
    main()
