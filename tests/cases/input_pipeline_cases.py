"""TF1's queue-based input pipeline as TensorFlow's ecosystem docker/mnist.py wrote it: Examples
in a TFRecord file, ``string_input_producer`` with ``num_epochs``, ``TFRecordReader``,
``parse_single_example``, ``decode_raw``, ``tf.train.batch``, a softmax model trained until the
input ends (OutOfRangeError). ``run(tf, directory)`` works with TensorFlow's ``tf.compat.v1`` and
with devlab."""
import os

import numpy as np

PIXELS, CLASSES, EXAMPLES = 16, 3, 24


def write(tf, path):
    """EXAMPLES images of PIXELS bytes; the label is which third of the image is brightest."""
    rng = np.random.RandomState(1)
    with tf.python_io.TFRecordWriter(path) as writer:
        for _ in range(EXAMPLES):
            label = int(rng.randint(CLASSES))
            image = rng.randint(0, 100, PIXELS).astype(np.uint8)
            image[label * 5:label * 5 + 5] += 150
            writer.write(tf.train.Example(features=tf.train.Features(feature={
                "image_raw": tf.train.Feature(bytes_list=tf.train.BytesList(value=[image.tobytes()])),
                "label": tf.train.Feature(int64_list=tf.train.Int64List(value=[label]))})).SerializeToString())


def inputs(tf, path, batch_size, num_epochs):
    filename_queue = tf.train.string_input_producer([path], num_epochs=num_epochs)
    _, serialized = tf.TFRecordReader().read(filename_queue)
    features = tf.parse_single_example(serialized, features={
        "image_raw": tf.FixedLenFeature([], tf.string), "label": tf.FixedLenFeature([], tf.int64)})
    image = tf.decode_raw(features["image_raw"], tf.uint8)
    image.set_shape([PIXELS])
    image = tf.cast(image, tf.float32) * (1.0 / 255) - 0.5
    label = tf.cast(features["label"], tf.int32)
    return tf.train.batch([image, label], batch_size=batch_size, num_threads=1, capacity=16)


def run(tf, directory, batch_size=4, num_epochs=3):
    path = os.path.join(directory, "train.tfrecords")
    write(tf, path)
    with tf.Graph().as_default():
        images, labels = inputs(tf, path, batch_size, num_epochs)
        w = tf.Variable(tf.zeros([PIXELS, CLASSES]), name="w")
        b = tf.Variable(tf.zeros([CLASSES]), name="b")
        logits = tf.matmul(images, w) + b
        loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=logits))
        train = tf.train.GradientDescentOptimizer(0.5).minimize(loss)
        init = tf.group(tf.global_variables_initializer(), tf.local_variables_initializer())
        losses, end = [], None
        with tf.Session() as sess:
            sess.run(init)
            coord = tf.train.Coordinator()
            threads = tf.train.start_queue_runners(sess=sess, coord=coord)
            try:
                for _ in range(100):  # the input ends after EXAMPLES * num_epochs / batch_size steps
                    _, value = sess.run([train, loss])
                    losses.append(float(value))
            except tf.errors.OutOfRangeError as e:
                end = type(e).__name__
            finally:
                coord.request_stop()
            coord.join(threads, stop_grace_period_secs=10)
            return {"steps": len(losses), "losses": losses, "end": end,
                    "w": sess.run(w).ravel().tolist(), "b": sess.run(b).tolist()}


def shuffled(tf, directory, batch_size=4, num_epochs=2, seed=None):
    """The same records through ``tf.train.shuffle_batch``: which labels and images came out, in
    order-free form (TF's order comes from its own generator), and how the input ended."""
    path = os.path.join(directory, "shuffled.tfrecords")
    write(tf, path)
    with tf.Graph().as_default():
        filename_queue = tf.train.string_input_producer([path], num_epochs=num_epochs)
        _, serialized = tf.TFRecordReader().read(filename_queue)
        features = tf.parse_single_example(serialized, features={
            "image_raw": tf.FixedLenFeature([], tf.string), "label": tf.FixedLenFeature([], tf.int64)})
        image = tf.decode_raw(features["image_raw"], tf.uint8)
        image.set_shape([PIXELS])
        images, labels = tf.train.shuffle_batch([image, features["label"]], batch_size=batch_size, capacity=12,
                                                min_after_dequeue=5, seed=seed)
        seen, batches, end = [], [], None
        with tf.Session() as sess:
            sess.run(tf.local_variables_initializer())
            coord = tf.train.Coordinator()
            threads = tf.train.start_queue_runners(sess=sess, coord=coord)
            try:
                for _ in range(100):
                    i, l = sess.run([images, labels])
                    batches.append(l.tolist())
                    seen.extend(f"{int(a)}:{bytes(r).hex()}" for a, r in zip(l, i.astype("uint8")))
            except tf.errors.OutOfRangeError as e:
                end = type(e).__name__
            finally:
                coord.request_stop()
            coord.join(threads, stop_grace_period_secs=10)
        return {"steps": len(batches), "end": end, "seen": sorted(seen), "batches": batches}


def joined(tf, directory, shuffle=False):
    """Two readers of the same file (one per thread) into ``batch_join``/``shuffle_batch_join``:
    which records came out, and how the input ended."""
    path = os.path.join(directory, "joined.tfrecords")
    write(tf, path)
    with tf.Graph().as_default():
        filename_queue = tf.train.string_input_producer([path], num_epochs=1)
        lists = []
        for _ in range(2):
            _, serialized = tf.TFRecordReader().read(filename_queue)
            features = tf.parse_single_example(serialized, features={"label": tf.FixedLenFeature([], tf.int64)})
            lists.append([features["label"]])
        if shuffle:
            labels = tf.train.shuffle_batch_join(lists, batch_size=4, capacity=12, min_after_dequeue=3)
        else:
            labels = tf.train.batch_join(lists, batch_size=4)
        seen, end = [], None
        with tf.Session() as sess:
            sess.run(tf.local_variables_initializer())
            coord = tf.train.Coordinator()
            threads = tf.train.start_queue_runners(sess=sess, coord=coord)
            try:
                for _ in range(100):
                    seen.extend(sess.run(labels).tolist())
            except tf.errors.OutOfRangeError as e:
                end = type(e).__name__
            finally:
                coord.request_stop()
            coord.join(threads, stop_grace_period_secs=10)
        return {"seen": sorted(seen), "end": end}
