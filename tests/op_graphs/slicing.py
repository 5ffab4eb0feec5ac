# t[a:b], t[:, 1], t[..., None], tensor bounds, tf.slice, tf.split (Split/SplitV), squeeze, gather, where (Select/SelectV2/Where), range, clip_by_value, tile, pad.
x = tf.placeholder(tf.float32, [4, 6, 5], name="x")
a = x[1:3]
b = x[:, 1]
c = x[..., None]
d = x[::2, -1, 1:]
e = x[1]
f = x[-1:, :, tf.newaxis, 2]
i = tf.placeholder(tf.int32, [], name="i")
g = x[i:i+2]
g2 = x[i, 1:3]
s = tf.slice(x, [0, 1, 0], [2, -1, 3])
p1 = tf.split(x, 2)
p2 = tf.split(x, [1, 2, 3], axis=1)
p3 = tf.split(x, 5, 2, name="sp")
q = tf.squeeze(tf.placeholder(tf.float32, [1, 3, 1]))
q2 = tf.squeeze(tf.placeholder(tf.float32, [1, 3, 1]), [2])
q3 = tf.squeeze(tf.placeholder(tf.float32, [1, 3, 1]), axis=0)
y = tf.placeholder(tf.float32, [4, 3], name="y")
idx = tf.placeholder(tf.int32, [2], name="idx")
g1 = tf.gather(y, idx)
g2b = tf.gather(y, [0, 2], axis=1)
cc = tf.placeholder(tf.bool, [4, 3], name="c")
w1 = tf.where(cc, y, y)
w2 = tf.where(cc)
w3 = tf.where_v2(cc, y, 0.0)
r1 = tf.range(5)
r2 = tf.range(1, 10, 2)
r3 = tf.range(0.0, 1.0, 0.25)
cl = tf.clip_by_value(y, 0.0, 1.0)
t = tf.tile(y, [2, 1])
pa = tf.pad(y, [[1, 1], [0, 2]])
pb = tf.pad(y, [[1, 1], [0, 2]], mode="REFLECT")
pc = tf.pad(y, [[1, 1], [0, 2]], constant_values=3)
X = np.arange(120, dtype=np.float32).reshape(4, 6, 5)
Y = np.arange(12, dtype=np.float32).reshape(4, 3) / 10
FEED = {"x": X, "i": 1, "y": Y, "idx": [3, 1], "c": (Y > 0.4)}
FETCH = [a, b, c, d, e, f, g, g2, s, p2[1], p3[4], g1, g2b, w1, w2, w3, r3, cl, t, pa, pb, pc]
