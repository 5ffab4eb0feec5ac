"""TF's trace-type serialization for the one traceable type devlab has, ``DType``
(``tensorflow.core.function.trace_type``): ``serialize`` packs a dtype as TF packs it (a
``SerializedDType`` message holding the DataType enum) and ``deserialize`` turns that back into
the interned dtype. Anything else is refused with TF's ValueError."""
import collections

from . import dtypes

_DTYPE_URL = "type.googleapis.com/tensorflow.SerializedDType"

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
    """The SerializedTraceType of a DType: field 1 (``datatype``) of SerializedDType, as TF writes it."""
    if not isinstance(to_serialize, dtypes.DType):
        raise ValueError(f"Can not serialize {type(to_serialize).__name__} since it is not Serializable. "
                         f"For object {to_serialize}")
    return SerializedTraceType(_DTYPE_URL, b"\x08" + _varint(to_serialize.as_datatype_enum))


def deserialize(proto):
    """The interned DType a ``serialize`` result stands for."""
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
