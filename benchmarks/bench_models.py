"""Real models' training steps under devlab and, in the same run, TensorFlow (when installed).

    python benchmarks/bench_models.py                  # every model
    python benchmarks/bench_models.py cnn lstm         # some of them
    python benchmarks/bench_models.py --repeat 3

The same program text (``benchmarks/models.py``) is built with ``import devlab as tf`` and with
``import tensorflow.compat.v1 as tf``; each session runs its initializer, two warm-up steps and
then ``--repeat`` timed steps, of which the median and the best are shown, in wall time and in CPU
time (every thread of the process: the work a step does, whoever else loads the machine). Ratios
read TF/devlab: above 1, devlab is faster. On a machine that other processes load, the median grows
with how often a step is preempted; the best is closer to the work a step does. With TensorFlow in another virtual environment, run this with its python and
devlab on the path: ``PYTHONPATH=$PWD /path/to/tfvenv/bin/python benchmarks/bench_models.py``.
TensorFlow 2.16+ has ``tf.nn.rnn_cell`` only with Keras 2 (the ``tf_keras`` package, importable:
``pip install --target DIR tf_keras`` and DIR on PYTHONPATH); this script asks for it.
"""
import argparse
import os
import statistics
import sys
import time

os.environ.setdefault("TF_USE_LEGACY_KERAS", "1")  # tf.nn.rnn_cell under TensorFlow 2.16+

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import describe_machine, tensorflow_v1  # noqa: E402
from models import MODELS  # noqa: E402

import devlab  # noqa: E402

TITLES = {
    "cnn": "2-tower CNN (conv 5x5x64 x2, max pool, 2 dense; batch 64 over /cpu:0 and /cpu:1)",
    "lstm": "PTB LM (embedding, 2 x LSTMCell(256), dynamic_rnn 20 steps, batch 20, vocab 2000, SGD)",
    "word2vec": "word2vec (embedding 50000 x 128, nce_loss 64 sampled, batch 128, SGD)",
}


def step_seconds(tf, build, repeat):
    g, init, train, loss, feed = build(tf)
    sess = tf.Session(graph=g, config=tf.ConfigProto(device_count={"CPU": 2}))
    sess.run(init)
    for _ in range(2):
        sess.run(train, feed)
    times, cpu = [], []
    for _ in range(repeat):
        t0, c0 = time.perf_counter(), time.process_time()
        sess.run(train, feed)
        times.append(time.perf_counter() - t0)
        cpu.append(time.process_time() - c0)
    sess.close()
    return statistics.median(times), min(times), statistics.median(cpu), min(cpu)


def _ms(seconds):
    """Milliseconds, with two decimals below 10 ms (word2vec's step is half of one)."""
    return f"{seconds * 1e3:.2f}" if seconds < 0.01 else f"{seconds * 1e3:.1f}"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("models", nargs="*", help=f"some of {', '.join(MODELS)} (default: all)")
    ap.add_argument("--repeat", type=int, default=10)
    args = ap.parse_args()
    args.models = args.models or list(MODELS)
    unknown = [m for m in args.models if m not in MODELS]
    if unknown:
        ap.error(f"unknown model {unknown[0]!r}: choose from {', '.join(MODELS)}")
    # devlab first: importing TensorFlow slows Python's garbage collector for what comes after.
    mine = {name: step_seconds(devlab, MODELS[name], args.repeat) for name in args.models}
    tf = tensorflow_v1()
    theirs = {name: step_seconds(tf, MODELS[name], args.repeat) for name in args.models} if tf else {}
    print(describe_machine(tf))
    print(f"load average (1, 5, 15 min): {' '.join(f'{v:.2f}' for v in os.getloadavg())}")
    print(f"training steps, median (best) of {args.repeat}, wall and CPU time:")
    for name in args.models:
        print(f"  {TITLES[name]}")
        for kind, at in (("wall", 0), ("CPU ", 2)):
            med, best = mine[name][at:at + 2]
            line = f"    {kind} devlab {_ms(med):>8s} ms ({_ms(best):>7s})"
            if name in theirs:
                t_med, t_best = theirs[name][at:at + 2]
                line += (f"   TF {_ms(t_med):>8s} ms ({_ms(t_best):>7s})"
                         f"   TF/devlab {t_med / med:5.2f}x ({t_best / best:5.2f}x)")
            print(line)


if __name__ == "__main__":
    main()
