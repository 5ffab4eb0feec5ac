# tf.layers.batch_normalization of NHWC images: one FusedBatchNormV3 (training and inference), the moving-average updates from its batch statistics, and FusedBatchNormGradV3.
x = tf.placeholder(tf.float32, [None, 2, 2, 3], name="x")
y = tf.layers.batch_normalization(x, training=True)
z = tf.layers.batch_normalization(x, training=False, name="bn2")
loss = tf.reduce_sum(y * y * tf.constant([1.0, 2.0, 3.0])) + tf.reduce_sum(z * tf.constant([0.5, 1.0, 2.0]))
g = tf.gradients(loss, [x] + tf.trainable_variables())
with tf.control_dependencies(tf.get_collection(tf.GraphKeys.UPDATE_OPS)):
    train = tf.identity(loss)
FEED = {"x": np.arange(24, dtype=np.float32).reshape(2, 2, 2, 3) ** 1.3}
FETCH = [y, z, train] + g + [y.op.outputs[1], y.op.outputs[2]]
