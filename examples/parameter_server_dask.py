# Parameter servers for real: every /job:x/task:n of a TF1 cluster runs in its own process.
#
# Until now devlab simulated a cluster inside the notebook: /job:ps and /job:worker were names,
# and every tensor lived in this process. Here each task runs on a worker of Dask distributed:
# a separate Python process with its own memory. Variables live in the parameter server's
# process; workers pull them over the network at every step and push gradients back; several
# clients share one set of variables; and a task can die.
#
# Run it as a script (python examples/parameter_server_dask.py) or cell by cell. It needs the
# cluster extra (pip install -e ".[cluster]") and fits Binder: 4 small worker processes, about
# 100 MB each, on 1 or 2 cores. Dask starts each worker process by re-importing the main script,
# so a script keeps its work under ``if __name__ == "__main__":``; in a notebook, drop the guard.
import os
import signal
import tempfile
import threading

import numpy as np

import devlab as tf
import devlab.cluster
from devlab.views.cluster_view import cluster_text


def worker_client(task_index, losses):
    """One worker's training loop: its own Server, its own Session, the shared ps variables."""
    server = tf.train.Server(spec, job_name="worker", task_index=task_index)
    hooks = [tf.train.StopAtStepHook(last_step=200)]
    batches = np.random.default_rng(task_index)
    with train_op.graph.as_default(), tf.train.MonitoredTrainingSession(
            master=server.target, is_chief=(task_index == 0), hooks=hooks) as sess:
        while not sess.should_stop():
            batch = batches.integers(0, 64, 16)
            _, value = sess.run([train_op, loss], {x: data_x[batch], target: data_y[batch]})
            losses[task_index].append(value)


