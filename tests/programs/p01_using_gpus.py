"""The TF 1.x "Using GPUs" guide, snippet by snippet (log placement, manual, multi-device sum, soft placement).

Each variant is one snippet of the guide, written as the guide writes it. TensorFlow's CPU
build has no GPU, so the executed variants put ``/cpu:1``.. where the guide says ``/gpu:N``;
the ``*_gpu`` variants keep the guide's GPU strings and are placed with soft placement
(everything falls back to CPU:0 on a machine without GPUs) or only built.
"""


def build(tf, snippet="log", gpu="/device:CPU:1", towers=("/cpu:1", "/cpu:2")):
    if snippet == "log":
        # Creates a graph.
        a = tf.constant([1.0, 2.0, 3.0, 4.0, 5.0, 6.0], shape=[2, 3], name='a')
        b = tf.constant([1.0, 2.0, 3.0, 4.0, 5.0, 6.0], shape=[3, 2], name='b')
        c = tf.matmul(a, b)
        return {"fetch": {"c": c}}

    if snippet == "manual":
        # Creates a graph.
        with tf.device('/cpu:0'):
            a = tf.constant([1.0, 2.0, 3.0, 4.0, 5.0, 6.0], shape=[2, 3], name='a')
            b = tf.constant([1.0, 2.0, 3.0, 4.0, 5.0, 6.0], shape=[3, 2], name='b')
        c = tf.matmul(a, b)
        return {"fetch": {"c": c}}

    if snippet == "single_gpu":
        # Creates a graph on one named device (the guide's '/device:GPU:2').
        with tf.device(gpu):
            a = tf.constant([1.0, 2.0, 3.0, 4.0, 5.0, 6.0], shape=[2, 3], name='a')
            b = tf.constant([1.0, 2.0, 3.0, 4.0, 5.0, 6.0], shape=[3, 2], name='b')
            c = tf.matmul(a, b)
        return {"fetch": {"c": c}}

    if snippet == "multi_tower":
        # Creates a graph.
        c = []
        for d in towers:
            with tf.device(d):
                a = tf.constant([1.0, 2.0, 3.0, 4.0, 5.0, 6.0], shape=[2, 3])
                b = tf.constant([1.0, 2.0, 3.0, 4.0, 5.0, 6.0], shape=[3, 2])
                c.append(tf.matmul(a, b))
        with tf.device('/cpu:0'):
            sum = tf.add_n(c)  # noqa: A001 - the guide's name
        return {"fetch": {"sum": sum}}

    if snippet == "matpow":
        # The popular "multigpu_basics" example: A^n and B^n on two devices, summed on the CPU.
        import numpy as np
        A = np.random.RandomState(1).rand(6, 6).astype('float32') / 3
        B = np.random.RandomState(2).rand(6, 6).astype('float32') / 3
        n = 3

        def matpow(M, n):
            if n < 1:  # Abstract cases where n < 1
                return M
            else:
                return tf.matmul(M, matpow(M, n - 1))

        c1 = []
        with tf.device(towers[0]):
            a = tf.placeholder(tf.float32, [6, 6])
            c1.append(matpow(a, n))
        with tf.device(towers[1]):
            b = tf.placeholder(tf.float32, [6, 6])
            c1.append(matpow(b, n))
        with tf.device('/cpu:0'):
            sum = tf.add_n(c1)  # noqa: A001
        return {"fetch": {"sum": sum}, "feed": {a: A, b: B}}

    raise ValueError(snippet)


VARIANTS = {
    "log": {"kwargs": {"snippet": "log"}},
    "manual": {"kwargs": {"snippet": "manual"}, "config": {"device_count": {"CPU": 2}}},
    "single_device": {"kwargs": {"snippet": "single_gpu"}, "config": {"device_count": {"CPU": 2}}},
    "unknown_device": {"kwargs": {"snippet": "single_gpu", "gpu": "/device:CPU:2"},
                       "config": {"device_count": {"CPU": 2}},
                       "note": "the guide's 'GPU:2 does not exist' error, with CPU:2 on a 2-CPU session"},
    "soft_placement": {"kwargs": {"snippet": "single_gpu", "gpu": "/device:CPU:2"},
                       "config": {"device_count": {"CPU": 2}, "allow_soft_placement": True}},
    "soft_placement_gpu": {"kwargs": {"snippet": "single_gpu", "gpu": "/device:GPU:2"},
                           "config": {"allow_soft_placement": True},
                           "note": "the guide's own GPU:2, placed with soft placement on a machine without GPUs"},
    "unknown_gpu": {"kwargs": {"snippet": "single_gpu", "gpu": "/device:GPU:2"},
                    "note": "TF's CPU build: the error adds 'CUDA is not enabled'"},
    "multi_tower": {"kwargs": {"snippet": "multi_tower"}, "config": {"device_count": {"CPU": 3}}},
    "multi_tower_gpu": {"kwargs": {"snippet": "multi_tower", "towers": ("/device:GPU:2", "/device:GPU:3")},
                        "config": {"allow_soft_placement": True},
                        "note": "the guide's GPU:2 and GPU:3, placed with soft placement on a machine without GPUs"},
    "matpow": {"kwargs": {"snippet": "matpow"}, "config": {"device_count": {"CPU": 3}}},
    "matpow_gpu": {"kwargs": {"snippet": "matpow", "towers": ("/gpu:0", "/gpu:1")}, "execute": False,
                   "note": "built only"},
}
