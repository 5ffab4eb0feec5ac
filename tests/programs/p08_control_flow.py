"""tf.cond and tf.while_loop placed across two devices (/cpu:0 and /cpu:1), with values and a gradient through the loop.

TF1 control flow (v2 behaviour off): ``cond`` builds ``Switch``/``Merge`` (and ``Identity``
ops for the branch pivots), ``while_loop`` builds ``Enter``/``Merge``/``Switch``/``Exit``/
``NextIteration``/``LoopCond``. Written as tutorials write them: branch and body functions
that open their own ``tf.device`` scopes, the loop inside another device scope, a loop that
multiplies a matrix by a variable, and ``GradientDescentOptimizer.minimize`` through it.
"""
import numpy as np


def build(tf, what="cond", dev0='/cpu:0', dev1='/cpu:1'):
    if what == "cond":
        with tf.device(dev0):
            a = tf.constant(np.arange(1, 21, dtype=np.float32).reshape(4, 5), name="a")
            b = tf.constant(np.arange(20, 0, -1, dtype=np.float32).reshape(5, 4), name="b")
            x = tf.placeholder(tf.float32, [], name="x")

        def on_dev1():
            with tf.device(dev1):
                return tf.matmul(a, b)

        def on_dev0():
            with tf.device(dev0):
                return tf.matmul(b, a)[:4, :4] * 2.0

        with tf.device(dev1):
            big = tf.cond(x > 0.5, on_dev1, on_dev0, name="big")
        small = tf.cond(tf.less(x, 0.5), on_dev1, on_dev0, name="small")
        return {"fetch": {"big": big, "small": small}, "feed": {x: 1.0}}

    if what == "while":
        with tf.device(dev0):
            m = tf.constant(np.eye(5, dtype=np.float32) * 0.5 + 0.2, name="m")
            i = tf.constant(0, name="i")
            acc = tf.ones([5, 5], name="acc")

        def cond(i, acc):
            return tf.less(i, 4)

        def body(i, acc):
            with tf.device(dev1):
                acc = tf.matmul(acc, m)
            return tf.add(i, 1), acc

        with tf.device(dev0):
            n, result = tf.while_loop(cond, body, [i, acc])
        total = tf.reduce_sum(result)
        return {"fetch": {"n": n, "result": result, "total": total}}

    if what == "while_grad":
        with tf.device(dev0):
            w = tf.Variable(np.full([4, 4], 0.3, dtype=np.float32), name="w")
            x = tf.constant(np.linspace(0.0, 1.0, 16, dtype=np.float32).reshape(4, 4), name="x")

        def body(k, h):
            with tf.device(dev1):
                h = tf.tanh(tf.matmul(h, w))
            return k + 1, h

        _, h = tf.while_loop(lambda k, h: k < 3, body, [tf.constant(0), x])
        loss = tf.reduce_mean(tf.square(h - 0.5))
        train_op = tf.train.GradientDescentOptimizer(0.5).minimize(loss)
        return {"train": train_op, "steps": 2, "fetch": {"loss": loss, "w": w}}

    raise ValueError(what)


VARIANTS = {
    "cond": {"kwargs": {"what": "cond"}, "config": {"device_count": {"CPU": 2}}},
    "while": {"kwargs": {"what": "while"}, "config": {"device_count": {"CPU": 2}}},
    "while_grad": {"kwargs": {"what": "while_grad"}, "config": {"device_count": {"CPU": 2}}},
    "while_gpu": {"kwargs": {"what": "while", "dev1": "/gpu:0"}, "execute": False,
                  "note": "the same loop with its body on /gpu:0, built only"},
}
