"""Between-graph replication as TF1 programs wrote it: every worker is a client with its own
graph and its own session on its own server; the variables live on the ps tasks and the chief
initialises them. Each ``case(tf, addresses)`` works with TensorFlow's ``tf.compat.v1`` (real
in-process gRPC servers on free localhost ports) and with devlab (its in-process servers), and
returns what the program saw, as plain values. ``addresses(n)`` gives ``n`` fresh addresses."""
import threading
import time

import numpy as np

JOIN_SECONDS = 60  # no thread may block a test for ever


def cluster(tf, addresses, workers, ps, with_spec=False):
    spec = tf.train.ClusterSpec({"worker": addresses(workers), "ps": addresses(ps)})
    servers = [tf.train.Server(spec, job_name="worker", task_index=i) for i in range(workers)]
    ps_servers = [tf.train.Server(spec, job_name="ps", task_index=i) for i in range(ps)]
    return (servers, ps_servers, spec) if with_spec else (servers, ps_servers)


def _error(tf, fn):
    try:
        fn()
    except tf.errors.OpError as e:
        return type(e).__name__
    return None


def two_clients(tf, addresses):
    """The issue's example: the chief's client writes a variable on the ps, another client reads it;
    a variable on the chief's worker stays the chief's; reset forgets every variable."""
    w, _ = cluster(tf, addresses, 2, 1)

    def build():
        g = tf.Graph()
        with g.as_default():
            with tf.device("/job:ps/task:0"):
                v = tf.Variable(3.0, name="v")
            local = tf.Variable(1.0, name="local")  # on each client's own worker
            report = tf.report_uninitialized_variables()
        return g, v, local, report

    g0, v0, l0, _ = build()
    s0 = tf.Session(w[0].target, graph=g0)
    s0.run([v0.initializer, l0.initializer])
    s0.run(v0.assign(5.0))
    g1, v1, l1, report1 = build()
    s1 = tf.Session(w[1].target, graph=g1)
    out = {"v_seen_by_worker1": float(s1.run(v1)),
           "worker1_local": _error(tf, lambda: s1.run(l1)),
           "worker1_uninitialized": [n.decode() for n in s1.run(report1)]}
    s1.run(v1.assign_add(1.0))
    out["v_seen_by_chief"] = float(s0.run(v0))
    tf.Session.reset(w[0].target)
    out["after_reset_other_session"] = _error(tf, lambda: s1.run(v1))
    out["after_reset_reset_session"] = _error(tf, lambda: s0.run(v0))
    s1.close()
    return out


def waiting_worker(tf, addresses, delay=0.5):
    """A non-chief waits in SessionManager.wait_for_session until the chief has initialised."""
    w, _ = cluster(tf, addresses, 2, 1)
    graphs = []
    for _ in range(2):
        g = tf.Graph()
        with g.as_default():
            with tf.device("/job:ps/task:0"):
                v = tf.Variable([1.0, 2.0], name="v")
                step = tf.Variable(0, name="step", trainable=False)
            graphs.append((g, v, step, tf.global_variables_initializer(), tf.report_uninitialized_variables(),
                           tf.assign_add(step, 1)))
    g1, v1, step1, _, ready1, bump1 = graphs[1]
    sm1 = tf.train.SessionManager(ready_op=ready1, graph=g1, recovery_wait_secs=0.1)
    before = None
    with g1.as_default():
        probe = tf.Session(w[1].target, graph=g1)
        before = sorted(n.decode() for n in probe.run(ready1))
        probe.close()
    got = {}

    def chief():
        time.sleep(delay)
        g0, v0, step0, init0, ready0, _ = graphs[0]
        sm0 = tf.train.SessionManager(ready_op=ready0, graph=g0)
        s0 = sm0.prepare_session(w[0].target, init_op=init0)
        s0.run(v0.assign([3.0, 4.0]))
        got["chief"] = True

    t = threading.Thread(target=chief, daemon=True)
    t.start()
    s1 = sm1.wait_for_session(w[1].target, max_wait_secs=JOIN_SECONDS)
    t.join(JOIN_SECONDS)
    # the chief may or may not have assigned by now; after join it has
    value = s1.run(v1).tolist()
    s1.run(bump1)
    return {"uninitialized_before": before, "v_after_chief": value, "step": int(s1.run(step1)),
            "chief_done": got.get("chief", False),
            "deadline": _error(tf, lambda: tf.train.SessionManager(
                ready_op=_fresh_ready(tf), graph=_fresh_graph).wait_for_session(w[1].target, max_wait_secs=0.3))}


