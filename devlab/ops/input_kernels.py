"""The kernels of TF1's queue-based input pipeline: reading TFRecord files (``TFRecordReaderV2``,
``ReaderReadV2``), parsing ``tf.train.Example`` records (``ParseExampleV2``, dense features),
``DecodeRaw`` and ``CountUpTo`` (the epoch limit of ``string_input_producer``).

A reader is a resource of its device, as a queue is: it reads the file it has open record by
record and, at its end, dequeues the next file name from the queue the read op names (waiting
as a dequeue waits; a closed, empty queue ends the input with OutOfRangeError).
"""
import numpy as np

from ..framework import dtypes, errors
from . import example_proto, tfrecord
from .fifo_queue import FIFOQueue
from .resource_mgr import resources_of


# -- shapes -----------------------------------------------------------------------------------------
def reader_handle(inputs, attrs):
    return [(dtypes.resource, ())]


def key_value(inputs, attrs):
    return [(dtypes.string, ()), (dtypes.string, ())]


def decode_raw_shape(inputs, attrs):
    sizes = inputs[0].shape.sizes
    return [(attrs["out_type"], None if sizes is None else tuple(sizes) + (None,))]


def parse_example_shape(inputs, attrs):
    """ParseExampleV2's outputs: the sparse indices, values and shapes, then the dense values."""
    n = attrs["num_sparse"]
    batch = inputs[0].shape.sizes
    lead = None if batch is None else tuple(batch)
    rank = None if batch is None else len(batch) + 1  # a scalar record gives index vectors of length 1
    out = [(dtypes.int64, (None, rank)) for _ in range(n)]
    out += [(t, (None,)) for t in attrs["sparse_types"]]
    out += [(dtypes.int64, (rank,)) for _ in range(n)]
    out += [(t, None if lead is None else lead + tuple(s)) for t, s in zip(attrs["Tdense"], attrs["dense_shapes"])]
    return out


def matching_files_shape(inputs, attrs):
    """MatchingFiles: a vector of names, as many as match."""
    return [(dtypes.string, (None,))]


# -- kernels ----------------------------------------------------------------------------------------
class TFRecordReader:
    """A reader's state: the file it reads and how many records it has produced."""

    def __init__(self, name):
        self.name = name
        self.file, self.records, self.index = None, None, 0
        self.produced = 0

    def read(self, queue):
        while True:
            if self.records is not None:
                record = next(self.records, None)
                if record is not None:
                    key = f"{self.file}:{self.index}".encode()
                    self.index += 1
                    self.produced += 1
                    return key, record
            (name,) = queue.dequeue(1, np)  # waits for a file name (OutOfRangeError when closed)
            self.file = name.item().decode() if hasattr(name, "item") else bytes(name).decode()
            try:
                stream = open(self.file, "rb")
            except OSError as e:
                raise errors.NotFoundError(None, None, f"{self.file}; {e.strerror}") from None
            with stream:
                self.records, self.index = iter(list(tfrecord.records(stream, self.file))), 0


def tf_record_reader_v2(k):
    a = k.attrs
    if a.get("compression_type"):
        raise errors.UnimplementedError(None, None, f"devlab reads uncompressed TFRecord files only "
                                        f"(compression_type={a['compression_type']!r})")
    handle, _ = resources_of(k).create(a.get("container", ""), a.get("shared_name", ""), k.op_name, TFRecordReader)
    return handle


def reader_read_v2(k, reader_handle, queue_handle):
    reader = resources_of(k).lookup(reader_handle, TFRecordReader)
    queue = resources_of(k).lookup(queue_handle, FIFOQueue)
    key, value = reader.read(queue)
    return np.array(key, dtype=object), np.array(value, dtype=object)


