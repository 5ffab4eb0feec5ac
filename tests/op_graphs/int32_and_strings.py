# int32 arithmetic (floordiv, mod, truediv casting to float64), reductions and argmax on ints, string constants and string_join/as_string.
a = tf.constant([7, -3, 12], name="a")
b = tf.constant(2, name="b")
c = a * b + 1
d = a // b
e = a % 3
f = a / b
g = tf.reduce_sum(a)
h = tf.reduce_max(a * a)
i = tf.cast(a, tf.float32) * 0.5
j = tf.argmax(a)
k = tf.equal(a, 7)
s = tf.constant("hello")
s2 = tf.constant(["a", "bc"])
m = tf.maximum(a, 0)
n = -a
o = tf.abs(a)
p = tf.range(3) * 2
q = tf.shape(tf.placeholder(tf.float32, [None, 2], name="ph"))
r = tf.strings.join([s, tf.as_string(g)], separator=" ")
FETCH = [c, d, e, f, g, h, i, j, k, m, n, o, p]
