"""Issue 27's initializers and the ops they build: VarianceScaling (each distribution),
UniformUnitScaling, GlorotNormal, Orthogonal (Qr, DiagPart), Identity (tf.eye: MatrixDiagV3 or
MatrixSetDiagV3), TF1's tf.constant filling out too few values, tf.linspace (with
BroadcastArgs/BroadcastTo and its static shape), tf.variable_axis_size_partitioner and TF's
errors. The same functions run under TensorFlow 2.21 (``tools/record_cases.py init_ops
tests/data/tf_init_ops.json``) and under devlab (tests/test_init_ops.py compares)."""
import numpy as np

from control_flow_cases import graph_facts
from rnn_cases import _values
from script_cases import _error


def _run(tf, fetch, feed=None):
    with tf.Session() as sess:
        return sess.run(fetch, feed_dict=feed)


def _stats(x):
    """What a random initializer's draw must show whatever the generator: shape, dtype, bounds."""
    return [list(x.shape), str(x.dtype)]


def case_variance_scaling_builds_as_tf(tf, rewrites_off=False):
    inits = [tf.variance_scaling_initializer(distribution=d, mode=m, seed=1)
             for d, m in (("truncated_normal", "fan_in"), ("untruncated_normal", "fan_out"),
                          ("uniform", "fan_avg"), ("normal", "fan_in"))]
    inits += [tf.uniform_unit_scaling_initializer(1.5, seed=2), tf.glorot_normal_initializer(seed=3)]
    made = [init([30, 20]) for init in inits]
    values = _run(tf, made)
    uniform_limit = float(np.sqrt(3.0 * 1.0 / 25.0))
    unit_limit = float(np.sqrt(3.0 / 30.0) * 1.5)
    return {"ops": graph_facts(tf), "draws": [_stats(v) for v in values],
            "within": [bool(np.all(np.abs(values[2]) <= uniform_limit)), bool(np.all(np.abs(values[4]) <= unit_limit))]}


def case_initializer_errors(tf, rewrites_off=False):
    return {"scale": _error(lambda: tf.variance_scaling_initializer(scale=0.0)),
            "mode": _error(lambda: tf.variance_scaling_initializer(mode="fan")),
            "distribution": _error(lambda: tf.variance_scaling_initializer(distribution="cauchy")),
            "dtype": _error(lambda: tf.random_normal_initializer(dtype=tf.int32)),
            "unit_dtype": _error(lambda: tf.uniform_unit_scaling_initializer(dtype=tf.string)),
            "orthogonal_shape": _error(lambda: tf.orthogonal_initializer()([5])),
            "partitioner": _error(lambda: tf.variable_axis_size_partitioner(0))}


def case_orthogonal_is_orthogonal(tf, rewrites_off=False):
    tall = tf.orthogonal_initializer(gain=2.0, seed=4)([6, 3])
    wide = tf.orthogonal_initializer(seed=5)([2, 2, 5])
    t, w = _run(tf, [tall, wide])
    flat = w.reshape(4, 5)
    return {"ops": graph_facts(tf), "shapes": [str(tall.shape), str(wide.shape)],
            "tall_gram": _values(np.round(t.T @ t, 4)), "wide_gram": _values(np.round(flat @ flat.T, 4))}


def case_identity_and_eye(tf, rewrites_off=False):
    from_init = tf.initializers.identity(gain=0.5)([3, 3])
    made = [from_init, tf.eye(2, 3), tf.eye(3, dtype=tf.int32), tf.eye(2, batch_shape=[2])]
    with tf.variable_scope("v", partitioner=tf.variable_axis_size_partitioner(16),
                           initializer=tf.initializers.identity()):
        parts = tf.get_variable("w", shape=[4, 4])
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        values = sess.run(made + [tf.concat(list(parts), 0)])
    return {"ops": graph_facts(tf), "values": _values(values), "shards": len(list(parts)),
            "bad_shape": _error(lambda: tf.initializers.identity()([2, 2, 2]))}


def case_constant_fills_out_too_few_values(tf, rewrites_off=False):
    made = [tf.constant([1, 2, 3], shape=[5]), tf.constant([[1.0, 2.0], [3.0, 4.0]], shape=[2, 3]),
            tf.constant([], shape=[2], dtype=tf.float32)]
    init = tf.constant_initializer([0, 1, 2], dtype=tf.int32)
    v = tf.get_variable("x", shape=[2, 2], initializer=init, dtype=tf.int32)
    with tf.Session() as sess:
        sess.run(v.initializer)
        values = sess.run(made + [v])
    return {"values": _values(values), "too_many": _error(lambda: tf.constant([1, 2, 3], shape=[2]))}


