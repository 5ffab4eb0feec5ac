# Gradients of slicing, split, gather, tile, pad, concat, transpose, stack, softmax, xw_plus_b, l2_loss, where, clip_by_value, mean (array_grad.py, nn_grad.py).
x = tf.placeholder(tf.float32, [4, 3], name="x")
w = tf.placeholder(tf.float32, [3, 2], name="w")
v = tf.placeholder(tf.float32, [2], name="v")
parts = tf.split(x, 2)
ys = [x[1:3], x[:, 1], x[..., None], tf.slice(x, [1, 0], [2, -1]), parts[0] * 2.0, tf.split(x, [1, 2], 1)[1],
      tf.tile(x, [2, 1]), tf.pad(x, [[1, 0], [0, 2]]), tf.concat([x, x * 2.0], 1),
      tf.transpose(x), tf.stack([x, x]), tf.nn.softmax(x), tf.nn.log_softmax(x), tf.squeeze(tf.expand_dims(x, 0)),
      tf.nn.xw_plus_b(x, w, v), tf.nn.l2_loss(x), tf.where(x > 0.5, x, x * 3.0), tf.where_v2(x > 0.5, x, 0.0),
      tf.clip_by_value(x, 0.2, 0.8), tf.reduce_mean(x), tf.reduce_mean(x, 0), tf.gather(x, [1, 0], axis=1)]
loss = tf.add_n([tf.reduce_sum(y) for y in ys])
g = tf.gradients(loss, [x, w, v])
FEED = {"x": np.arange(12, dtype=np.float32).reshape(4, 3) / 10, "w": np.ones((3, 2), np.float32), "v": np.ones(2, np.float32)}
FETCH = g
