"""Seeded shuffling in the TF1 input pipeline: ``string_input_producer(shuffle=True)`` over files
(TF's RandomShuffle each epoch), ``tf.random_shuffle``, with an op seed, a graph seed (and an
unseeded random op before, which counts), or both; and ``tf.train.match_filenames_once``. Each case
returns the order of the files a reader would get and the shuffled rows. The same functions run
under TensorFlow 2.21 (tools/record_cases.py shuffle writes tests/data/tf_shuffle.json) and under
devlab (tests/test_input_pipeline.py compares)."""
import os
import tempfile


def _shuffled(tf, graph_seed, op_seed):
    if graph_seed is not None:
        tf.set_random_seed(graph_seed)
    tf.random_uniform([2])  # an unseeded random op first: TF counts it when seeding the next ones
    queue = tf.train.string_input_producer([f"file{i}" for i in range(7)], num_epochs=3, shuffle=True, seed=op_seed)
    name = queue.dequeue()
    rows = tf.random_shuffle(tf.reshape(tf.range(12), [6, 2]), seed=op_seed)
    with tf.Session() as sess:
        sess.run(tf.local_variables_initializer())
        coord = tf.train.Coordinator()
        threads = tf.train.start_queue_runners(sess, coord)
        files = [sess.run(name).decode() for _ in range(21)]
        shuffled = [sess.run(rows).tolist() for _ in range(3)]
        coord.request_stop()
        coord.join(threads)
    return {"files": files, "rows": shuffled}


def case_op_seed(tf, rewrites_off=False):
    return _shuffled(tf, None, 42)


def case_graph_seed(tf, rewrites_off=False):
    return _shuffled(tf, 7, None)


def case_graph_and_op_seed(tf, rewrites_off=False):
    return _shuffled(tf, 2024, 3)


def case_match_filenames_once(tf, rewrites_off=False):
    directory = tempfile.mkdtemp()
    for n in ("b.tfrecords", "a.tfrecords", "c.txt", "d.tfrecords"):
        open(os.path.join(directory, n), "w").close()
    files = tf.train.match_filenames_once(os.path.join(directory, "*.tfrecords"))
    queue = tf.train.string_input_producer(files, shuffle=True, seed=1, num_epochs=2)
    name = queue.dequeue()
    ops = [[op.name, op.type] for op in tf.get_default_graph().get_operations()][:5]
    with tf.Session() as sess:
        sess.run([tf.global_variables_initializer(), tf.local_variables_initializer()])
        matched = [os.path.basename(f.decode()) for f in sess.run(files)]
        coord = tf.train.Coordinator()
        threads = tf.train.start_queue_runners(sess, coord)
        order = [os.path.basename(sess.run(name).decode()) for _ in range(6)]
        coord.request_stop()
        coord.join(threads)
    return {"ops": ops, "matched": matched, "order": order,
            "collections": [files in tf.local_variables(), files in tf.trainable_variables()]}


CASES = {name[len("case_"):]: fn for name, fn in globals().items() if name.startswith("case_")}
