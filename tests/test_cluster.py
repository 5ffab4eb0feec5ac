"""Each /job:x/task:n on a Dask worker: one LocalCluster of processes (ps:1, worker:2) for the module.

The tests show that a ps/worker program trains to the in-process values, that variables live in
the ps worker's process, that clients in other processes share them, that a run failing on one
task changes no variable on any task, that a queue on the ps is shared by two clients (a dequeue
waits, times out or is cancelled by close as in TF; SyncReplicasOptimizer trains to TF's model),
and that a killed ps worker is TF's UnavailableError, after which the session goes on and a
checkpoint restores the replacement. The kill runs last: it
replaces the ps worker the other tests share.
"""
import os
import signal
import subprocess
import sys
import textwrap
import threading

import numpy as np
import pytest

import devlab as tf

SIMULATED = {"ps": ["ps0:2222"], "worker": ["w0:2222", "w1:2222"]}
PS = "/job:ps/replica:0/task:0"


@pytest.fixture(scope="module")
def spec():
    pytest.importorskip("distributed")
    import devlab.cluster
    spec = devlab.cluster.local(ps=1, worker=2, dashboard=False, verbose=False)
    yield spec
    spec.close()


def worker_target(spec, index=0):
    return tf.train.Server(spec, job_name="worker", task_index=index).target


def training_program(cluster, steps_feed):
    """A small MLP on a ps/worker cluster: variables on the ps, compute on worker 0."""
    with tf.device(tf.train.replica_device_setter(cluster=cluster, worker_device="/job:worker/task:0")):
        x = tf.placeholder(tf.float32, [None, 4], name="x")
        y = tf.placeholder(tf.float32, [None, 1], name="y")
        w1 = tf.Variable(tf.random_normal([4, 8], seed=1), name="w1")
        w2 = tf.Variable(tf.random_normal([8, 1], seed=2), name="w2")
        loss = tf.reduce_mean(tf.square(tf.matmul(tf.tanh(tf.matmul(x, w1)), w2) - y))
        train = tf.train.MomentumOptimizer(0.05, 0.9).minimize(loss)
    return x, y, [w1, w2], loss, train


def train_values(target, cluster):
    rng = np.random.default_rng(0)
    xs, ys = rng.standard_normal((16, 4)).astype(np.float32), rng.standard_normal((16, 1)).astype(np.float32)
    with tf.Graph().as_default():
        x, y, weights, loss, train = training_program(cluster, None)
        with tf.Session(target) as sess:
            sess.run(tf.global_variables_initializer())
            losses = [sess.run([loss, train], {x: xs, y: ys})[0] for _ in range(10)]
            return losses, sess.run(weights)


# -- in-process: py_func, servers, targets (no Dask needed) -------------------------------------------
def test_py_func_calls_python_and_checks_what_it_returns():
    x = tf.constant([1.0, 2.0])
    doubled = tf.py_func(lambda a: a * 2, [x], tf.float32)
    pair = tf.py_func(lambda a: (a, a.astype(np.int64)), [x], [tf.float32, tf.int64], stateful=False, name="pf")
    wrong = tf.py_func(lambda a: 3, [x], tf.float32)
    raises = tf.py_func(lambda a: 1 / 0, [x], tf.float32)
    assert doubled.op.type == "PyFunc" and pair[0].op.type == "PyFuncStateless" and pair[1].name == "pf:1"
    assert doubled.shape.dims is None and tf.gradients(doubled, x) == [None]
    with tf.Session() as sess:
        np.testing.assert_array_equal(sess.run(doubled), [2.0, 4.0])
        assert sess.run(pair)[1].dtype == np.int64
        with pytest.raises(tf.errors.InvalidArgumentError, match="0-th value returned by pyfunc_2 is int64, but "
                                                                 "expects float"):
            sess.run(wrong)
        with pytest.raises(tf.errors.UnknownError, match="ZeroDivisionError: division by zero"):
            sess.run(raises)


def test_py_func_has_only_a_cpu_kernel():
    with tf.device("/gpu:0"):
        y = tf.py_func(lambda a: a, [tf.constant(1.0)], tf.float32)
    with tf.Session(config=tf.ConfigProto(device_count={"GPU": 1}, allow_soft_placement=True)) as sess:
        sess.run(y)
        assert sess.placement.device_of(y.op).device_type == "CPU"


