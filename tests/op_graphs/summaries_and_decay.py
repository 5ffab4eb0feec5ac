# tf.summary.scalar/histogram/merge/merge_all names and tags, tf.train.exponential_decay (staircase or not) on the global step.
x = tf.placeholder(tf.float32, [4], name="x")
with tf.name_scope("tower_0"):
    s1 = tf.summary.scalar("loss", tf.reduce_sum(x))
    h = tf.summary.histogram("acts", x)
h2 = tf.summary.histogram("w/grad", x)
m = tf.summary.merge_all()
m2 = tf.summary.merge([s1, h])
gs = tf.train.get_or_create_global_step()
lr = tf.train.exponential_decay(0.1, gs, 100, 0.96, staircase=True)
lr2 = tf.train.exponential_decay(0.1, gs, 100, 0.96)
step = tf.assign_add(gs, 150)
FEED = {"x": np.arange(4, dtype=np.float32)}
FETCH = [step, lr, lr2]
