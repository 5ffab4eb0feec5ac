"""The bytes TensorFlow's summary ops output: a serialized ``tensorflow.Summary`` protocol buffer.

Written by hand (three message types, two wire types) so that summaries need no protobuf
package: ``sess.run(tf.summary.scalar(...))`` gives the bytes TensorFlow gives, which
``tf.summary.FileWriter`` and TensorBoard read. Merging summaries is concatenating them, as a
protocol buffer's repeated field is. Histograms use TensorFlow's default buckets
(``tensorflow/core/lib/histogram/histogram.cc``): edges 1e-12 * 1.1**k up to 1e20, mirrored, and
runs of empty buckets collapsed into one.
"""
import struct
import sys

import numpy as np

_DBL_MAX = sys.float_info.max


def _varint(n):
    out = bytearray()
    while True:
        low, n = n & 0x7F, n >> 7
        out.append(low | (0x80 if n else 0))
        if not n:
            return bytes(out)


def _field(number, wire_type):
    return _varint(number << 3 | wire_type)


def _bytes_field(number, data):
    return _field(number, 2) + _varint(len(data)) + data


def _double_field(number, x):
    data = struct.pack("<d", x)
    return b"" if data == b"\0" * 8 else _field(number, 1) + data  # proto3 leaves out zero


def _default_limits():
    positive, v = [], 1.0e-12
    while v < 1.0e20:
        positive.append(v)
        v *= 1.1
    positive.append(_DBL_MAX)
    return np.array([-x for x in reversed(positive)] + [0.0] + positive)


_LIMITS = _default_limits()


def scalar_value(tag, value):
    """One ``Summary.Value`` with ``simple_value``, serialized as a one-value Summary."""
    value_bytes = _bytes_field(1, tag.encode()) if tag else b""
    value_bytes += _field(2, 5) + struct.pack("<f", value)  # a oneof member: written even when zero
    return _bytes_field(1, value_bytes)


def histogram_value(tag, values):
    """One ``Summary.Value`` with a ``HistogramProto`` of ``values`` (finite doubles)."""
    values = np.asarray(values, dtype=np.float64).reshape(-1)
    counts = np.bincount(np.searchsorted(_LIMITS, values, side="right"), minlength=len(_LIMITS))[:len(_LIMITS)]
    limits, buckets, i = [], [], 0
    while i < len(_LIMITS):
        end, count = _LIMITS[i], counts[i]
        i += 1
        if count <= 0:  # a run of empty buckets becomes one
            while i < len(_LIMITS) and counts[i] <= 0:
                end, count = _LIMITS[i], counts[i]
                i += 1
        limits.append(end)
        buckets.append(float(count))
    low = float(values.min()) if values.size else _DBL_MAX
    high = float(values.max()) if values.size else -_DBL_MAX
    histo = (_double_field(1, low) + _double_field(2, high) + _double_field(3, float(values.size))
             + _double_field(4, float(values.sum())) + _double_field(5, float(np.dot(values, values)))
             + _bytes_field(6, struct.pack(f"<{len(limits)}d", *limits))
             + _bytes_field(7, struct.pack(f"<{len(buckets)}d", *buckets)))
    value_bytes = (_bytes_field(1, tag.encode()) if tag else b"") + _bytes_field(5, histo)
    return _bytes_field(1, value_bytes)


def tags(summary):
    """The tags of a serialized Summary's values, in order (for MergeSummary's duplicate check)."""
    out, i = [], 0
    while i < len(summary):
        key, i = _read_varint(summary, i)
        if key != (1 << 3 | 2):
            raise ValueError("not a Summary")
        size, i = _read_varint(summary, i)
        value, i = summary[i:i + size], i + size
        if len(value) != size:
            raise ValueError("not a Summary")
        tag = b""
        if value[:1] == b"\n":  # field 1 (tag) comes first when set
            n, j = _read_varint(value, 1)
            tag = value[j:j + n]
        out.append(tag.decode("utf-8", "replace"))
    return out


def _read_varint(data, i):
    shift = result = 0
    while True:
        if i >= len(data) or shift > 63:
            raise ValueError("not a Summary")
        b = data[i]
        result |= (b & 0x7F) << shift
        i, shift = i + 1, shift + 7
        if not b & 0x80:
            return result, i
