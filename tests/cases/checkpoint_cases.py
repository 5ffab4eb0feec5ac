"""``tf.train.list_variables`` and ``load_variable`` on a checkpoint the program saved itself.
``run(tf, directory)`` works with TensorFlow's ``tf.compat.v1`` and with devlab."""


def run(tf, directory):
    with tf.Graph().as_default():
        with tf.variable_scope("layer"):
            w = tf.Variable([[1.0, 2.0], [3.0, 4.0]], name="w")
        step = tf.Variable(7, name="global_step", trainable=False)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            tf.train.Saver([w, step]).save(sess, directory + "/model.ckpt", global_step=3)
    out = {"list": [[n, list(s)] for n, s in tf.train.list_variables(directory)],
           "w": tf.train.load_variable(directory, "layer/w").tolist(),
           "step": int(tf.train.load_variable(directory + "/model.ckpt-3", "global_step"))}
    try:
        tf.train.load_variable(directory, "nope")
    except Exception as e:  # noqa: BLE001 - the class is what is compared
        out["missing"] = type(e).__name__
    return out
