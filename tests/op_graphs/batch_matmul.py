# tf.matmul on inputs of unknown rank or rank 3 (BatchMatMulV2) and its gradient with broadcast batch dims; concat of unknown shapes.
x = tf.placeholder(tf.float32, name="x")
y = tf.placeholder(tf.float32, [2, 3, 4], name="y")
w = tf.placeholder(tf.float32, [4, 5], name="w")
z = tf.placeholder(tf.float32, [2, 5, 4], name="z")
a = tf.matmul(tf.stack([x, x], 1), tf.ones([2, 1]))
b = tf.matmul(y, w)
c = tf.matmul(y, z, transpose_b=True)
d = tf.concat([x, x], 0)
g = tf.gradients([a, b, c, d], [x, y, w, z])
FEED = {"x": np.arange(3, dtype=np.float32), "y": np.ones((2, 3, 4), np.float32), "w": np.ones((4, 5), np.float32), "z": np.ones((2,5,4), np.float32)}
FETCH = [a, b, c] + g
