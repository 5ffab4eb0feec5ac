"""TFRecord files and tf.train.Example, written the same way by TensorFlow and devlab.
``case(tf, path)`` works with TensorFlow's ``tf.compat.v1`` and with devlab."""


def example(tf):
    """An Example with each kind of feature (a negative int64, a float that float32 rounds)."""
    return tf.train.Example(features=tf.train.Features(feature={
        "label": tf.train.Feature(int64_list=tf.train.Int64List(value=[3, -1, 300])),
        "image_raw": tf.train.Feature(bytes_list=tf.train.BytesList(value=[bytes(range(10))])),
        "weights": tf.train.Feature(float_list=tf.train.FloatList(value=[0.5, 0.1, -2.0])),
        "empty": tf.train.Feature(int64_list=tf.train.Int64List(value=[]))}))


def write_file(tf, path):
    """A file of three records: two byte strings and the Example; returns its bytes as hex."""
    with tf.python_io.TFRecordWriter(path) as writer:
        writer.write(b"first")
        writer.write(b"")
        writer.write(example(tf).SerializeToString())
    with open(path, "rb") as f:
        return f.read().hex()


def read_file(tf, path):
    """The records of a file, as hex."""
    return [bytes(r).hex() for r in tf.python_io.tf_record_iterator(path)]
