"""A between-graph ps/worker training script: tf.app.flags, ClusterSpec, replica_device_setter(cluster=...).

Written as the distributed-TensorFlow how-to and ``mnist_replica.py`` write it: flags
``--ps_hosts``, ``--worker_hosts``, ``--job_name``, ``--task_index``, a ``main(_)`` run by
``tf.app.run``, the model built under
``tf.device(tf.train.replica_device_setter(worker_device=..., cluster=cluster))``, with a
global step and (``--sync_replicas``) ``SyncReplicasOptimizer``. Only the graph is recorded
(ops, requested devices, colocation groups): the script stops where it would start a
``tf.train.Server`` and a ``MonitoredTrainingSession(master=server.target)``.
"""

ARGV = ["ps_worker.py", "--ps_hosts=ps0.example.com:2222,ps1.example.com:2222",
        "--worker_hosts=worker0.example.com:2222,worker1.example.com:2222"]


def run(tf, sess_config, argv=()):
    flags = tf.app.flags
    flags.DEFINE_string("ps_hosts", "", "Comma-separated list of hostname:port pairs")
    flags.DEFINE_string("worker_hosts", "", "Comma-separated list of hostname:port pairs")
    flags.DEFINE_string("job_name", "", "One of 'ps', 'worker'")
    flags.DEFINE_integer("task_index", 0, "Index of task within the job")
    flags.DEFINE_integer("hidden_units", 16, "Number of units in the hidden layer")
    flags.DEFINE_boolean("sync_replicas", False, "Use the sync_replicas (synchronized replicas) mode")
    flags.DEFINE_string("ps_device", "/job:ps", "Where the variables go")
    flags.DEFINE_boolean("start_server", False, "Start the tf.train.Server (not while recording)")
    FLAGS = flags.FLAGS

    def main(_):
        ps_hosts = FLAGS.ps_hosts.split(",")
        worker_hosts = FLAGS.worker_hosts.split(",")

        # Create a cluster from the parameter server and worker hosts.
        cluster = tf.train.ClusterSpec({"ps": ps_hosts, "worker": worker_hosts})
        if FLAGS.job_name == "ps":
            if FLAGS.start_server:
                server = tf.train.Server(cluster, job_name=FLAGS.job_name, task_index=FLAGS.task_index)
                server.join()
            return
        is_chief = (FLAGS.task_index == 0)

        # Assigns ops to the local worker by default.
        with tf.device(tf.train.replica_device_setter(
                worker_device="/job:worker/task:%d" % FLAGS.task_index,
                ps_device=FLAGS.ps_device, cluster=cluster)):

            # Variables of the hidden layer
            hid_w = tf.Variable(tf.truncated_normal([8, FLAGS.hidden_units], stddev=1.0 / 8, seed=1),
                                name="hid_w")
            hid_b = tf.Variable(tf.zeros([FLAGS.hidden_units]), name="hid_b")
            # Variables of the softmax layer
            sm_w = tf.Variable(tf.truncated_normal([FLAGS.hidden_units, 3], stddev=1.0 / 4, seed=2),
                               name="sm_w")
            sm_b = tf.Variable(tf.zeros([3]), name="sm_b")

            x = tf.placeholder(tf.float32, [None, 8])
            y_ = tf.placeholder(tf.float32, [None, 3])

            hid_lin = tf.nn.xw_plus_b(x, hid_w, hid_b)
            hid = tf.nn.relu(hid_lin)
            y = tf.nn.softmax(tf.nn.xw_plus_b(hid, sm_w, sm_b))
            cross_entropy = -tf.reduce_sum(y_ * tf.log(tf.clip_by_value(y, 1e-10, 1.0)))

            global_step = tf.train.get_or_create_global_step()
            opt = tf.train.AdamOptimizer(0.01)
            if FLAGS.sync_replicas:
                opt = tf.train.SyncReplicasOptimizer(opt, replicas_to_aggregate=len(worker_hosts),
                                                     total_num_replicas=len(worker_hosts), name="mnist_sync_replicas")
            train_op = opt.minimize(cross_entropy, global_step=global_step)

        if FLAGS.start_server:
            server = tf.train.Server(cluster, job_name=FLAGS.job_name, task_index=FLAGS.task_index)
            hooks = [tf.train.StopAtStepHook(last_step=100)]
            if FLAGS.sync_replicas:
                hooks.append(opt.make_session_run_hook(is_chief))
            with tf.train.MonitoredTrainingSession(master=server.target, is_chief=is_chief,
                                                   hooks=hooks, config=sess_config) as mon_sess:
                while not mon_sess.should_stop():
                    mon_sess.run(train_op)

    try:
        tf.app.run(main=main, argv=list(ARGV) + list(argv))
    except SystemExit as e:  # tf.app.run ends with sys.exit(main(argv))
        if e.code:
            raise
    return None


VARIANTS = {
    "worker0": {"kwargs": {"argv": ["--job_name=worker", "--task_index=0"]}},
    "worker1": {"kwargs": {"argv": ["--job_name=worker", "--task_index=1"]}},
    "worker1_ps_cpu": {"kwargs": {"argv": ["--job_name=worker", "--task_index=1", "--ps_device=/job:ps/cpu:0"]},
                       "note": "mnist_replica.py's ps_device='/job:ps/cpu:0'"},
    "worker0_sync": {"kwargs": {"argv": ["--job_name=worker", "--task_index=0", "--sync_replicas"]}},
    "ps0": {"kwargs": {"argv": ["--job_name=ps", "--task_index=0"]}, "note": "a ps task builds no graph"},
}
