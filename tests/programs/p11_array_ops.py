"""The slicing, array, loss and nn ops newcomers use, each snippet a variant: the op names and types TF builds, where they go, their values.

Snippets as they appear in tutorials and Stack Overflow answers: ``t[a:b]``, ``t[:, 1]``,
``tf.squeeze``, ``tf.gather``, ``tf.where``, ``tf.slice``, ``tf.range``,
``tf.reduce_mean([t1, t2], 0)``, ``tf.shape`` of a fully known shape (a Const) and of a
placeholder (a Shape op), ``tf.reshape(x, [2, 3])`` (a ``Reshape/shape`` Const), int32 and
string tensors, ``tf.losses.*``, ``softmax_cross_entropy_with_logits_v2``, ``tf.nn.lrn``,
``tf.nn.zero_fraction``, ``Variable.initialized_value()``. Part of each snippet runs under
``tf.device('/cpu:1')`` so the placement of the helper Consts shows.
"""
import numpy as np

M = np.arange(24, dtype=np.float32).reshape(4, 6) / 4.0  # 24 elements: TF does not replicate it per device


def build(tf, snippet):
    with tf.device('/cpu:0'):
        t = tf.constant(M, name="t")

    if snippet == "slicing":
        with tf.device('/cpu:1'):
            rows = t[1:3]
            col = t[:, 1]
            rev = t[::-1, ::2]
            last = t[..., -1]
            expanded = t[None, 0, 2:]
        return {"fetch": {"rows": rows, "col": col, "rev": rev, "last": last, "expanded": expanded}}

    if snippet == "squeeze_gather_where":
        with tf.device('/cpu:1'):
            x = tf.reshape(t, [1, 4, 1, 6])
            s_all = tf.squeeze(x)
            s_0 = tf.squeeze(x, [0])
            g_rows = tf.gather(t, [2, 0])
            g_cols = tf.gather(t, tf.constant([5, 1]), axis=1)
            cond = t > 2.0
            w_select = tf.where(cond, t, tf.zeros_like(t))
            w_index = tf.where(cond)
        return {"fetch": {"s_all": s_all, "s_0": s_0, "g_rows": g_rows, "g_cols": g_cols,
                          "w_select": w_select, "w_index": w_index}}

    if snippet == "slice_range":
        with tf.device('/cpu:1'):
            sl = tf.slice(t, [1, 2], [2, 3])
            r1 = tf.range(5)
            r2 = tf.range(1, 10, 2)
            r3 = tf.range(tf.shape(t)[0])
            rf = tf.range(0.0, 1.0, 0.25)
        return {"fetch": {"slice": sl, "r1": r1, "r2": r2, "r3": r3, "rf": rf}}

    if snippet == "reduce_list":
        with tf.device('/cpu:1'):
            t1 = t * 2.0
        t2 = t + 1.0
        mean = tf.reduce_mean([t1, t2], 0)
        total = tf.reduce_sum([t1, t2])
        mx = tf.reduce_max(t, axis=1, keepdims=True)
        return {"fetch": {"mean": mean, "total": total, "max": mx}}

    if snippet == "shape":
        p = tf.placeholder(tf.float32, [None, 6], name="p")
        with tf.device('/cpu:1'):
            known = tf.shape(t)
            unknown = tf.shape(p)
            n = tf.shape(p)[0]
            size = tf.size(t)
            rank = tf.rank(p)
        return {"fetch": {"known": known, "unknown": unknown, "n": n, "size": size, "rank": rank},
                "feed": {p: M[:3]},
                "extra": {"static_shape": t.get_shape().as_list(), "placeholder_shape": str(p.shape)}}

    if snippet == "reshape":
        with tf.device('/cpu:1'):
            x = tf.reshape(t[0], [2, 3])
            flat = tf.reshape(t, [-1])
            like = tf.reshape(flat, tf.shape(t))
            t3 = tf.transpose(tf.reshape(t, [2, 3, 4]), [2, 0, 1])
        return {"fetch": {"x": x, "flat": flat[:5], "like": like[1], "t3": t3[0]}}

    if snippet == "int32_string":
        with tf.device('/cpu:1'):
            i = tf.constant([3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5, 8, 9, 7, 9, 3, 2], name="i")  # 17 int32s
            j = i * 2 + 1
            k = tf.cast(j, tf.float32) / 2.0
            am = tf.argmax(t, axis=1)
            oh = tf.one_hot(tf.cast(am, tf.int32), 6)
        s = tf.constant(["hello", "world"], name="s")
        joined = tf.string_join([s, tf.as_string(tf.reduce_sum(i))], separator=":")
        return {"fetch": {"j": j, "k": k, "argmax": am, "one_hot": oh, "joined": joined}}

    if snippet == "losses":
        labels = tf.constant(np.eye(6, dtype=np.float32)[[0, 3, 5, 1]], name="labels")
        with tf.device('/cpu:1'):
            mse = tf.losses.mean_squared_error(labels=labels, predictions=tf.nn.softmax(t))
            xent = tf.losses.softmax_cross_entropy(onehot_labels=labels, logits=t)
            total = tf.losses.get_total_loss()
        return {"fetch": {"mse": mse, "xent": xent, "total": total},
                "extra": {"losses": [l.op.name for l in tf.losses.get_losses()]}}

    if snippet == "softmax_xent_v2":
        labels = tf.constant(np.eye(6, dtype=np.float32)[[0, 3, 5, 1]], name="labels")
        with tf.device('/cpu:1'):
            xent = tf.nn.softmax_cross_entropy_with_logits_v2(labels=labels, logits=t)
            loss = tf.reduce_mean(xent)
            dt, = tf.gradients(loss, [t])
        return {"fetch": {"xent": xent, "loss": loss, "dt": dt}}

    if snippet == "lrn_zero_fraction":
        with tf.device('/cpu:1'):
            x = tf.reshape(t - 3.0, [1, 2, 2, 6])
            relu = tf.nn.relu(x)
            norm = tf.nn.lrn(relu, 2, bias=1.0, alpha=0.001 / 9.0, beta=0.75, name='norm1')
            zf = tf.nn.zero_fraction(relu)
        return {"fetch": {"norm": norm, "zero_fraction": zf}}

    if snippet == "initialized_value":
        with tf.device('/cpu:1'):
            w = tf.Variable(M, name="w")
        w2 = tf.Variable(w.initialized_value() * 2.0, name="w2")
        w3 = tf.Variable(w2.initialized_value() + w.initialized_value(), name="w3")
        return {"fetch": {"w2": w2[0], "w3": w3[0]}}

    if snippet == "stack_tile_split":
        with tf.device('/cpu:1'):
            st = tf.stack([t[0], t[1]], axis=1)
            us = tf.unstack(t[:2], axis=0)
            tl = tf.tile(t[:1, :2], [2, 3])
            a, b = tf.split(t, [2, 4], axis=1)
            c = tf.concat([b, a], 1)
        return {"fetch": {"stack": st, "unstack_1": us[1], "tile": tl, "concat": c}}

    raise ValueError(snippet)


SNIPPETS = ["slicing", "squeeze_gather_where", "slice_range", "reduce_list", "shape", "reshape",
            "int32_string", "losses", "softmax_xent_v2", "lrn_zero_fraction", "initialized_value",
            "stack_tile_split"]
VARIANTS = {s: {"kwargs": {"snippet": s}, "config": {"device_count": {"CPU": 2}}} for s in SNIPPETS}