def test_servers_have_grpc_targets_and_a_local_server_runs_in_process():
    server = tf.train.Server(tf.train.ClusterSpec(SIMULATED), job_name="worker", task_index=1)
    assert server.target == "grpc://w1:2222"
    with tf.Session("grpc://w1:2222") as sess:
        assert sess.local_task == ("worker", 1)
    local = tf.train.Server.create_local_server()
    assert local.target.startswith("grpc://localhost:")
    with tf.Session(local.target) as sess:
        assert sess.run(tf.constant(2.0) * 3.0) == 6.0
    with pytest.raises(ValueError, match="Must specify an explicit `task_index`"):
        tf.train.Server(tf.train.ClusterSpec(SIMULATED), job_name="worker")
    with pytest.raises(RuntimeError, match="no server to join"):
        server.join()


def test_monitored_training_session_and_supervisor(tmp_path):
    step = tf.train.get_or_create_global_step()
    v = tf.Variable(0.0, name="v")
    train = tf.group(v.assign_add(1.0), step.assign_add(1))
    with tf.train.MonitoredTrainingSession(is_chief=True, checkpoint_dir=str(tmp_path),
                                           hooks=[tf.train.StopAtStepHook(last_step=5)]) as sess:
        runs = 0
        while not sess.should_stop():
            sess.run(train)
            runs += 1
    assert runs == 5
    assert tf.train.latest_checkpoint(str(tmp_path)).endswith("model.ckpt-5")
    sv = tf.train.Supervisor(logdir=str(tmp_path))
    with sv.managed_session() as sess:  # the chief restores the checkpoint instead of initialising
        assert sess.run(v) == 5.0
        assert not sv.should_stop()
    assert sv.should_stop()


# -- on Dask workers -------------------------------------------------------------------------------------
def _fetch_with_update(target):
    """A variable on the ps fetched by a worker's session in the same run as its update."""
    with tf.Graph().as_default():
        with tf.device("/job:ps/task:0"):
            v = tf.Variable(1.0, name="v")
        with tf.device("/job:worker/task:0"):
            up = tf.assign_add(v, 5.0)
        with tf.Session(target) as sess:
            sess.run(v.initializer)
            return [float(x) for x in sess.run([v, up]) + sess.run([up, v])]


def test_a_variable_fetched_from_another_task_is_read_before_its_update():
    # TF 2.21 (ps and worker servers in one process, the session on the worker's target): the
    # fetch of v travels from the ps as a _Send, copied when v's op runs, before the update; a
    # session on the variable's own task (create_local_server) reads it after, as local sessions
    simulated = tf.train.ClusterSpec(SIMULATED)
    assert _fetch_with_update(tf.train.Server(simulated, job_name="worker", task_index=0).target) == \
        [1.0, 6.0, 11.0, 6.0]
    with tf.Graph().as_default():
        v = tf.Variable(1.0, name="v")
        up = tf.assign_add(v, 5.0)
        with tf.Session(tf.train.Server.create_local_server().target) as sess:
            sess.run(v.initializer)
            assert [float(x) for x in sess.run([v, up]) + sess.run([up, v])] == [6.0, 6.0, 11.0, 11.0]


def test_a_variable_fetched_from_the_ps_worker_is_read_before_its_update(spec):
    assert _fetch_with_update(worker_target(spec)) == [1.0, 6.0, 11.0, 6.0]


def test_a_ps_worker_program_trains_to_the_in_process_values(spec):
    simulated = tf.train.ClusterSpec(SIMULATED)
    local_target = tf.train.Server(simulated, job_name="worker", task_index=0).target
    expected_losses, expected = train_values(local_target, simulated)
    losses, weights = train_values(worker_target(spec), spec)
    np.testing.assert_allclose(losses, expected_losses, rtol=1e-5)
    for got, want in zip(weights, expected):
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
    assert losses[-1] < losses[0]


