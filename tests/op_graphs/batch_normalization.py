# tf.layers.batch_normalization in training (moments, AssignMovingAvg beside each moving statistic) and inference, with gradients.
x = tf.placeholder(tf.float32, [None, 4], name="x")
y = tf.layers.batch_normalization(x, training=True)
z = tf.layers.batch_normalization(x, training=False, name="bn2")
loss = tf.reduce_sum(y * z)
g = tf.gradients(loss, [x] + tf.trainable_variables())

FEED = {"x": np.arange(12, dtype=np.float32).reshape(3, 4) ** 1.5}
FETCH = [y, z] + g
