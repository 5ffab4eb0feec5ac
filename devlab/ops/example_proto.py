"""``tf.train.Example`` in pure Python: the protocol buffer TF1 input pipelines store in TFRecord
files, written and read in the protobuf wire format (numpy is devlab's only hard dependency).

Example { Features features = 1 }; Features { map<string, Feature> feature = 1 };
Feature { oneof kind { BytesList bytes_list = 1; FloatList float_list = 2; Int64List int64_list = 3 } }.
Floats and int64s are written packed, as TF's C++ writes them; either form is read.
"""
import struct

from ..framework import errors, wire


# -- the wire format (framework/wire.py) ------------------------------------------------------------
def _bad_example(detail):
    return errors.InvalidArgumentError(None, None, f"Could not parse example input: {detail}")


_varint, _field = wire.encode_varint, wire.encode_field


def _read_varint(data, i):
    return wire.read_varint(data, i, _bad_example)


def _fields(data):
    return wire.read_fields(data, _bad_example)


# -- the messages -----------------------------------------------------------------------------------
class _List:
    def __init__(self, value=()):
        self.value = list(value)

    def __eq__(self, other):
        return type(self) is type(other) and self.value == other.value

    def __repr__(self):
        return f"{type(self).__name__}(value={self.value!r})"


class BytesList(_List):
    def __init__(self, value=()):
        super().__init__(v.encode() if isinstance(v, str) else bytes(v) for v in value)

    def encode(self):
        return b"".join(_field(1, v) for v in self.value)

    @classmethod
    def decode(cls, data):
        return cls(v for n, w, v in _fields(data) if n == 1 and w == 2)


class FloatList(_List):
    def __init__(self, value=()):
        super().__init__(float(struct.unpack("<f", struct.pack("<f", float(v)))[0]) for v in value)

    def encode(self):
        return _field(1, struct.pack(f"<{len(self.value)}f", *self.value)) if self.value else b""

    @classmethod
    def decode(cls, data):
        out = []
        for n, w, v in _fields(data):
            if n == 1 and w == 2:
                out.extend(struct.unpack(f"<{len(v) // 4}f", v))
            elif n == 1 and w == 5:
                out.extend(struct.unpack("<f", v))
        return cls(out)


class Int64List(_List):
    def __init__(self, value=()):
        super().__init__(int(v) for v in value)

    def encode(self):
        return _field(1, b"".join(_varint(v) for v in self.value)) if self.value else b""

    @classmethod
    def decode(cls, data):
        out = []
        for n, w, v in _fields(data):
            if n == 1 and w == 2:
                i = 0
                while i < len(v):
                    x, i = _read_varint(v, i)
                    out.append(x - (1 << 64) if x >= 1 << 63 else x)
            elif n == 1 and w == 0:
                out.append(v - (1 << 64) if v >= 1 << 63 else v)
        return cls(out)


_KINDS = (("bytes_list", BytesList, 1), ("float_list", FloatList, 2), ("int64_list", Int64List, 3))


class Feature:
    """One feature: a ``bytes_list``, ``float_list`` or ``int64_list``."""

    def __init__(self, bytes_list=None, float_list=None, int64_list=None):
        given = [(name, v) for name, v in (("bytes_list", bytes_list), ("float_list", float_list),
                                           ("int64_list", int64_list)) if v is not None]
        if len(given) > 1:
            raise ValueError("A Feature holds one of bytes_list, float_list and int64_list")
        self.kind, self.list = given[0] if given else (None, None)

    def WhichOneof(self, name):  # noqa: N802 - protobuf's method name
        if name != "kind":  # a Feature's one oneof, as protobuf says for any other name
            raise ValueError(f'Protocol message has no oneof "{name}" field.')
        return self.kind

    def __getattr__(self, name):
        for kind, cls, _ in _KINDS:
            if name == kind:
                return self.list if self.kind == kind else cls()
        raise AttributeError(name)

    def encode(self):
        for kind, _, number in _KINDS:
            if self.kind == kind:
                return _field(number, self.list.encode())
        return b""

    @classmethod
    def decode(cls, data):
        out = cls()
        for n, w, v in _fields(data):
            for kind, list_cls, number in _KINDS:
                if n == number and w == 2:
                    out.kind, out.list = kind, list_cls.decode(v)
        return out

    def __eq__(self, other):
        return isinstance(other, Feature) and (self.kind, self.list) == (other.kind, other.list)

    def __repr__(self):
        return f"Feature({self.kind}={self.list!r})"


class Features:
    def __init__(self, feature=None):
        self.feature = dict(feature or {})

    def encode(self):
        # map entries in the order they were added, as Python's protobuf writes them
        return b"".join(_field(1, _field(1, k.encode()) + _field(2, v.encode())) for k, v in self.feature.items())

    @classmethod
    def decode(cls, data):
        out = {}
        for n, w, entry in _fields(data):
            if n == 1 and w == 2:
                key, value = "", Feature()
                for en, ew, ev in _fields(entry):
                    if en == 1:
                        key = bytes(ev).decode()
                    elif en == 2:
                        value = Feature.decode(ev)
                out[key] = value
        return cls(out)

    def __eq__(self, other):
        return isinstance(other, Features) and self.feature == other.feature


class Example:
    """``tf.train.Example(features=tf.train.Features(feature={...}))``."""

    def __init__(self, features=None):
        self.features = features if features is not None else Features()

    def SerializeToString(self, deterministic=None):  # noqa: N802 - protobuf's method name
        return _field(1, self.features.encode())

    def ParseFromString(self, data):  # noqa: N802
        self.features = Features()
        for n, w, v in _fields(bytes(data)):
            if n == 1 and w == 2:
                self.features = Features.decode(v)
        return len(data)

    @classmethod
    def FromString(cls, data):  # noqa: N802
        out = cls()
        out.ParseFromString(data)
        return out

    def __eq__(self, other):
        return isinstance(other, Example) and self.features == other.features

    def __repr__(self):
        return f"Example(features={self.features.feature!r})"