def test_variables_live_in_the_ps_workers_process(spec, capsys):
    import devlab.cluster
    with tf.device("/job:ps/task:0"):
        v = tf.Variable(np.arange(6, dtype=np.float32).reshape(2, 3), name="pinned")
        ps_pid = tf.py_func(lambda: np.int64(os.getpid()), [], tf.int64, name="ps_pid")
    with tf.device("/job:worker/task:0"):
        worker_pid = tf.py_func(lambda: np.int64(os.getpid()), [], tf.int64, name="worker_pid")
        doubled = v * 2.0
    with tf.Session(worker_target(spec), config=tf.ConfigProto(log_device_placement=True)) as sess:
        sess.run(v.initializer)
        ps, worker = sess.run([ps_pid, worker_pid])
        np.testing.assert_array_equal(sess.run(doubled), np.arange(6).reshape(2, 3) * 2.0)
        report = devlab.cluster.last_run(sess)
    assert len({ps, worker, os.getpid()}) == 3
    tasks = {info.name: info for info in devlab.cluster.tasks(spec)}
    assert tasks[PS].pid == ps and tasks["/job:worker/replica:0/task:0"].pid == worker
    assert tasks[PS].variables["pinned"] == ((2, 3), "float32", 24)
    assert "pinned" not in tasks["/job:worker/replica:0/task:0"].variables
    # the tensor crossed from the ps worker to worker 0, as a _Send/_Recv pair with its bytes
    (moved,) = report.transfers
    assert (moved.cross.src_task, moved.cross.dst_task, moved.nbytes) == (("ps", 0), ("worker", 0), 24)
    assert "_Send" in str(moved) and "_Recv" in str(moved)
    out = capsys.readouterr().out
    assert f"{PS}/device:CPU:0 -> device: 0, name: CPU on Dask worker {tasks[PS].address}" in out
    assert f"pinned: (VariableV2): {PS}/device:CPU:0" in out


def test_step_stats_have_measured_times_per_task_and_the_cluster_view(spec):
    import devlab.cluster
    from devlab.views import cluster_view
    from devlab.views.chrome_trace import Timeline
    with tf.device("/job:ps/task:0"):
        v = tf.Variable(tf.ones([64]), name="traced")
    with tf.device("/job:worker/task:1"):
        y = tf.reduce_sum(v * 3.0)
    with tf.Session(worker_target(spec, 1)) as sess:
        sess.run(v.initializer)
        metadata = tf.RunMetadata()
        assert sess.run(y, options=tf.RunOptions(trace_level=tf.RunOptions.FULL_TRACE),
                        run_metadata=metadata) == 192.0
        report = devlab.cluster.last_run(sess)
    lanes = {d.device for d in metadata.step_stats.dev_stats}
    assert lanes == {f"{PS}/device:CPU:0", "/job:worker/replica:0/task:1/device:CPU:0"}
    timeline = Timeline(metadata.step_stats)
    assert timeline.clock == "measured"
    (recv,) = [n for d in metadata.step_stats.dev_stats for n in d.node_stats if n.op == "_Recv"]
    assert recv.bytes == 256 and recv.transfer_from == f"{PS}/device:CPU:0" and recv.all_end_rel_micros > 0
    text = cluster_view.cluster_text(devlab.cluster.tasks(spec), report)
    assert "traced [64] float32" in text and f"{PS} -> /job:worker/replica:0/task:1: 256 bytes" in text
    drawing = cluster_view.cluster_graph(devlab.cluster.tasks(spec), report)
    assert "256 bytes/step" in drawing.source
    svg = drawing.pipe("svg").decode()  # graphviz's dot reads it (an apt package the test command installs)
    assert "<svg" in svg and "256 bytes/step" in svg and "traced [64] float32" in svg