if __name__ == "__main__":
    # -- 1. A cluster of processes ------------------------------------------------------------------------
    # devlab.cluster.local starts a Dask LocalCluster with one worker process per task, each named
    # after its task, all on 127.0.0.1, and returns a tf.train.ClusterSpec whose addresses are those
    # workers. (On a real cluster, devlab.cluster.connect("tcp://scheduler:8786", cluster) maps the
    # tasks onto workers you started, by name or by resource.) The dashboard link shows the workers.
    spec = devlab.cluster.local(ps=2, worker=2, memory_limit="300MiB")
    print(spec)

    # -- 2. Pinning ops to jobs -------------------------------------------------------------------------------
    # The placement code is TF1's, unchanged. tf.train.Server(spec, job_name, task_index) does not
    # start a server: it attaches to that task's worker, and a Session on its target runs each op
    # on the worker of the task it is placed on. The Device mapping names each task's worker.
    server = tf.train.Server(spec, job_name="worker", task_index=0)
    with tf.device("/job:ps/task:0"):
        weights = tf.Variable(tf.ones([3, 2]), name="weights")
        # tf.py_func runs Python in the process of the task it is placed on: here, the ps worker
        ps_pid = tf.py_func(lambda: np.int64(os.getpid()), [], tf.int64, name="ps_pid")
    with tf.device("/job:worker/task:0"):
        x = tf.placeholder(tf.float32, [None, 3], name="x")
        y = tf.matmul(x, weights)

    with tf.Session(server.target, config=tf.ConfigProto(log_device_placement=True)) as sess:
        sess.run(weights.initializer)
        print(sess.run(y, {x: [[1.0, 2.0, 3.0]]}))
        # the weights went from the ps worker to worker 0, worker to worker, as a _Send/_Recv pair
        print(devlab.cluster.last_run(sess))
        print("the variable lives in process", sess.run(ps_pid), "- this notebook is process", os.getpid())

    # -- 3. replica_device_setter: variables round robin over the ps tasks ----------------------------------
    # With two ps tasks the setter places the variables on ps:0, ps:1, ps:0, ... and every other op
    # on the worker. A learner's model then trains across three processes.
    tf.reset_default_graph()
    with tf.device(tf.train.replica_device_setter(cluster=spec)):
        global_step = tf.train.get_or_create_global_step()
        x = tf.placeholder(tf.float32, [None, 4], name="x")
        target = tf.placeholder(tf.float32, [None, 1], name="target")
        w1 = tf.Variable(tf.random_normal([4, 8], seed=1), name="w1")
        w2 = tf.Variable(tf.random_normal([8, 1], seed=2), name="w2")
        loss = tf.reduce_mean(tf.square(tf.matmul(tf.tanh(tf.matmul(x, w1)), w2) - target))
        train_op = tf.train.GradientDescentOptimizer(0.05).minimize(loss, global_step=global_step)
    for v in (global_step, w1, w2):
        print(f"{v.op.name:12s} -> {v.device}")  # round robin: ps:0, ps:1, ps:0

    rng = np.random.default_rng(0)
    data_x = rng.standard_normal((64, 4)).astype(np.float32)
    data_y = (data_x.sum(axis=1, keepdims=True) > 0).astype(np.float32)

    # -- 4. Between-graph replication: two worker clients share the ps variables -----------------------------
    # As in TF's distributed MNIST, each worker runs its own client (here a thread; on a real cluster
    # a process per worker machine) with its own Session on its own task. The chief (worker 0)
    # initialises the variables; worker 1 waits until they are ready. Both update the same
    # variables on the parameter servers until the global step reaches 200 (worker_client, above).
    losses = {0: [], 1: []}
    clients = [threading.Thread(target=worker_client, args=(i, losses)) for i in range(2)]
    for c in clients:
        c.start()
    for c in clients:
        c.join()
    print(f"worker 0 ran {len(losses[0])} steps, worker 1 ran {len(losses[1])}; "
          f"loss {losses[0][0]:.3f} -> {losses[0][-1]:.3f}")

    # Where everything is now, and what one step moves between the processes:
    sess = tf.Session(tf.train.Server(spec, job_name="worker", task_index=0).target)
    sess.run(train_op, {x: data_x[:16], target: data_y[:16]})
    print(cluster_text(devlab.cluster.tasks(spec), devlab.cluster.last_run(sess)))
    # A traced run records measured times per task and device: the timeline has a lane for each.
    metadata = tf.RunMetadata()
    sess.run(train_op, {x: data_x[:16], target: data_y[:16]},
             options=tf.RunOptions(trace_level=tf.RunOptions.FULL_TRACE), run_metadata=metadata)
    print("timeline lanes:", sorted(d.device for d in metadata.step_stats.dev_stats))

    # -- 5. A task dies; a checkpoint brings its variables back ----------------------------------------------
    # Save a checkpoint, then kill the process of ps task 0 (as a machine failure would): it held
    # global_step and w2. The next run that needs it is TF's UnavailableError, naming the task;
    # that run changed no variable on any task. Dask's nanny restarts the worker under the same
    # name, and devlab starts an empty task runtime there: w2 is uninitialised, while w1 on ps
    # task 1 kept its value all along. Restoring the checkpoint puts the lost variables back.
    saver = tf.train.Saver()
    checkpoint = saver.save(sess, os.path.join(tempfile.mkdtemp(), "model"))
    before = sess.run([w1, w2, global_step])
    ps0 = next(info for info in devlab.cluster.tasks(spec) if info.task == ("ps", 0))
    os.kill(ps0.pid, signal.SIGKILL)
    try:
        sess.run(train_op, {x: data_x[:16], target: data_y[:16]})
    except tf.errors.UnavailableError as e:
        print("UnavailableError:", str(e).splitlines()[0][:100], "...")
    try:
        sess.run(w2)
    except tf.errors.FailedPreconditionError as e:
        print("the new ps:0 starts empty:", str(e).splitlines()[0])
    np.testing.assert_array_equal(sess.run(w1), before[0])  # ps:1 kept its variable
    saver.restore(sess, checkpoint)
    np.testing.assert_array_equal(sess.run(w2), before[1])
    print("restored at global step", sess.run(global_step), "on the worker process",
          next(i.pid for i in devlab.cluster.tasks(spec) if i.task == ("ps", 0)), "(was", ps0.pid, ")")
    print("training goes on, loss", sess.run([train_op, loss], {x: data_x[:16], target: data_y[:16]})[1])
    sess.close()
    spec.close()
