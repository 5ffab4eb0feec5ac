"""TFRecord files and tf.train.Example (ops/tfrecord.py, ops/example_proto.py) against the bytes
TensorFlow 2.21 writes for the same records (tests/cases/tfrecord_cases.py, tools/record_tfrecord.py)."""
import json
import os
import sys

import pytest

import devlab as tf

HERE = os.path.dirname(__file__)
sys.path.insert(0, os.path.join(HERE, "cases"))
import tfrecord_cases as cases  # noqa: E402

with open(os.path.join(HERE, "data", "tf_tfrecord.json")) as f:
    RECORDED = json.load(f)


def entries(data):
    """The map entries of a serialised Example, each as bytes, sorted: protobuf leaves the order
    of a map's entries to the implementation (TF's upb writes them in its hash order)."""
    from devlab.ops.example_proto import _fields
    (features,) = [v for n, _, v in _fields(data) if n == 1]
    return sorted(bytes(v) for n, _, v in _fields(features) if n == 1)


def test_an_example_serialises_to_tensorflows_bytes_and_back():
    data = cases.example(tf).SerializeToString()
    assert len(data) == len(bytes.fromhex(RECORDED["example"]))
    assert entries(data) == entries(bytes.fromhex(RECORDED["example"]))
    back = tf.train.Example.FromString(bytes.fromhex(RECORDED["example"]))
    assert back == cases.example(tf)
    assert back.features.feature["label"].int64_list.value == [3, -1, 300]
    assert back.features.feature["weights"].float_list.value == pytest.approx([0.5, 0.1, -2.0])


def test_a_tfrecord_file_is_tensorflows_and_reads_back(tmp_path):
    path = str(tmp_path / "data.tfrecords")
    written = bytes.fromhex(cases.write_file(tf, path))
    recorded = bytes.fromhex(RECORDED["file"])
    first_two = 12 + 5 + 4 + 12 + 0 + 4  # the byte-string records, framed and checksummed
    assert written[:first_two] == recorded[:first_two] and len(written) == len(recorded)
    records = cases.read_file(tf, path)
    assert records[:2] == RECORDED["records"][:2]
    assert entries(bytes.fromhex(records[2])) == entries(bytes.fromhex(RECORDED["records"][2]))
    tf_path = tmp_path / "tf.tfrecords"  # TF's own file reads back as TF wrote it
    tf_path.write_bytes(recorded)
    assert cases.read_file(tf, str(tf_path)) == RECORDED["records"]


def test_a_corrupted_record_is_data_loss(tmp_path):
    path = tmp_path / "bad.tfrecords"
    data = bytearray.fromhex(RECORDED["file"])
    data[14] ^= 0xFF  # a byte of the first record's data
    path.write_bytes(bytes(data))
    with pytest.raises(tf.errors.DataLossError, match="corrupted record"):
        list(tf.python_io.tf_record_iterator(str(path)))


def test_compression_is_refused_by_name():
    with pytest.raises(NotImplementedError, match="compression_type='GZIP'"):
        tf.python_io.TFRecordOptions("GZIP")