def test_grpc_targets_name_tasks_and_the_in_process_tools_say_where_they_stop(spec):
    import devlab.cluster
    v = tf.Variable(3.0, name="anywhere")
    with tf.Session("grpc://" + spec.task_address("worker", 1)) as sess:  # no Server made here for it
        assert sess.local_task == ("worker", 1)
        sess.run(v.initializer)
        assert sess.placement.device_of(v.op).name == "/job:worker/replica:0/task:1/device:CPU:0"
        with pytest.raises(tf.errors.UnimplementedError, match="The stepper runs a plan in this process"):
            sess.stepper(v)
    with tf.device("/job:worker/task:1"):
        looped = tf.while_loop(lambda i: i < 3, lambda i: i + 1, [0])
    with tf.Session("grpc://" + spec.task_address("worker", 1)) as sess:
        with pytest.raises(tf.errors.UnimplementedError, match="cannot run a graph with a while loop yet"):
            sess.run(looped)
    server = tf.train.Server(spec, job_name="ps", task_index=0)
    server.join(timeout=0.2)  # the task is served by its worker: join returns when asked to stop waiting
    assert isinstance(spec.backend, devlab.cluster.DaskBackend) and spec.backend.scheduler_address.startswith("tcp://")


def test_a_chief_initialises_and_another_worker_waits_in_monitored_sessions(spec):
    with tf.device("/job:ps/task:0"):  # shared variables live on the ps (a worker's would be its own)
        step = tf.train.get_or_create_global_step()
        w = tf.Variable(tf.zeros([2]), name="mts_w")
    train = tf.group(w.assign_add(tf.ones([2])), step.assign_add(1))
    counts = {}

    def worker(index):
        with step.graph.as_default(), tf.train.MonitoredTrainingSession(
                master=worker_target(spec, index), is_chief=index == 0, max_wait_secs=30,
                hooks=[tf.train.StopAtStepHook(last_step=30)]) as sess:
            counts[index] = 0
            while not sess.should_stop():
                sess.run(train)
                counts[index] += 1

    threads = [threading.Thread(target=worker, args=(i,)) for i in (1, 0)]  # the non-chief starts first
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    with tf.Session(worker_target(spec)) as sess:
        total = int(sess.run(step))
        assert total >= 30 and total == sum(counts.values()) and counts[0] > 0
        np.testing.assert_array_equal(sess.run(w), [total, total])


def test_a_run_failing_on_one_task_changes_no_variable_on_any_task(spec):
    with tf.device("/job:ps/task:0"):
        on_ps = tf.Variable(1.0, name="on_ps")
    with tf.device("/job:worker/task:1"):
        on_worker = tf.Variable(10.0, name="on_worker")
        x = tf.placeholder(tf.float32, [None, None])
        with tf.control_dependencies([on_ps.assign_add(1.0), on_worker.assign_add(1.0)]):
            fails = tf.matmul(x, x)  # fails at run time for a non-square feed, after both writes ran
    with tf.device("/job:ps/task:0"):
        with tf.control_dependencies([on_worker.assign_add(5.0)]):
            raises = tf.py_func(lambda: np.float32(1 / 0), [], tf.float32)  # fails on the ps task
    with tf.Session(worker_target(spec)) as sess:
        sess.run([on_ps.initializer, on_worker.initializer])
        with pytest.raises(tf.errors.InvalidArgumentError, match="Matrix size-incompatible"):
            sess.run(fails, {x: [[1.0, 2.0]]})
        assert sess.run([on_ps, on_worker]) == [1.0, 10.0]
        with pytest.raises(tf.errors.UnknownError, match="ZeroDivisionError"):
            sess.run(raises)
        assert sess.run([on_ps, on_worker]) == [1.0, 10.0]
        sess.run(fails, {x: [[2.0]]})  # and a run that succeeds commits on both tasks
        assert sess.run([on_ps, on_worker]) == [2.0, 11.0]