_fresh_graph = None


def _fresh_ready(tf):
    """A ready op on a variable nobody initialises: waiting for it runs out of time."""
    global _fresh_graph
    _fresh_graph = tf.Graph()
    with _fresh_graph.as_default(), tf.device("/job:ps/task:0"):
        tf.Variable(0.0, name="never_initialised")
        return tf.report_uninitialized_variables()


def sync_two_workers(tf, addresses):
    """TF's sync_replicas_optimizer_test test2Workers: 2 workers, 2 ps, a MonitoredTrainingSession
    per worker, replicas_to_aggregate=2; what each checkpoint of the test reads."""
    workers, _ = cluster(tf, addresses, 2, 2)
    sessions, graphs, train_ops = [], [], []
    for worker_id in range(2):
        graph = tf.Graph()
        is_chief = worker_id == 0
        with graph.as_default():
            with tf.device("/job:ps/task:0"):
                global_step = tf.Variable(0, name="global_step", trainable=False)
                var_0 = tf.Variable(0.0, name="v0")
            with tf.device("/job:ps/task:1"):
                var_1 = tf.Variable(1.0, name="v1")
                var_sparse = tf.Variable([[3.0], [4.0]], name="v_sparse")
            with tf.device("/job:worker/task:" + str(worker_id)):
                grads_0 = tf.constant(0.1 + worker_id * 0.2)
                grads_1 = tf.constant(0.9 + worker_id * 0.2)
                grads_sparse = tf.IndexedSlices(tf.constant([0.1 + worker_id * 0.2], shape=[1, 1]),
                                                tf.constant([1]), tf.constant([2, 1]))
                opt = tf.train.SyncReplicasOptimizer(tf.train.GradientDescentOptimizer(2.0),
                                                     replicas_to_aggregate=2, total_num_replicas=2)
                train_op = [opt.apply_gradients(zip([grads_0, grads_1, grads_sparse],
                                                    [var_0, var_1, var_sparse]), global_step=global_step)]
                hook = opt.make_session_run_hook(is_chief, num_tokens=2)
            session = tf.train.MonitoredTrainingSession(master=workers[worker_id].target, is_chief=is_chief,
                                                        hooks=[hook], stop_grace_period_secs=1)
        sessions.append(session)
        graphs.append(graph)
        train_ops.append(train_op)

    def t(i, name):
        return graphs[i].get_tensor_by_name(name)

    def read(i, name):
        value = sessions[i].run(t(i, name))
        return value.tolist() if hasattr(value, "tolist") else value

    out = {"start": [read(0, "v0:0"), read(0, "v1:0"), read(0, "sync_rep_local_step:0"),
                     read(1, "global_step:0"), read(1, "sync_rep_local_step:0"), read(1, "v_sparse:0")]}
    sessions[0].run(train_ops[0])
    sessions[1].run(train_ops[1])
    deadline = time.monotonic() + JOIN_SECONDS
    while read(1, "global_step:0") != 1 and time.monotonic() < deadline:
        time.sleep(0.01)
    out["step1"] = [read(1, "global_step:0"), read(1, "v0:0"), read(1, "v1:0"), read(1, "v_sparse:0"),
                    read(0, "sync_rep_local_step:0"), read(1, "sync_rep_local_step:0")]
    sessions[0].run(train_ops[0])
    sessions[1].run(train_ops[1])
    out["stale"] = [read(1, "global_step:0"), read(0, "sync_rep_local_step:0"),
                    read(1, "sync_rep_local_step:0"), read(1, "v0:0"), read(1, "v1:0")]
    threads = [threading.Thread(target=sessions[i].run, args=(train_ops[i],), daemon=True) for i in range(2)]
    for th in threads:
        th.start()
    for th in threads:
        th.join(JOIN_SECONDS)
    out["together_finished"] = not any(th.is_alive() for th in threads)
    out["step2"] = [read(1, "global_step:0"), read(1, "v0:0"), read(1, "v1:0")]
    for s in sessions:
        s.close()
    return out


