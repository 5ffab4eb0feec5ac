"""What running each task on a Dask worker costs per training step: against TensorFlow's own servers,
and against the same program in-process.

    python benchmarks/bench_cluster.py                                   # 7 rounds of 200 steps each way
    python benchmarks/bench_cluster.py --quick                           # 3 rounds of 50
    python benchmarks/bench_cluster.py --tf-python /work/tfvenv/bin/python   # TF from another venv

First the issue's ps/worker step: a 256x256 variable on ``/job:ps/task:0``, its gradient from a
32-row product on ``/job:worker/task:0``, applied on the ps (256 KB each way per step). devlab runs
it on ``devlab.cluster.local(ps=1, worker=1)`` (two Dask worker processes); TensorFlow on its own
in-process gRPC servers (``tf.train.Server`` on localhost, one ps and one worker, the client in
the worker's process), in this Python when it imports TensorFlow, else in ``--tf-python``'s, kept
running beside so that rounds alternate. The ratio is TF's time over devlab's (>= 1: devlab is
as fast or faster).

Then the same step in the issue's between-graph layout: ``ps=1, worker=2``, each worker its own
client (its own graph and session on its own server's target), both stepping the one shared
variable at once (a thread each, in devlab's process and in TensorFlow's); the chief initialises
it. The time is wall seconds over the steps each worker ran.

Then the MLP below on the cluster against the in-process simulated cluster.

The program: a small MLP (64 -> 32 -> 10, softmax cross-entropy, batch 32) whose variables sit on
``/job:ps/task:0`` and whose compute sits on ``/job:worker/task:0`` (``replica_device_setter``),
trained with plain SGD. It runs on ``devlab.cluster.local(ps=1, worker=1)`` (a LocalCluster: one
worker process per task, loopback TCP) and, for reference, on the in-process simulated cluster.
Rounds alternate between the two so that a busy machine slows both alike; the figures are
medians over rounds. The per-step overhead is (cluster step) - (in-process step); the bytes
moved are those of the cross-task ``_Send``/``_Recv`` pairs of one step.
"""
import argparse
import os
import statistics
import sys
import time

import numpy as np

sys.path.insert(0, __file__.rsplit("/", 1)[0])
from common import describe_machine  # noqa: E402

if "--tf-servers" not in sys.argv:  # the TensorFlow side runs without devlab
    import devlab as tf  # noqa: E402
    import devlab.cluster  # noqa: E402

SPEC = {"ps": ["ps0:2222"], "worker": ["worker0:2222"]}


def build(cluster):
    """The model on ``cluster``; returns (graph, train_op, loss, feed)."""
    g = tf.Graph()
    with g.as_default():
        with tf.device(tf.train.replica_device_setter(cluster=cluster, worker_device="/job:worker/task:0")):
            x = tf.placeholder(tf.float32, [None, 64], name="x")
            y = tf.placeholder(tf.int64, [None], name="y")
            w1 = tf.Variable(tf.truncated_normal([64, 32], stddev=0.1), name="w1")
            b1 = tf.Variable(tf.zeros([32]), name="b1")
            w2 = tf.Variable(tf.truncated_normal([32, 10], stddev=0.1), name="w2")
            b2 = tf.Variable(tf.zeros([10]), name="b2")
            h = tf.nn.relu(tf.matmul(x, w1) + b1)
            logits = tf.matmul(h, w2) + b2
            loss = tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits(labels=tf.one_hot(y, 10), logits=logits))
            train = tf.train.GradientDescentOptimizer(0.1).minimize(loss)
            init = tf.global_variables_initializer()
    rng = np.random.default_rng(0)
    feed = {x: rng.standard_normal((32, 64)).astype(np.float32), y: rng.integers(0, 10, 32)}
    return g, init, train, loss, feed


def steps_per_second(sess, train, feed, n):
    t0 = time.perf_counter()
    for _ in range(n):
        sess.run(train, feed)
    return (time.perf_counter() - t0) / n


def step_program(tf):
    """The issue's step in ``tf`` (devlab or TensorFlow): (graph, init, train, w)."""
    g = tf.Graph()
    with g.as_default():
        with tf.device("/job:ps/task:0"):
            w = tf.Variable(tf.zeros([256, 256]), name="w")
        with tf.device("/job:worker/task:0"):
            x = tf.constant(np.random.default_rng(0).standard_normal((32, 256)).astype(np.float32))
            grad = tf.gradients(tf.reduce_sum(tf.matmul(x, w)), [w])[0]
        with tf.device("/job:ps/task:0"):
            train = tf.train.GradientDescentOptimizer(0.001).apply_gradients([(grad, w)])
    return g, w.initializer, train, w


