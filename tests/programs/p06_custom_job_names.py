"""replica_device_setter with job names other than ps/worker: TensorFlow takes the ps job from ps_device.

``replica_device_setter(ps_device="/job:moon", worker_device="/job:sun", ps_tasks=2)``
puts variables round-robin on ``/job:moon/task:0`` and ``/job:moon/task:1`` and the rest
on ``/job:sun``; with ``cluster={"moon": [...], "sun": [...]}`` the number of ps tasks comes
from ``cluster["moon"]``. When the cluster has no job called like ps_device's, the setter
is None, and ``tf.device(None)`` clears the enclosing device scopes.
"""


def build(tf, how="ps_tasks"):
    def model():
        w = tf.Variable(tf.zeros([4, 2]), name="w")
        b = tf.Variable(tf.zeros([2]), name="b")
        v = tf.Variable(1.0, name="v")
        x = tf.placeholder(tf.float32, [None, 4], name="x")
        y = tf.matmul(x, w) + b
        loss = tf.reduce_mean(tf.square(y)) * v
        tf.train.GradientDescentOptimizer(0.1).minimize(loss)

    if how == "ps_tasks":
        with tf.device(tf.train.replica_device_setter(ps_device="/job:moon", worker_device="/job:sun", ps_tasks=2)):
            model()
    elif how == "cluster":
        cluster = tf.train.ClusterSpec({"moon": ["moon0:2222", "moon1:2222", "moon2:2222"],
                                        "sun": ["sun0:2222", "sun1:2222"]})
        with tf.device(tf.train.replica_device_setter(ps_device="/job:moon", worker_device="/job:sun/task:1",
                                                      cluster=cluster)):
            model()
    elif how == "ps_device_with_cpu":
        with tf.device(tf.train.replica_device_setter(ps_device="/job:moon/cpu:0", worker_device="/job:sun",
                                                      ps_tasks=2)):
            model()
            with tf.device("/job:ps"):  # a job that is not the setter's ps job keeps its own
                tf.Variable(0.0, name="elsewhere")
    elif how == "no_ps_job":
        cluster = tf.train.ClusterSpec({"ps": ["ps0:2222"], "worker": ["worker0:2222"]})
        with tf.device("/cpu:0"):
            with tf.device(tf.train.replica_device_setter(ps_device="/job:moon", cluster=cluster)):
                model()
    else:
        raise ValueError(how)
    return None


VARIANTS = {
    "ps_tasks": {"kwargs": {"how": "ps_tasks"}},
    "cluster": {"kwargs": {"how": "cluster"}},
    "ps_device_with_cpu": {"kwargs": {"how": "ps_device_with_cpu"}},
    "no_ps_job": {"kwargs": {"how": "no_ps_job"},
                  "note": "the setter returns None: tf.device(None) clears the outer /cpu:0"},
}
