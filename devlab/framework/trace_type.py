"""TF's trace-type serialization for the traceable types devlab has, ``DType`` and ``TensorShape``
(``tensorflow.core.function.trace_type``): ``serialize`` packs a dtype as TF packs it (a
``SerializedDType`` message holding the DataType enum) and a shape as a ``TensorShapeProto``;
``deserialize`` turns that back into the dtype or shape. Anything else is refused with TF's
ValueError. The messages are written by hand (framework/wire.py): no protobuf needed."""
import collections

from . import dtypes
from .tensor_shape import TensorShape
from .wire import encode_field, encode_varint, read_fields

_DTYPE_URL = "type.googleapis.com/tensorflow.SerializedDType"
_SHAPE_URL = "type.googleapis.com/tensorflow.TensorShapeProto"

# TF's SerializedTraceType keeps its message in a protobuf ``Any``: a type URL and the bytes
SerializedTraceType = collections.namedtuple("SerializedTraceType", ["type_url", "value"])


def _varint(n):
    out = bytearray()
    while True:
        byte, n = n & 0x7F, n >> 7
        out.append(byte | (0x80 if n else 0))
        if not n:
            return bytes(out)


def serialize(to_serialize):
    """The SerializedTraceType of a DType (field 1, ``datatype``, of SerializedDType) or of a
    TensorShape (TensorShapeProto: field 2 a dim with its size in field 1, field 3 unknown_rank)."""
    if isinstance(to_serialize, TensorShape):
        if to_serialize.sizes is None:
            return SerializedTraceType(_SHAPE_URL, b"\x18\x01")
        return SerializedTraceType(_SHAPE_URL, b"".join(
            encode_field(2, b"\x08" + encode_varint(-1 if d is None else d)) for d in to_serialize.sizes))
    if not isinstance(to_serialize, dtypes.DType):
        raise ValueError(f"Can not serialize {type(to_serialize).__name__} since it is not Serializable. "
                         f"For object {to_serialize}")
    return SerializedTraceType(_DTYPE_URL, b"\x08" + _varint(to_serialize.as_datatype_enum))


def deserialize(proto):
    """The interned DType or the TensorShape a ``serialize`` result stands for."""
    if proto.type_url == _SHAPE_URL:
        return _shape(proto.value)
    if proto.type_url != _DTYPE_URL or proto.value[:1] != b"\x08":
        raise ValueError("Can not deserialize proto of url: ", proto.type_url,
                         " since no matching Python class could be found. For value ", proto.value)
    enum, shift = 0, 0
    for byte in proto.value[1:]:
        enum |= (byte & 0x7F) << shift
        shift += 7
        if not byte & 0x80:
            break
    return dtypes.as_dtype(enum)


def _shape(data):
    dims, unknown_rank = [], False
    for number, _, value in read_fields(data, ValueError):
        if number == 3:
            unknown_rank = bool(value)
        elif number == 2:
            size = next((v for n, _, v in read_fields(value, ValueError) if n == 1), 0)
            size -= (1 << 64) if size >= 1 << 63 else 0  # an int64's two's complement
            dims.append(None if size == -1 else size)
    return TensorShape(None if unknown_rank else dims)