def between_graph_program(tf, index):
    """Worker ``index``'s own graph of the between-graph program: the same ``w`` on the ps
    (shared by every worker's client), its gradient from the worker's own 32 rows."""
    g = tf.Graph()
    with g.as_default():
        with tf.device("/job:ps/task:0"):
            w = tf.Variable(tf.zeros([256, 256]), name="w")
        with tf.device(f"/job:worker/task:{index}"):
            x = tf.constant(np.random.default_rng(index).standard_normal((32, 256)).astype(np.float32))
            grad = tf.gradients(tf.reduce_sum(tf.matmul(x, w)), [w])[0]
        with tf.device("/job:ps/task:0"):
            train = tf.train.GradientDescentOptimizer(0.001).apply_gradients([(grad, w)])
    return g, w.initializer, train


def between_graph_sessions(tf, targets):
    """One client per worker (a graph and a session each, on the worker's own target); the chief
    (worker 0) initialises ``w``. Returns [(session, train)]."""
    clients = []
    for index, target in enumerate(targets):
        g, init, train = between_graph_program(tf, index)
        sess = tf.Session(target, graph=g)
        if index == 0:
            sess.run(init)
        clients.append((sess, train))
    return clients


def between_graph_seconds(clients, n):
    """Every worker's client runs ``n`` steps at once (a thread each); wall seconds / n."""
    import threading
    start = threading.Barrier(len(clients) + 1)

    def worker(sess, train):
        start.wait()
        for _ in range(n):
            sess.run(train)
    threads = [threading.Thread(target=worker, args=c) for c in clients]
    for t in threads:
        t.start()
    start.wait()
    t0 = time.perf_counter()
    for t in threads:
        t.join()
    return (time.perf_counter() - t0) / n


def tf_servers():
    """TensorFlow's in-process servers on free localhost ports: a ps and a worker with a session
    on the worker's target running the step, and a ps and two workers with a client each for the
    between-graph program; reads "step N" or "between N" per line, answers seconds/step."""
    import socket
    import tensorflow.compat.v1 as tft
    tft.disable_v2_behavior()

    def free_ports(k):
        socks = [socket.socket() for _ in range(k)]
        for sock in socks:
            sock.bind(("localhost", 0))
        ports = [sock.getsockname()[1] for sock in socks]
        for sock in socks:
            sock.close()
        return [f"localhost:{p}" for p in ports]
    ps, worker = free_ports(2)
    spec = tft.train.ClusterSpec({"ps": [ps], "worker": [worker]})
    tft.train.Server(spec, "ps", 0)
    worker = tft.train.Server(spec, "worker", 0)
    g, init, train, w = step_program(tft)
    sess = tft.Session(worker.target, graph=g)
    sess.run(init)
    addresses = free_ports(3)
    spec2 = tft.train.ClusterSpec({"ps": addresses[:1], "worker": addresses[1:]})
    tft.train.Server(spec2, "ps", 0)
    workers = [tft.train.Server(spec2, "worker", i) for i in range(2)]
    clients = between_graph_sessions(tft, [s.target for s in workers])
    print(f"ready TensorFlow {tft.__version__}", flush=True)
    for line in sys.stdin:
        kind, n = line.split()
        if kind == "step":
            print(steps_per_second(sess, train, None, int(n)), flush=True)
        else:
            print(between_graph_seconds(clients, int(n)), flush=True)


