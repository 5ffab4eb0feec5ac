"""TensorFlow's TFRecord file format, in pure Python: each record is its length (uint64, little
endian), the masked CRC-32C of the length, the bytes, and the masked CRC-32C of the bytes. TF's
``tf.python_io.TFRecordWriter``, ``tf_record_iterator`` and ``TFRecordReader`` read and write
these files; a wrong checksum is TF's DataLossError.
"""
import struct

from ..framework import errors


def _table():
    poly, table = 0x82F63B78, []  # CRC-32C (Castagnoli), reflected
    for i in range(256):
        c = i
        for _ in range(8):
            c = (c >> 1) ^ poly if c & 1 else c >> 1
        table.append(c)
    return table


_TABLE = _table()


def crc32c(data):
    crc = 0xFFFFFFFF
    table = _TABLE
    for byte in data:
        crc = table[(crc ^ byte) & 0xFF] ^ (crc >> 8)
    return crc ^ 0xFFFFFFFF


def masked_crc32c(data):
    """TF's masked checksum: rotated right by 15 bits plus a constant."""
    crc = crc32c(data)
    return (((crc >> 15) | (crc << 17)) + 0xA282EAD8) & 0xFFFFFFFF


def encode(record):
    """One record's bytes as they stand in the file."""
    header = struct.pack("<Q", len(record))
    return header + struct.pack("<I", masked_crc32c(header)) + record + struct.pack("<I", masked_crc32c(record))


def records(stream, name="<stream>"):
    """The records of a binary stream, one by one; a cut or corrupted record is DataLossError."""
    while True:
        header = stream.read(12)
        if not header:
            return
        if len(header) < 12:
            raise errors.DataLossError(None, None, f"truncated record at end of file {name}")
        length_bytes, (length_crc,) = header[:8], struct.unpack("<I", header[8:])
        if masked_crc32c(length_bytes) != length_crc:
            raise errors.DataLossError(None, None, f"corrupted record at end of file {name}")
        (length,) = struct.unpack("<Q", length_bytes)
        data = stream.read(length)
        footer = stream.read(4)
        if len(data) < length or len(footer) < 4:
            raise errors.DataLossError(None, None, f"truncated record at end of file {name}")
        if masked_crc32c(data) != struct.unpack("<I", footer)[0]:
            raise errors.DataLossError(None, None, f"corrupted record at end of file {name}")
        yield data
