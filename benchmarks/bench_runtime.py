"""The runtime's figures, each beside TensorFlow (when installed) and numpy, in one run.

    python benchmarks/bench_runtime.py            # everything
    python benchmarks/bench_runtime.py --quick    # smaller repeat counts

1. A chain of 10,000 ``AddV2`` on 16 floats fed by a placeholder (``y = y + x``): graph build,
   first run (place + plan + run) and steady runs on one device and alternating two CPU
   devices. (A chain of ``y + 0.5`` would not do: TensorFlow's graph rewrites fold it into one
   op, while devlab runs every op the log shows.)
2. A 1,000-op chain on 100,000 floats against numpy doing the same adds.
3. A chain of 1,000 ``MatMul`` of 4 x 4 matrices: no op fuses with the next, so each is one kernel
   call of the compiled program; the steady run over 1,000 is what dispatching an op costs
   (beside numpy's ``matmul`` called 1,000 times).
4. One training step of a 3-layer MLP (about 12M parameters) on two CPU towers with
   Momentum, batch 32.
Ratios read "TF/devlab" for TensorFlow (above 1: devlab is faster) and "x numpy" for numpy.
"""
import argparse
import sys
import time

import numpy as np

sys.path.insert(0, __file__.rsplit("/", 1)[0])
from common import describe_machine, median_seconds, tensorflow_v1  # noqa: E402

import devlab  # noqa: E402


def chain(tf, n, devices, size=16):
    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.float32, [size], name="x")
        y = x
        for i in range(n):
            with tf.device(devices[i % len(devices)]):
                y = y + x
    return g, x, y


def chain_figures(tf, n, devices, config, repeat):
    t0 = time.perf_counter()
    g, x, y = chain(tf, n, devices)
    build = time.perf_counter() - t0
    sess = tf.Session(graph=g, config=config)
    feed = {x: np.ones(16, np.float32)}
    t0 = time.perf_counter()
    sess.run(y, feed)
    first = time.perf_counter() - t0
    steady = median_seconds(lambda: sess.run(y, feed), repeat=repeat, warmup=2)
    sess.close()
    return build, first, steady


def big_chain(tf, n, size, repeat):
    g, x, y = chain(tf, n, ["/cpu:0"], size)
    sess = tf.Session(graph=g)
    feed = {x: np.ones(size, np.float32)}
    sess.run(y, feed)
    return median_seconds(lambda: sess.run(y, feed), repeat=repeat, warmup=2)


def matmul_chain(tf, n, repeat):
    """Steady runs of ``y = y @ x`` n times on 4 x 4 floats (x fed): one kernel call per op."""
    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.float32, [4, 4], name="x")
        y = x
        for _ in range(n):
            y = tf.matmul(y, x)
    sess = tf.Session(graph=g)
    feed = {x: np.eye(4, dtype=np.float32) * 0.5}
    sess.run(y, feed)
    return median_seconds(lambda: sess.run(y, feed), repeat=repeat, warmup=2)


def numpy_matmul_chain(n, x):
    v = x
    for _ in range(n):
        v = np.matmul(v, x)
    return v


def numpy_chain(n, x):
    v = x
    for _ in range(n):
        v = v + x
    return v


