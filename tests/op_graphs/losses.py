# tf.losses.mean_squared_error / absolute_difference / softmax_cross_entropy / sparse_softmax_cross_entropy with TF's weights and reduction graph, get_total_loss and its gradient.
p = tf.placeholder(tf.float32, [4, 3], name="p")
l = tf.placeholder(tf.float32, [4, 3], name="l")
ids = tf.placeholder(tf.int32, [4], name="ids")
a = tf.losses.mean_squared_error(l, p)
b = tf.losses.absolute_difference(l, p, weights=2.0)
c = tf.losses.softmax_cross_entropy(l, p)
d = tf.losses.sparse_softmax_cross_entropy(ids, p)
e = tf.losses.mean_squared_error(l, p, weights=tf.constant([[1.0], [0.0], [2.0], [1.0]]))
t = tf.losses.get_total_loss()
g = tf.gradients(t, p)
FEED = {"p": np.arange(12, dtype=np.float32).reshape(4, 3) / 10, "l": np.eye(4, 3, dtype=np.float32), "ids": [0, 1, 2, 0]}
FETCH = [a, b, c, d, e, t] + g
