# Sums, means, products and elementwise math, with the gradients TF builds for them (math_grad.py).
x = tf.placeholder(tf.float32, [2, 3], name="x")
b = tf.placeholder(tf.float32, [3], name="b")
y = tf.reduce_sum(x * b + b)
ys = [y, tf.reduce_sum(tf.reduce_mean(x, 1)), tf.reduce_sum(tf.cos(x)), tf.reduce_sum(tf.reshape(x, [3, 2])),
      tf.reduce_sum(tf.sin(x) / (b + 2.0)), tf.reduce_sum(tf.square(x - b)), tf.reduce_sum(tf.exp(x) * tf.log(b + 2.0)),
      tf.reduce_sum(tf.maximum(x, b)), tf.reduce_sum(tf.minimum(x, 0.5)), tf.reduce_sum(tf.sqrt(b + 1.0)),
      tf.reduce_sum(tf.tanh(x) + tf.sigmoid(x) + tf.nn.relu(x)), tf.reduce_sum(tf.abs(x - 1.0)),
      tf.reduce_max(x), tf.reduce_sum(tf.reduce_max(x, 0))]
g = tf.gradients(ys, [x, b])
FEED = {"x": np.array([[0.1, -0.2, 0.3], [0.9, 0.5, -0.6]], np.float32), "b": np.array([0.3, 0.5, 0.7], np.float32)}
FETCH = g
