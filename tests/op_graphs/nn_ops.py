# conv2d (SAME/VALID, strides), bias_add, max_pool, avg_pool, lrn, softmax cross-entropies, l2_loss, with their gradients.
img = tf.placeholder(tf.float32, [2, 8, 8, 3], name="img")
k = tf.placeholder(tf.float32, [3, 3, 3, 4], name="k")
b = tf.placeholder(tf.float32, [4], name="b")
cv = tf.nn.relu(tf.nn.bias_add(tf.nn.conv2d(img, k, strides=[1, 1, 1, 1], padding="SAME"), b))
cv2 = tf.nn.conv2d(img, k, [1, 2, 2, 1], "VALID")
mp = tf.nn.max_pool(cv, ksize=[1, 3, 3, 1], strides=[1, 2, 2, 1], padding="SAME")
ap = tf.nn.avg_pool(mp, ksize=[1, 2, 2, 1], strides=[1, 1, 1, 1], padding="SAME")
lr = tf.nn.lrn(ap, 2, bias=1.0, alpha=0.001 / 9.0, beta=0.75, name="norm1")
flat = tf.reshape(lr, [2, -1])
w = tf.placeholder(tf.float32, [64, 3], name="w")
logits = tf.matmul(flat, w)
labels = tf.placeholder(tf.float32, [2, 3], name="labels")
ids = tf.placeholder(tf.int32, [2], name="ids")
xe = tf.nn.softmax_cross_entropy_with_logits_v2(labels=labels, logits=logits)
xe1 = tf.nn.softmax_cross_entropy_with_logits(labels=labels, logits=logits)
sxe = tf.nn.sparse_softmax_cross_entropy_with_logits(labels=ids, logits=logits)
l = tf.reduce_mean(xe) + tf.reduce_mean(sxe) + 0.01 * tf.nn.l2_loss(w) + tf.reduce_sum(cv2) * 0.001 + tf.reduce_mean(xe1)
g = tf.gradients(l, [img, k, b, w, labels])
rng = np.random.RandomState(0)
FEED = {"img": rng.randn(2, 8, 8, 3).astype(np.float32), "k": rng.randn(3, 3, 3, 4).astype(np.float32) * 0.3,
        "b": rng.randn(4).astype(np.float32), "w": rng.randn(64, 3).astype(np.float32) * 0.1,
        "labels": np.array([[0.2, 0.3, 0.5], [1, 0, 0]], np.float32), "ids": [2, 0]}
FETCH = [l, cv2, mp, ap, lr] + g