def case_linspace(tf, rewrites_off=False):
    a = tf.linspace(1.0, 5.0, 4, name="linspace")
    b = tf.linspace([0.0, 1.0], [1.0, 3.0], 3, axis=-1)
    c = tf.linspace(tf.constant([[0.0], [1.0]]), [2.0, 4.0], 3, axis=1)
    num = tf.placeholder(tf.int32, name="num")
    d = tf.linspace(-1.0, 1.0, num)
    shapes = [str(t.shape) for t in (a, b, c, d)]
    values = _run(tf, [a, b, c, d], {num: 5})
    return {"ops": graph_facts(tf), "shapes": shapes, "values": _values(values),
            "broadcast": _values(_run(tf, tf.broadcast_dynamic_shape([2, 1, 3], [4, 1]))),
            "incompatible": _error(lambda: _run(tf, tf.broadcast_dynamic_shape(tf.placeholder_with_default([2], [1]),
                                                                             [3]))),
            "float_num": _error(lambda: tf.linspace(0.0, 1.0, 2.5))}


def case_qr_and_diag(tf, rewrites_off=False):
    x = tf.constant([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]], name="x")
    q, r = tf.qr(x)
    qf, rf = tf.qr(x, full_matrices=True)
    parts = [tf.matmul(q, r), tf.abs(tf.diag_part(r)), tf.matrix_transpose(x), tf.matrix_diag([1, 2]),
             tf.matrix_set_diag(tf.zeros([2, 3]), [7.0, 8.0])]
    return {"shapes": [str(t.shape) for t in (q, r, qf, rf)], "values": _values(_run(tf, parts)),
            "ops": graph_facts(tf)}




def case_bad_indices_policy(tf, rewrites_off=False):
    v = tf.Variable([1.0, 2.0], name="v")
    out = tf.gather_nd(v, tf.expand_dims(tf.constant([[1], [-1], [0]]), -1), bad_indices_policy="IGNORE")
    grad = tf.gradients(out, v)[0]
    scattered = tf.scatter_nd([[5], [0]], [1.0, 2.0], [3], bad_indices_policy="IGNORE")
    strict = tf.scatter_nd([[5], [0]], [1.0, 2.0], [3])
    with tf.Session() as sess:
        sess.run(v.initializer)
        values = sess.run([out, grad, scattered])
        error = _error(lambda: sess.run(strict))
    return {"ops": graph_facts(tf), "values": _values(values), "strict": error}


def case_convolution_delta_orthogonal(tf, rewrites_off=False):
    init = _init_ops(tf).convolutional_delta_orthogonal(gain=2.0, seed=3)
    kernel = init([3, 3, 2, 4])
    value = _run(tf, kernel)
    centre = value[1, 1]
    elsewhere = np.abs(value).sum() - np.abs(centre).sum()
    return {"shape": str(kernel.shape), "gram": _values(np.round(centre @ centre.T, 4)),
            "elsewhere": float(elsewhere), "in_gt_out": _error(lambda: init([3, 3, 5, 4]))}


def _init_ops(tf):
    if tf.__name__.startswith("devlab"):
        from devlab.api import init_ops
    else:
        from tensorflow.python.ops import init_ops
    return init_ops


def case_convolution_orthogonal_kernels(tf, rewrites_off=False):
    """Whatever the draws, an orthogonal convolution kernel keeps energy: the sum over kernel
    positions of K K^T is the identity (cin x cin)."""
    if tf.__name__.startswith("devlab"):
        from devlab.api import conv_orthogonal as ops
    else:
        ops = _init_ops(tf)
    kernels = [ops.convolutional_orthogonal_1d(seed=1)([3, 4, 6]), ops.convolutional_orthogonal_2d(seed=2)([2, 2, 3, 5]),
               ops.convolutional_orthogonal_3d(gain=2.0, seed=3)([2, 2, 2, 2, 4])]
    values = _run(tf, kernels)
    grams = []
    for v in values:
        flat = v.reshape((-1,) + v.shape[-2:])
        grams.append(_values(np.round(sum(k @ k.T for k in flat), 4)))
    return {"shapes": [str(k.shape) for k in kernels], "grams": grams,
            "sizes": _error(lambda: ops.convolutional_orthogonal_2d()([3, 2, 4, 4])),
            "rank": _error(lambda: ops.convolutional_orthogonal_3d()([3, 3, 4, 4]))}


CASES = {name[len("case_"):]: fn for name, fn in sorted(globals().items()) if name.startswith("case_")}