def replica_program(tf, addresses, steps=8):
    """An ``mnist_replica.py --sync_replicas`` style program: 2 workers and 1 ps, each worker a
    thread with its own graph, replica_device_setter, SyncReplicasOptimizer and a
    MonitoredTrainingSession with StopAtStepHook. Both workers see the same batch, so every
    aggregated gradient, and so the final model, is the same whichever worker sends it."""
    workers, _, spec = cluster(tf, addresses, 2, 1, with_spec=True)
    rng = np.random.RandomState(0)
    x_data = rng.rand(16, 4).astype(np.float32)
    y_data = (x_data @ np.array([[1.0], [-2.0], [0.5], [3.0]], np.float32) + 0.25).astype(np.float32)
    results, errors = {}, []

    def worker(task_index):
        try:
            is_chief = task_index == 0
            g = tf.Graph()
            with g.as_default():
                with tf.device(tf.train.replica_device_setter(
                        worker_device=f"/job:worker/task:{task_index}", cluster=spec)):
                    global_step = tf.train.get_or_create_global_step()
                    w = tf.Variable(tf.zeros([4, 1]), name="w")
                    b = tf.Variable(tf.zeros([1]), name="b")
                    x = tf.placeholder(tf.float32, [None, 4])
                    y = tf.placeholder(tf.float32, [None, 1])
                    loss = tf.reduce_mean(tf.square(tf.matmul(x, w) + b - y))
                    opt = tf.train.SyncReplicasOptimizer(tf.train.GradientDescentOptimizer(0.1),
                                                         replicas_to_aggregate=2, total_num_replicas=2)
                    train = opt.minimize(loss, global_step=global_step)
                    # The chief's last step may have begun before the other worker saw the last
                    # global step and stopped: it then waits for a token no one will make (TF's race
                    # too). The other worker, done, lets it through with one (the step's gradient is
                    # never taken: nothing changes). A worker still waiting when the chief stops is
                    # woken by the chief closing the token queue.
                    release = None if is_chief else opt.get_init_tokens_op(num_tokens=1)
                hooks = [opt.make_session_run_hook(is_chief), tf.train.StopAtStepHook(last_step=steps)]
                with tf.train.MonitoredTrainingSession(master=workers[task_index].target, is_chief=is_chief,
                                                       hooks=hooks, stop_grace_period_secs=1) as sess:
                    while not sess.should_stop():
                        sess.run(train, {x: x_data, y: y_data})
                if is_chief:
                    reader = tf.Session(workers[0].target, graph=g)
                    results["w"], results["b"], results["step"] = reader.run([w, b, global_step])
                    results["loss"] = reader.run(loss, {x: x_data, y: y_data})
                    reader.close()
                else:
                    with tf.Session(workers[task_index].target, graph=g) as done:
                        try:
                            done.run(release)
                        except tf.errors.CancelledError:
                            pass  # the chief closed the token queue: it is done, no one waits
        except Exception as e:  # noqa: BLE001 - the test reports it
            errors.append(repr(e))

    threads = [threading.Thread(target=worker, args=(i,), daemon=True) for i in range(2)]
    for th in threads:
        th.start()
    for th in threads:
        th.join(JOIN_SECONDS)
    return {"errors": errors, "finished": not any(th.is_alive() for th in threads),
            "w": np.asarray(results.get("w", np.zeros(0))).ravel().tolist(),
            "b": np.asarray(results.get("b", np.zeros(0))).ravel().tolist(),
            "step": int(results.get("step", -1)), "loss": float(results.get("loss", -1.0))}


