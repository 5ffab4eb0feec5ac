"""Parsing ``tf.train.Example`` records and raw bytes in the graph: ``tf.parse_example``,
``tf.parse_single_example`` (``FixedLenFeature``, ``VarLenFeature``), ``tf.decode_raw``, and
``tf.TFRecordReader``.

Both parse functions build TF's ``ParseExampleV2`` op, the single form on the scalar record
(``ParseSingleExample/ParseExample/ParseExampleV2``, as TF 2.21 names it). A ``VarLenFeature``
gives a SparseTensor: per record, as many values as it holds (``[batch, longest]``).
"""
import collections

from ..framework import dtypes as dtypes_mod
from ..framework.scopes import name_scope
from ..framework.tensor_shape import TensorShape
from ..ops.build import apply_op, constant, convert_to_tensor
from ..ops.sparse_tensor import SparseTensor

FixedLenFeature = collections.namedtuple("FixedLenFeature", ["shape", "dtype", "default_value"])
FixedLenFeature.__new__.__defaults__ = (None,)
VarLenFeature = collections.namedtuple("VarLenFeature", ["dtype"])

_PARSE_TYPES = (dtypes_mod.string, dtypes_mod.float32, dtypes_mod.int64)


def _check_features(features):
    if not isinstance(features, dict) or not features:
        raise ValueError("Missing: features was {}." if not features else "features must be a dict")
    for key, f in features.items():
        if not isinstance(f, (FixedLenFeature, VarLenFeature)):
            raise NotImplementedError(f"parse_example: {type(f).__name__} ({key!r}) is not supported by devlab; "
                                      "use a FixedLenFeature")
        if dtypes_mod.as_dtype(f.dtype) not in _PARSE_TYPES:
            raise ValueError(f"Unsupported dtype {dtypes_mod.as_dtype(f.dtype).name} for feature {key!r}: "
                             "expected one of string, float32, int64")


def _parse(serialized, features):
    """``{key: Tensor or SparseTensor}``: one ParseExampleV2 op, the sparse keys and the dense keys
    each in order of name, as TF orders them."""
    dense_keys = sorted(k for k in features if isinstance(features[k], FixedLenFeature))
    sparse_keys = sorted(k for k in features if isinstance(features[k], VarLenFeature))
    defaults = []
    for key in dense_keys:
        f = features[key]
        default = [] if f.default_value is None else f.default_value
        defaults.append(constant(default, dtype=dtypes_mod.as_dtype(f.dtype), name="Const"))
    inputs = [serialized, constant([], dtype=dtypes_mod.string, name="ParseExampleV2/names"),
              constant(sparse_keys, dtype=dtypes_mod.string, name="ParseExampleV2/sparse_keys"),
              constant(dense_keys, dtype=dtypes_mod.string, name="ParseExampleV2/dense_keys"),
              constant([], dtype=dtypes_mod.string, name="ParseExampleV2/ragged_keys")] + defaults
    attrs = {"Tdense": [dtypes_mod.as_dtype(features[k].dtype) for k in dense_keys], "num_sparse": len(sparse_keys),
             "sparse_types": [dtypes_mod.as_dtype(features[k].dtype) for k in sparse_keys],
             "ragged_value_types": [], "ragged_split_types": [],
             "dense_shapes": [tuple(TensorShape(features[k].shape).dims) for k in dense_keys]}
    outputs = apply_op("ParseExampleV2", inputs, attrs, "ParseExampleV2").outputs
    n = len(sparse_keys)
    out = {key: SparseTensor(outputs[i], outputs[n + i], outputs[2 * n + i]) for i, key in enumerate(sparse_keys)}
    out.update(zip(dense_keys, outputs[3 * n:]))
    return out


def parse_example(serialized, features, name=None, example_names=None):
    """``{key: Tensor}`` for a batch of serialized Examples (one row each)."""
    if example_names is not None:
        raise NotImplementedError("parse_example(example_names=...): devlab names examples <unknown> in its errors")
    _check_features(features)
    with name_scope(name or "ParseExample"):
        return _parse(convert_to_tensor(serialized, dtypes_mod.string), features)


def parse_single_example(serialized, features, name=None, example_names=None):
    """``{key: Tensor}`` for one serialized Example (a scalar string)."""
    if example_names is not None:
        raise NotImplementedError("parse_single_example(example_names=...): devlab names examples <unknown>")
    _check_features(features)
    with name_scope(name or "ParseSingleExample"):
        serialized = convert_to_tensor(serialized, dtypes_mod.string)
        if serialized.shape.ndims not in (None, 0):
            raise ValueError(f"Shape {serialized.shape} must have rank 0")
        with name_scope("ParseExample"):
            return _parse(serialized, features)


def decode_raw(input_bytes=None, out_type=None, little_endian=True, name=None, bytes=None):  # noqa: A002
    """The bytes of each string as numbers of ``out_type`` (a new last dimension)."""
    data = input_bytes if input_bytes is not None else bytes
    if data is None or out_type is None:
        raise TypeError("decode_raw() needs the bytes and out_type")
    data = convert_to_tensor(data, dtypes_mod.string)
    return apply_op("DecodeRaw", [data], {"out_type": dtypes_mod.as_dtype(out_type),
                                          "little_endian": bool(little_endian)}, name or "DecodeRaw").outputs[0]


class TFRecordReader:
    """``tf.TFRecordReader()``: ``read(queue)`` gives (key, value), the next record of the files
    whose names the queue holds."""

    def __init__(self, name=None, options=None):
        if options is not None:
            raise NotImplementedError("TFRecordReader(options=...): devlab reads uncompressed files only")
        self._reader_ref = apply_op("TFRecordReaderV2", [], {"container": b"", "shared_name": "",
                                                             "compression_type": ""},
                                    name or "TFRecordReaderV2").outputs[0]

    @property
    def reader_ref(self):
        return self._reader_ref

    def read(self, queue, name=None):
        queue_ref = queue if hasattr(queue, "dtype") else queue.queue_ref
        key, value = apply_op("ReaderReadV2", [self._reader_ref, queue_ref], None, name or "ReaderReadV2").outputs
        return key, value