def test_in_graph_replication_and_clients_in_threads_share_the_ps_variables(spec):
    with tf.device("/job:ps/task:0"):
        total = tf.Variable(0.0, name="total")
    towers = []
    for i in range(2):  # in-graph: one client, a tower per worker task
        with tf.device(f"/job:worker/task:{i}"):
            towers.append(tf.reduce_sum(tf.ones([3]) * float(i + 1)))
    add_towers = total.assign_add(tf.add_n(towers))
    bump = total.assign_add(1.0)
    with tf.Session(worker_target(spec)) as sess:
        sess.run(total.initializer)
        assert sess.run(add_towers) == 9.0

    def client(index):  # between-graph: a session per worker task, both updating the ps variable
        with tf.Session(worker_target(spec, index), graph=bump.graph) as own:
            for _ in range(20):
                own.run(bump)

    threads = [threading.Thread(target=client, args=(i,)) for i in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    with tf.Session(worker_target(spec, 1)) as sess:
        assert sess.run(total) == 49.0


def test_clients_in_two_processes_update_the_same_ps_variables(spec):
    with tf.device("/job:ps/task:0"):
        shared = tf.Variable(0.0, name="shared")
    bump = shared.assign_add(1.0)
    other = textwrap.dedent(f"""
        import devlab as tf, devlab.cluster
        spec = devlab.cluster.connect({spec.backend.scheduler_address!r}, cluster={spec.as_dict()!r})
        server = tf.train.Server(spec, job_name="worker", task_index=1)
        with tf.device("/job:ps/task:0"):
            shared = tf.Variable(0.0, name="shared")
        bump = shared.assign_add(1.0)
        with tf.Session(server.target) as sess:
            for _ in range(25):
                sess.run(bump)
        spec.close()
    """)
    with tf.Session(worker_target(spec)) as sess:
        sess.run(shared.initializer)
        process = subprocess.Popen([sys.executable, "-c", other])
        for _ in range(25):
            sess.run(bump)
        assert process.wait(timeout=60) == 0
        assert sess.run(shared) == 50.0


def test_the_issues_two_clients_share_the_ps_variable(spec):
    """Issue 28's example on Dask workers: each client its own graph and session on its own
    worker's target; the chief's initialisation and assignment are seen by the other (TF: 5.0)."""
    def build():
        g = tf.Graph()
        with g.as_default(), tf.device("/job:ps/task:0"):
            v = tf.Variable(3.0, name="v_two_clients")
        return g, v
    g0, v0 = build()
    g1, v1 = build()
    s0 = tf.Session(worker_target(spec, 0), graph=g0)
    s1 = tf.Session(worker_target(spec, 1), graph=g1)
    with pytest.raises(tf.errors.FailedPreconditionError, match="uninitialized value v_two_clients"):
        s1.run(v1)
    s0.run(v0.initializer)
    s0.run(v0.assign(5.0))
    assert s1.run(v1) == 5.0
    s1.run(v1.assign_add(1.0))
    assert s0.run(v0) == 6.0
    s0.close()
    s1.close()


def _queue_client(spec, index):
    """One client (its own graph and session on worker ``index``) of the queue ``q28`` on the ps."""
    g = tf.Graph()
    with g.as_default(), tf.device("/job:ps/task:0"):
        q = tf.FIFOQueue(10, tf.float32, shapes=(), shared_name="q28", name="q")
        x = tf.placeholder(tf.float32, [], name="x")
        v = tf.Variable(0.0, name=f"q28_v{index}")
        with tf.control_dependencies([v.assign_add(1.0)]):
            counted = q.dequeue()  # writes v, then waits
    return tf.Session(worker_target(spec, index), graph=g), q, x, v, counted


def _in_thread(fn):
    got = {}

    def call():
        try:
            got["value"] = fn()
        except Exception as e:  # noqa: BLE001 - the test reads it
            got["error"] = e
    t = threading.Thread(target=call, daemon=True)
    t.start()
    return t, got


def test_a_queue_on_the_ps_is_shared_by_two_clients_and_a_dequeue_waits_for_the_other(spec):
    s0, q0, x0, _, _ = _queue_client(spec, 0)
    s1, q1, _, v1, counted1 = _queue_client(spec, 1)
    take = q1.dequeue()
    t, got = _in_thread(lambda: s1.run(take))  # waits on the ps worker, in a thread, not its loop
    t.join(0.5)
    assert t.is_alive()
    s0.run(q0.enqueue(x0), {x0: 1.0})
    s0.run(q0.enqueue(x0), {x0: 2.0})
    t.join(30)
    assert got == {"value": 1.0} and s0.run(q0.size()) == 1 and s1.run(q1.size()) == 1
    s1.run(v1.initializer)
    assert s1.run(counted1) == 2.0 and s1.run(v1) == 1.0
    s0.close()
    s1.close()


def test_a_dequeue_on_the_ps_past_its_time_limit_is_deadline_exceeded_and_commits_nothing(spec):
    s0, q0, x0, _, _ = _queue_client(spec, 0)
    s1, q1, _, v1, counted1 = _queue_client(spec, 1)
    s1.run(v1.initializer)
    with pytest.raises(tf.errors.DeadlineExceededError, match="Timed out waiting for notification"):
        s1.run(counted1, options=tf.RunOptions(timeout_in_ms=300))
    assert s1.run(v1) == 0.0  # its write was not committed
    g = s1.graph
    limited = tf.Session(worker_target(spec, 1), graph=g, config=tf.ConfigProto(operation_timeout_in_ms=300))
    with pytest.raises(tf.errors.DeadlineExceededError):
        limited.run(counted1)
    limited.close()
    s0.run(q0.enqueue(x0), {x0: 7.0})  # the queue still works, and lost nothing
    assert s1.run(counted1) == 7.0 and s1.run(v1) == 1.0
    s0.close()
    s1.close()


def test_closing_a_session_cancels_its_dequeue_waiting_on_the_ps(spec):
    s1, q1, _, _, _ = _queue_client(spec, 1)
    take = q1.dequeue()
    t, got = _in_thread(lambda: s1.run(take))
    t.join(0.5)
    assert t.is_alive()
    s1.close()
    t.join(30)
    assert not t.is_alive() and isinstance(got.get("error"), tf.errors.CancelledError)
    s0, q0, _, _, _ = _queue_client(spec, 0)
    assert s0.run(q0.size()) == 0  # the cancelled dequeue took nothing
    s0.close()


def test_sync_replicas_with_two_worker_clients_trains_to_tensorflows_model(spec, monkeypatch):
    """tests/cases/between_graph_cases.replica_program (each worker a client with its own graph,
    SyncReplicasOptimizer's token queue and accumulators on the ps) on the Dask workers."""
    import json
    sys.path.insert(0, os.path.join(os.path.dirname(__file__), "cases"))
    import between_graph_cases as cases
    with open(os.path.join(os.path.dirname(__file__), "data", "tf_between_graph.json")) as f:
        want = json.load(f)["replica_program"]

    def cluster(tf_, addresses, workers, ps, with_spec=False):
        assert (workers, ps) == (2, 1)
        servers = [tf.train.Server(spec, job_name="worker", task_index=i) for i in range(2)]
        return servers, [tf.train.Server(spec, job_name="ps", task_index=0)], spec
    monkeypatch.setattr(cases, "cluster", cluster)
    got = cases.replica_program(tf, None)
    assert got["errors"] == [] and got["finished"] and got["step"] == want["step"]
    for key in ("w", "b", "loss"):
        np.testing.assert_allclose(got[key], want[key], rtol=1e-4, atol=1e-5)


def test_a_killed_ps_worker_is_unavailable_and_a_checkpoint_restores_its_replacement(spec, tmp_path):
    import devlab.cluster
    with tf.device("/job:ps/task:0"):
        kept = tf.Variable([1.0, 2.0], name="kept")
        die = tf.py_func(lambda: np.int64(os.kill(os.getpid(), signal.SIGKILL) or 0), [], tf.int64)
    with tf.device("/job:worker/task:0"):
        local = tf.Variable(5.0, name="local")
        with tf.control_dependencies([local.assign_add(1.0)]):
            dies = tf.group(die, kept.assign_add([1.0, 1.0]))
        on_worker = local * 2.0
    saver = tf.train.Saver([kept])
    with tf.Session(worker_target(spec)) as sess:
        sess.run([kept.initializer, local.initializer])
        path = saver.save(sess, str(tmp_path / "model"))
        old_pid = {i.name: i.pid for i in devlab.cluster.tasks(spec)}[PS]
        with pytest.raises(tf.errors.UnavailableError, match=PS):
            sess.run(dies)
        assert sess.run(on_worker) == 10.0  # the other task kept its state; the session goes on
        with pytest.raises(tf.errors.FailedPreconditionError, match="uninitialized value kept"):
            sess.run(kept)  # the replacement ps worker starts empty
        saver.restore(sess, path)
        np.testing.assert_array_equal(sess.run(kept), [1.0, 2.0])
    assert {i.name: i.pid for i in devlab.cluster.tasks(spec)}[PS] != old_pid