def supervisor_program(tf, addresses, steps=6):
    """``mnist_replica.py --sync_replicas`` itself: a Supervisor per worker, the chief runs the
    sync init op and starts the chief queue runner with ``sv.start_queue_runners``; each worker
    trains until the global step reaches ``steps``."""
    workers, _, spec = cluster(tf, addresses, 2, 1, with_spec=True)
    x_data = np.linspace(-1.0, 1.0, 12, dtype=np.float32).reshape(6, 2)
    y_data = (x_data @ np.array([[2.0], [-1.0]], np.float32) - 0.5).astype(np.float32)
    results, errors, seen = {}, [], {0: [], 1: []}

    def worker(task_index):
        try:
            is_chief = task_index == 0
            g = tf.Graph()
            with g.as_default():
                with tf.device(tf.train.replica_device_setter(
                        worker_device=f"/job:worker/task:{task_index}", ps_device="/job:ps/cpu:0", cluster=spec)):
                    global_step = tf.Variable(0, name="global_step", trainable=False)
                    w = tf.Variable(tf.ones([2, 1]), name="w")
                    x = tf.placeholder(tf.float32, [None, 2])
                    y = tf.placeholder(tf.float32, [None, 1])
                    loss = tf.reduce_mean(tf.square(tf.matmul(x, w) - y))
                    opt = tf.train.SyncReplicasOptimizer(tf.train.AdamOptimizer(0.05), replicas_to_aggregate=2,
                                                         total_num_replicas=2, name="mnist_sync_replicas")
                    train_step = opt.minimize(loss, global_step=global_step)
                    local_init_op = opt.chief_init_op if is_chief else opt.local_step_init_op
                    ready_for_local_init_op = opt.ready_for_local_init_op
                    chief_queue_runner = opt.get_chief_queue_runner()
                    sync_init_op = opt.get_init_tokens_op()
                    init_op = tf.global_variables_initializer()
                sv = tf.train.Supervisor(is_chief=is_chief, logdir=None, init_op=init_op,
                                         local_init_op=local_init_op,
                                         ready_for_local_init_op=ready_for_local_init_op,
                                         recovery_wait_secs=1, global_step=global_step)
                sess = sv.prepare_or_wait_for_session(workers[task_index].target)
                if is_chief:
                    sess.run(sync_init_op)
                    sv.start_queue_runners(sess, [chief_queue_runner])
                while True:
                    _, step = sess.run([train_step, global_step], {x: x_data, y: y_data})
                    seen[task_index].append(int(step))
                    if step >= steps:
                        break
                if is_chief:
                    results["read"] = lambda s: s.run([w, loss, global_step], {x: x_data, y: y_data})
                    results["graph"] = g
        except Exception as e:  # noqa: BLE001 - the test reports it
            errors.append(repr(e))

    threads = [threading.Thread(target=worker, args=(i,), daemon=True) for i in range(2)]
    for th in threads:
        th.start()
    for th in threads:
        th.join(JOIN_SECONDS)
    # Which worker's gradient lands in which step, and whether the last step's update is done when
    # a worker sees the step, depend on timing (in TF too): the model is read after both finished,
    # with the global step it belongs to.
    w_value, loss_value, step = (np.zeros(0), -1.0, -1)
    if "read" in results:
        reader = tf.Session(workers[0].target, graph=results["graph"])
        w_value, loss_value, step = results["read"](reader)
        reader.close()
    return {"errors": errors, "finished": not any(th.is_alive() for th in threads),
            "w": np.asarray(w_value).ravel().tolist(), "loss": float(loss_value), "step": int(step),
            "chief_last_step": seen[0][-1] if seen[0] else None}