class TensorFlowSide:
    """The TF servers: in this process when TensorFlow imports, else in a ``tf_python`` process."""

    def __init__(self, tf_python):
        self.process = None
        try:
            import tensorflow  # noqa: F401
            tf_python = sys.executable
        except ImportError:
            if not tf_python:
                raise
        import subprocess
        self.process = subprocess.Popen([tf_python, __file__, "--tf-servers"], stdin=subprocess.PIPE,
                                        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
                                        env=dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3"))
        line = self.process.stdout.readline()
        if not line.startswith("ready"):
            raise RuntimeError("the TensorFlow side did not start")
        self.version = line.split()[-1]

    def seconds_per_step(self, n, kind="step"):
        self.process.stdin.write(f"{kind} {n}\n")
        self.process.stdin.flush()
        return float(self.process.stdout.readline())

    def close(self):
        self.process.stdin.close()
        self.process.wait(timeout=30)


def compare_with_tensorflow(args, rounds, n):
    try:
        side = TensorFlowSide(args.tf_python)
    except (ImportError, RuntimeError, OSError) as e:
        print(f"ps/worker step against TensorFlow: skipped ({e}; pass --tf-python)")
        return
    spec = devlab.cluster.local(ps=1, worker=1, dashboard=False, verbose=False)
    try:
        server = tf.train.Server(spec, job_name="worker", task_index=0)
        g, init, train, w = step_program(tf)
        sess = tf.Session(server.target, graph=g)
        sess.run(init)
        steps_per_second(sess, train, None, 20)
        side.seconds_per_step(20)
        ours, theirs = [], []
        for _ in range(rounds):
            theirs.append(side.seconds_per_step(n))
            ours.append(steps_per_second(sess, train, None, n))
        mine, tf_time = statistics.median(ours), statistics.median(theirs)
        print(f"ps/worker step: 256x256 variable on /job:ps, gradient of a 32-row product on /job:worker; "
              f"{rounds} rounds x {n} steps, medians")
        print(f"  TensorFlow {side.version} in-process gRPC servers   {tf_time * 1e3:8.3f} ms/step")
        print(f"  devlab.cluster.local (2 Dask worker processes) {mine * 1e3:8.3f} ms/step   "
              f"ratio {tf_time / mine:.2f}x TF (best rounds: {min(theirs) / min(ours):.2f}x)")
        sess.close()
    finally:
        spec.close()
    spec = devlab.cluster.local(ps=1, worker=2, dashboard=False, verbose=False)
    try:
        targets = [tf.train.Server(spec, job_name="worker", task_index=i).target for i in range(2)]
        clients = between_graph_sessions(tf, targets)
        between_graph_seconds(clients, 20)
        side.seconds_per_step(20, "between")
        ours, theirs = [], []
        for _ in range(rounds):
            theirs.append(side.seconds_per_step(n, "between"))
            ours.append(between_graph_seconds(clients, n))
        mine, tf_time = statistics.median(ours), statistics.median(theirs)
        print(f"between-graph: 2 workers, each its own client (a thread each) stepping the shared 256x256 "
              f"variable on /job:ps; {rounds} rounds x {n} steps each, medians")
        print(f"  TensorFlow {side.version} in-process gRPC servers   {tf_time * 1e3:8.3f} ms/step (both workers)")
        print(f"  devlab.cluster.local (3 Dask worker processes) {mine * 1e3:8.3f} ms/step   "
              f"ratio {tf_time / mine:.2f}x TF (best rounds: {min(theirs) / min(ours):.2f}x)")
        for sess, _ in clients:
            sess.close()
    finally:
        spec.close()
        side.close()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--tf-python", help="a Python with TensorFlow, when this one has none")
    parser.add_argument("--tf-servers", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.tf_servers:
        return tf_servers()
    rounds, n = (3, 50) if args.quick else (7, 200)
    print(describe_machine())
    print(f"load average before: {os.getloadavg()[0]:.2f} (other processes on the machine slow both sides)")
    compare_with_tensorflow(args, rounds, n)
    spec = devlab.cluster.local(ps=1, worker=1, dashboard=False, verbose=False)
    try:
        server = tf.train.Server(spec, job_name="worker", task_index=0)
        g_dask, init_d, train_d, loss_d, feed_d = build(spec)
        g_local, init_l, train_l, loss_l, feed_l = build(tf.train.ClusterSpec(SPEC))
        local_server = tf.train.Server(tf.train.ClusterSpec(SPEC), job_name="worker", task_index=0)
        dask_sess = tf.Session(server.target, graph=g_dask)
        local_sess = tf.Session(local_server.target, graph=g_local)
        dask_sess.run(init_d)
        local_sess.run(init_l)
        for _ in range(20):  # warm: plans compiled, parts registered on the workers
            dask_sess.run(train_d, feed_d)
            local_sess.run(train_l, feed_l)
        cluster_times, local_times = [], []
        for _ in range(rounds):
            local_times.append(steps_per_second(local_sess, train_l, feed_l, n))
            cluster_times.append(steps_per_second(dask_sess, train_d, feed_d, n))
        report = devlab.cluster.last_run(dask_sess)
        same = np.allclose(dask_sess.run(loss_d, feed_d), local_sess.run(loss_l, feed_l), rtol=1e-5)
        local, cluster = statistics.median(local_times), statistics.median(cluster_times)
        print(f"small MLP (64-32-10, batch 32), variables on /job:ps, compute on /job:worker; "
              f"{rounds} rounds x {n} steps, medians")
        print(f"  in-process (simulated cluster)      {local * 1e3:8.3f} ms/step")
        print(f"  Dask LocalCluster (2 processes)     {cluster * 1e3:8.3f} ms/step")
        print(f"  per-step overhead                   {(cluster - local) * 1e3:8.3f} ms  "
              f"(best round: {(min(cluster_times) - min(local_times)) * 1e3:.3f} ms; target < 3 ms)")
        print(f"  bytes moved per step                {report.bytes_moved:8,d} bytes in {len(report.transfers)} "
              f"cross-task transfers (in-process: the same transfers, by alias)")
        print(f"  same loss after training both ways: {same}")
        print(f"load average after: {os.getloadavg()[0]:.2f}")
        dask_sess.close()
        local_sess.close()
    finally:
        spec.close()


if __name__ == "__main__":
    main()
