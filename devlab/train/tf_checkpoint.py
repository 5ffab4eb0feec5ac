"""TensorFlow's own checkpoints (the V2 format ``tf.train.Saver`` writes), read with numpy alone.

A checkpoint ``PREFIX`` is ``PREFIX.index`` and ``PREFIX.data-00000-of-0000N``. The index is a
LevelDB-style table (TF's ``lib/io/table``): sorted keys, each the name of a saved tensor, each
value a ``BundleEntryProto`` giving its dtype, shape, data shard, offset and byte size; the empty
key holds the ``BundleHeaderProto`` (the number of shards and their byte order). The data shards
are the tensors' bytes, one after another. The protos are decoded here from their wire format (a
few fields), so restoring a TensorFlow checkpoint needs no extra. ``saver.read_checkpoint`` checks
the entries against the variables; this module only parses, bounded by the files' sizes.
"""
import os
import struct

import numpy as np

from ..framework import dtypes, wire

INDEX_SUFFIX = ".index"
_MAGIC = 0xdb4775248b80fb57  # a table's last 8 bytes
_FOOTER = 48  # two block handles padded to 40 bytes, then the magic
_TRAILER = 5  # after each block: its compression type (1 byte) and a checksum (4)
# TensorFlow's DataType enum (types.proto) -> devlab's dtype, for the types a variable can have
_DTYPES = {1: "float32", 2: "float64", 3: "int32", 4: "uint8", 5: "int16", 6: "int8", 7: "string", 9: "int64",
           10: "bool", 19: "float16"}
_OTHER_TYPES = {8: "complex64", 14: "bfloat16", 17: "uint16", 18: "complex128", 20: "resource", 21: "variant",
                22: "uint32", 23: "uint64"}  # named in errors only: no devlab variable has them


class CheckpointFormatError(Exception):
    """The files are not a well-formed TF checkpoint (``saver`` turns this into TF's DataLossError)."""


def is_tf_checkpoint(prefix):
    """Whether ``prefix`` names a checkpoint TensorFlow wrote (its ``.index`` file exists)."""
    return os.path.isfile(prefix + INDEX_SUFFIX)


class Entry:
    """One saved tensor: ``dtype`` (a devlab DType, or None for a type devlab lacks, with
    ``type_enum``), ``shape``, where its bytes are, and whether it is saved in slices (a
    partitioned variable)."""

    __slots__ = ("name", "type_enum", "type_name", "dtype", "shape", "shard", "offset", "size", "sliced")

    def __init__(self, name, fields):
        self.name = name
        self.type_enum = _one(fields, 1, 0)
        self.dtype = dtypes.as_dtype(_DTYPES[self.type_enum]) if self.type_enum in _DTYPES else None
        self.type_name = _OTHER_TYPES.get(self.type_enum, f"DataType {self.type_enum}")
        self.shape = _shape(_one(fields, 2, b""))
        self.shard, self.offset, self.size = _one(fields, 3, 0), _one(fields, 4, 0), _one(fields, 5, 0)
        self.sliced = bool(fields.get(7))


class TFCheckpoint:
    """The index of the checkpoint ``prefix``: ``entries`` ({tensor name: Entry}); ``read(entry)``
    gives a tensor's value as a numpy array."""

    def __init__(self, prefix):
        self.prefix = prefix
        with open(prefix + INDEX_SUFFIX, "rb") as f:
            table = f.read()
        header, self.entries = None, {}
        for key, value in _table_items(table):
            if key == b"":
                header = _fields(value)
            else:
                name = key.decode("utf-8", "replace")
                self.entries[name] = Entry(name, _fields(value))
        if header is None:
            raise CheckpointFormatError("the index has no header entry")
        self.num_shards = _one(header, 1, 1)
        self.byte_order = ">" if _one(header, 2, 0) == 1 else "<"
        if not 1 <= self.num_shards <= 100_000:
            raise CheckpointFormatError(f"the header names {self.num_shards} shards")

    def shard_path(self, shard):
        return f"{self.prefix}.data-{shard:05d}-of-{self.num_shards:05d}"

    def read(self, entry):
        """The tensor's value, read from its shard: exactly ``entry.size`` bytes at its offset."""
        if not 0 <= entry.shard < self.num_shards:
            raise CheckpointFormatError(f"entry for {entry.name} names shard {entry.shard} of {self.num_shards}")
        path = self.shard_path(entry.shard)
        with open(path, "rb") as f:
            f.seek(0, os.SEEK_END)
            if entry.offset + entry.size > f.tell():
                raise CheckpointFormatError(f"entry for {entry.name} runs past the end of {os.path.basename(path)}")
            f.seek(entry.offset)
            data = f.read(entry.size)
        count = int(np.prod(entry.shape, dtype=np.int64))
        if entry.dtype == dtypes.string:
            return _strings(data, count, entry.name).reshape(entry.shape)
        dtype = np.dtype(entry.dtype.as_numpy_dtype).newbyteorder(self.byte_order)
        if len(data) != count * dtype.itemsize:
            raise CheckpointFormatError(f"entry for {entry.name} has {len(data)} bytes, not the "
                                        f"{count * dtype.itemsize} its shape {list(entry.shape)} needs")
        return np.frombuffer(data, dtype).reshape(entry.shape).astype(dtype.newbyteorder("="))