def decode_raw(k, data):
    out_type = k.attrs["out_type"].as_numpy_dtype
    dt = np.dtype(out_type).newbyteorder("<" if k.attrs.get("little_endian", True) else ">")
    arr = np.asarray(data, dtype=object)
    flat = [bytes(b) for b in arr.reshape(-1)]
    sizes = {len(b) for b in flat}
    if flat and len(sizes) > 1:
        raise errors.InvalidArgumentError(
            None, None, f"DecodeRaw requires input strings to all be the same size, but element 1 has size "
            f"{len(flat[1])} != {len(flat[0])}")
    n = len(flat[0]) if flat else 0
    if n % dt.itemsize:
        raise errors.InvalidArgumentError(
            None, None, f"Input to DecodeRaw has length {n} that is not a multiple of {dt.itemsize}, the size of "
            f"{k.attrs['out_type'].name}")
    out = np.empty(arr.shape + (n // dt.itemsize,), dtype=out_type)
    for i, b in enumerate(flat):
        out.reshape(-1, n // dt.itemsize)[i] = np.frombuffer(b, dtype=dt)
    return out


def _feature_values(feature, dtype, key):
    kind = feature.kind
    want = {dtypes.string: "bytes_list", dtypes.float32: "float_list", dtypes.int64: "int64_list"}[dtype.base_dtype]
    if kind is not None and kind != want:
        names = {"bytes_list": "string", "float_list": "float", "int64_list": "int64"}
        raise errors.InvalidArgumentError(
            None, None, f"Name: <unknown>, Feature: {key}.  Data types don't match. Data type: {names[kind]} but "
            f"expected type: {dtype.base_dtype.name}")
    return feature.list.value if kind is not None else []


def parse_example_v2(k, serialized, names, sparse_keys, dense_keys, ragged_keys, *dense_defaults):
    a = k.attrs
    batch = np.asarray(serialized, dtype=object)
    examples = [example_proto.Example.FromString(bytes(s)).features.feature for s in batch.reshape(-1)]
    outputs_sparse_idx, outputs_sparse_val, outputs_sparse_shape = [], [], []
    for key, t in zip(np.asarray(sparse_keys, dtype=object).reshape(-1), a["sparse_types"]):
        key = bytes(key).decode()
        idx, vals, longest = [], [], 0
        for row, ex in enumerate(examples):
            got = _feature_values(ex[key], t, key) if key in ex else []
            idx.extend(((row, j) if batch.ndim else (j,)) for j in range(len(got)))
            vals.extend(got)
            longest = max(longest, len(got))
        width = 2 if batch.ndim else 1  # one record (a scalar) has no batch index
        outputs_sparse_idx.append(np.array(idx, np.int64).reshape(-1, width))
        outputs_sparse_val.append(np.array(vals, dtype=object if t == dtypes.string else t.as_numpy_dtype))
        outputs_sparse_shape.append(np.array([len(examples), longest] if batch.ndim else [longest], np.int64))
    dense = []
    for key, t, shape, default in zip(np.asarray(dense_keys, dtype=object).reshape(-1), a["Tdense"],
                                      a["dense_shapes"], dense_defaults):
        key = bytes(key).decode()
        shape = tuple(shape)
        size = int(np.prod(shape)) if shape else 1
        np_type = object if t == dtypes.string else t.as_numpy_dtype
        rows = []
        for ex in examples:
            if key in ex:
                got = _feature_values(ex[key], t, key)
                if len(got) != size:
                    raise errors.InvalidArgumentError(
                        None, None, f"Name: <unknown>, Key: {key}, Index: 0.  Number of {t.base_dtype.name} values "
                        f"!= expected.  Values size: {len(got)} but output shape: [{', '.join(map(str, shape))}]")
                rows.append(np.array(got, dtype=np_type).reshape(shape))
            else:
                d = np.asarray(default, dtype=np_type)
                if d.size == 0:
                    raise errors.InvalidArgumentError(
                        None, None, f"Name: <unknown>, Feature: {key} (data type: {t.base_dtype.name}) is required "
                        "but could not be found.")
                rows.append(np.broadcast_to(d, shape).copy())
        out = np.stack(rows) if rows else np.zeros((0,) + shape, np_type)
        dense.append(out.reshape(batch.shape + shape))
    out = outputs_sparse_idx + outputs_sparse_val + outputs_sparse_shape + dense
    return out[0] if len(out) == 1 else tuple(out)  # an op of one output returns its value


def matching_files(k, pattern):
    """The file names matching the glob pattern(s), sorted (TF's MatchingFiles); none is an error."""
    import glob
    patterns = [bytes(p).decode() if not isinstance(p, str) else p
                for p in np.asarray(pattern, dtype=object).reshape(-1)]
    names = sorted(n for p in patterns for n in glob.glob(p))
    if not names and np.asarray(pattern).ndim == 0:
        raise errors.NotFoundError(None, None, f"{patterns[0]}: No such file or directory")
    return np.array([n.encode() for n in names], dtype=object)