def mlp(tf, sizes=(1024, 2560, 2560, 1024), batch=32, towers=2):
    """TF1-style data parallelism: towers on /cpu:i, variables on /cpu:0, averaged gradients."""
    g = tf.Graph()
    with g.as_default():
        with tf.device("/cpu:0"):
            weights = []
            for i, (a, b) in enumerate(zip(sizes, sizes[1:])):
                w = tf.Variable(tf.constant(0.01, shape=[a, b]), name=f"w{i}")
                bias = tf.Variable(tf.zeros([b]), name=f"b{i}")
                weights.append((w, bias))
        opt = tf.train.MomentumOptimizer(0.01, 0.9)
        feeds, tower_grads = [], []
        for t in range(towers):
            with tf.device(f"/cpu:{t}"), tf.name_scope(f"tower_{t}"):
                x = tf.placeholder(tf.float32, [batch // towers, sizes[0]], name="x")
                label = tf.placeholder(tf.float32, [batch // towers, sizes[-1]], name="label")
                h = x
                for i, (w, bias) in enumerate(weights):
                    h = tf.matmul(h, w) + bias
                    if i < len(weights) - 1:
                        h = tf.nn.relu(h)
                loss = tf.reduce_mean(tf.square(h - label))
                tower_grads.append(opt.compute_gradients(loss))
                feeds.append((x, label))
        with tf.device("/cpu:0"):
            averaged = []
            for pairs in zip(*tower_grads):
                grads = [g_ for g_, _ in pairs]
                averaged.append((tf.add_n(grads) * (1.0 / towers), pairs[0][1]))
            train = opt.apply_gradients(averaged)
        init = tf.global_variables_initializer()
    rng = np.random.default_rng(0)
    feed = {}
    for x, label in feeds:
        feed[x] = rng.standard_normal(x.shape.as_list()).astype(np.float32)
        feed[label] = rng.standard_normal(label.shape.as_list()).astype(np.float32)
    return g, init, train, feed


def mlp_step(tf, repeat):
    g, init, train, feed = mlp(tf)
    sess = tf.Session(graph=g, config=tf.ConfigProto(device_count={"CPU": 2}))
    sess.run(init)
    sess.run(train, feed)
    return median_seconds(lambda: sess.run(train, feed), repeat=repeat, warmup=2)


def show(label, devlab_s, tf_s=None, numpy_s=None):
    parts = [f"  {label:<48s} devlab {devlab_s * 1e3:9.2f} ms"]
    if tf_s is not None:
        parts.append(f"TF {tf_s * 1e3:9.2f} ms  TF/devlab {tf_s / devlab_s:6.2f}x")
    if numpy_s is not None:
        parts.append(f"numpy {numpy_s * 1e3:8.2f} ms  {devlab_s / numpy_s:5.2f}x numpy")
    print("  ".join(parts))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true")
    args = ap.parse_args()
    repeat = 3 if args.quick else 7
    n = 10_000
    one = devlab.ConfigProto(device_count={"CPU": 1, "GPU": 0})
    two = devlab.ConfigProto(device_count={"CPU": 2, "GPU": 0})
    big = np.ones(100_000, np.float32)
    # devlab first, then TensorFlow: importing TensorFlow fills the process with objects that
    # slow down Python's garbage collector for everything measured after it.
    d_chain = chain_figures(devlab, n, ["/cpu:0"], one, repeat)
    d_steady2 = chain_figures(devlab, n, ["/cpu:0", "/cpu:1"], two, repeat)[2]
    d_big = big_chain(devlab, 1000, 100_000, repeat)
    d_matmuls = matmul_chain(devlab, 1000, repeat)
    d_mlp = mlp_step(devlab, repeat)
    ref_small = median_seconds(lambda: numpy_chain(n, np.ones(16, np.float32)), repeat=repeat)
    ref_big = median_seconds(lambda: numpy_chain(1000, big), repeat=repeat)
    ref_matmuls = median_seconds(lambda: numpy_matmul_chain(1000, np.eye(4, dtype=np.float32)), repeat=repeat)
    tf = tensorflow_v1()
    t_chain, t_steady2, t_big, t_matmuls, t_mlp = (None, None, None), None, None, None, None
    if tf is not None:
        t_chain = chain_figures(tf, n, ["/cpu:0"], tf.ConfigProto(device_count={"CPU": 1}), repeat)
        t_steady2 = chain_figures(tf, n, ["/cpu:0", "/cpu:1"], tf.ConfigProto(device_count={"CPU": 2}), repeat)[2]
        t_big = big_chain(tf, 1000, 100_000, repeat)
        t_matmuls = matmul_chain(tf, 1000, repeat)
        t_mlp = mlp_step(tf, repeat)
    print(describe_machine(tf))
    print(f"chain of {n} AddV2 on 16 floats, fed by a placeholder")
    show("build", d_chain[0], t_chain[0])
    show("first run (place + plan + run)", d_chain[1], t_chain[1])
    show("steady run, one device", d_chain[2], t_chain[2], ref_small)
    show("steady run, two CPU devices alternating", d_steady2, t_steady2, ref_small)
    print("1,000-op chain on 100,000 floats")
    show("steady run, one device", d_big, t_big, ref_big)
    print("chain of 1,000 MatMul on 4x4 floats (an op dispatched: the run / 1,000)")
    show("steady run, one device", d_matmuls, t_matmuls, ref_matmuls)
    print("training step: 3-layer MLP (11.8M parameters), 2 CPU towers, Momentum, batch 32")
    show("steady step", d_mlp, t_mlp)


if __name__ == "__main__":
    main()