# -- the table: blocks of prefix-compressed keys ---------------------------------------------------------------
def _table_items(table):
    """(key, value) of every entry of a LevelDB-style table, in key order."""
    if len(table) < _FOOTER or struct.unpack("<Q", table[-8:])[0] != _MAGIC:
        raise CheckpointFormatError("the index is not a table (bad magic number)")
    footer = table[-_FOOTER:]
    _meta, pos = _handle(footer, 0)
    index, _ = _handle(footer, pos)
    for _key, handle in _block_items(_block(table, index)):
        yield from _block_items(_block(table, _handle(handle, 0)[0]))


def _handle(buf, pos):
    """A block handle (offset, size) at ``pos``; returns it and the position after it."""
    offset, pos = _varint(buf, pos)
    size, pos = _varint(buf, pos)
    return (offset, size), pos


def _block(table, handle):
    offset, size = handle
    if offset + size + _TRAILER > len(table):
        raise CheckpointFormatError("a block runs past the end of the index")
    if table[offset + size] != 0:  # TF writes checkpoint indexes uncompressed
        raise CheckpointFormatError(f"a block is compressed (type {table[offset + size]})")
    return table[offset:offset + size]


def _block_items(block):
    """A block's entries: each key shares a prefix with the one before (restart points aside)."""
    if len(block) < 4:
        raise CheckpointFormatError("a block is too short")
    restarts = struct.unpack("<I", block[-4:])[0]
    end = len(block) - 4 * (restarts + 1)
    if end < 0:
        raise CheckpointFormatError("a block's restart array is larger than the block")
    pos, key = 0, b""
    while pos < end:
        shared, pos = _varint(block, pos)
        own, pos = _varint(block, pos)
        length, pos = _varint(block, pos)
        if shared > len(key) or pos + own + length > end:
            raise CheckpointFormatError("a block entry runs past its block")
        key = key[:shared] + block[pos:pos + own]
        pos += own
        yield key, block[pos:pos + length]
        pos += length


# -- protobuf wire format (framework/wire.py): BundleHeaderProto, BundleEntryProto, TensorShapeProto --
def _varint(buf, pos):
    return wire.read_varint(buf, pos, CheckpointFormatError)


def _fields(buf):
    """{field number: [values]} of a serialized message: ints for varints and fixed fields, bytes
    for the rest."""
    out = {}
    for number, kind, value in wire.read_fields(buf, CheckpointFormatError):
        out.setdefault(number, []).append(int.from_bytes(value, "little") if kind in (1, 5) else value)
    return out


def _one(fields, number, default):
    return fields[number][-1] if number in fields else default


def _shape(buf):
    """A TensorShapeProto's dims (field 2; each dim's size is its field 1)."""
    dims = [_one(_fields(d), 1, 0) for d in _fields(buf).get(2, [])]
    dims = [d - (1 << 64) if d >= 1 << 63 else d for d in dims]  # int64 -1 (unknown) as a varint
    if any(d < 0 for d in dims):
        raise CheckpointFormatError(f"a saved tensor has an unknown dimension ({dims})")
    return tuple(dims)


def _strings(data, count, name):
    """A string tensor's bytes: every length (varint), a 4-byte checksum of them, then the strings."""
    lengths, pos = [], 0
    for _ in range(count):
        n, pos = _varint(data, pos)
        lengths.append(n)
    pos += 4  # the lengths' checksum
    if pos + sum(lengths) != len(data) and not (count == 0 and len(data) == 0):
        raise CheckpointFormatError(f"entry for {name} is truncated or corrupt (string lengths do not add up)")
    out = np.empty(count, dtype=object)
    for i, n in enumerate(lengths):
        out[i] = bytes(data[pos:pos + n])
        pos += n
    return out
