"""The protocol buffer wire format, written and read by hand for the few messages devlab handles
without the ``protobuf`` package (``tf.train.Example`` records, a checkpoint's index entries).

A message is a run of fields; each starts with a varint key (field number << 3 | wire type).
Wire types: 0 varint, 1 fixed 8 bytes, 2 length-delimited bytes, 5 fixed 4 bytes. ``error`` is
the exception class each caller raises on malformed input, so a bad TFRecord and a bad checkpoint
each fail with their own words.
"""


def encode_varint(n):
    """``n`` as a varint; a negative int64 takes ten bytes (two's complement), as protobuf writes it."""
    n &= 0xFFFFFFFFFFFFFFFF
    out = bytearray()
    while True:
        b = n & 0x7F
        n >>= 7
        if not n:
            out.append(b)
            return bytes(out)
        out.append(b | 0x80)


def encode_field(number, payload):
    """A length-delimited field (wire type 2)."""
    return encode_varint(number << 3 | 2) + encode_varint(len(payload)) + payload


def read_varint(data, pos, error):
    """The varint at ``data[pos:]`` and the position after it."""
    result = shift = 0
    while True:
        if pos >= len(data) or shift > 63:
            raise error("truncated varint")
        b = data[pos]
        pos += 1
        result |= (b & 0x7F) << shift
        if not b & 0x80:
            return result, pos
        shift += 7


_FIXED = {1: 8, 5: 4}


def read_fields(data, error):
    """Yields (field number, wire type, value) of a message: an int for a varint, bytes otherwise
    (a fixed field's raw little-endian bytes, a length-delimited field's payload)."""
    pos = 0
    while pos < len(data):
        key, pos = read_varint(data, pos, error)
        number, wire = key >> 3, key & 7
        if wire == 0:
            value, pos = read_varint(data, pos, error)
            yield number, wire, value
            continue
        if wire == 2:
            size, pos = read_varint(data, pos, error)
        elif wire in _FIXED:
            size = _FIXED[wire]
        else:
            raise error(f"field {number} has wire type {wire}")
        if pos + size > len(data):
            raise error(f"field {number} runs past its message")
        yield number, wire, bytes(data[pos:pos + size])
        pos += size
