"""Data types, named as TensorFlow names them, each backed by a numpy dtype.

A *reference* dtype (``float32_ref``) marks the output of a ref variable: ops that take it
by reference (Assign, AssignAdd) write the variable instead of reading a copy.
"""
import builtins

import numpy as np


class DType:
    """A tensor element type: ``float32``, ``int32``... or its reference form ``float32_ref``."""

    def __init__(self, name, np_dtype=None, is_ref=False):
        if np_dtype is None:  # TF's constructor, ``DType(type_enum)``: a copy of the interned dtype
            if not isinstance(name, int) or isinstance(name, builtins.bool):
                raise TypeError(f"Cannot convert value {name!r} to a TensorFlow DType.")
            interned = as_dtype(name)
            name, np_dtype, is_ref = interned.base_dtype.name, interned.as_numpy_dtype, interned.is_ref
        self.name = name + ("_ref" if is_ref else "")
        self.as_numpy_dtype = np_dtype
        self.is_ref = is_ref

    @property
    def base_dtype(self):
        return _BY_NAME[self.name[:-4]] if self.is_ref else self

    @property
    def _as_ref(self):
        return self if self.is_ref else _BY_NAME[self.name + "_ref"]

    @property
    def is_floating(self):
        if self.base_dtype.name == "bfloat16" or self.base_dtype.name in _NARROW_FLOATS:
            return True
        return np.issubdtype(self.as_numpy_dtype, np.floating)

    @property
    def is_integer(self):
        if self.base_dtype.name in _NARROW_INTS:
            return True
        if self.base_dtype.name in _STAND_INS:
            return False  # bfloat16, the quantized types, the 8- and 4-bit floats, resource and variant
        return np.issubdtype(self.as_numpy_dtype, np.integer)

    @property
    def is_bool(self):
        return self.as_numpy_dtype is np.bool_

    @property
    def is_complex(self):
        return self.base_dtype.name in ("complex64", "complex128")

    @property
    def is_unsigned(self):
        return self.base_dtype.name in ("uint8", "uint16", "uint32", "uint64", "uint4", "uint2")

    @property
    def is_quantized(self):
        return self.base_dtype.name in _QUANTIZED

    @property
    def is_numpy_compatible(self):
        return self.base_dtype.name not in ("resource", "variant")

    @property
    def real_dtype(self):
        """float32 for complex64, float64 for complex128, else the dtype itself (TF's rule)."""
        return {"complex64": float32, "complex128": float64}.get(self.base_dtype.name, self)

    @property
    def as_datatype_enum(self):
        """TF's DataType enum value (a ref type is its base's + 100)."""
        return DT_ENUM[self.base_dtype.name] + (100 if self.is_ref else 0)

    def _limits(self):
        name = self.base_dtype.name
        if self.is_quantized:
            raise TypeError(f"Cannot find minimum value of <dtype: '{name}'> with quantized type <dtype: '{name}'>.")
        if name in ("bool", "string", "complex64", "complex128", "resource", "variant"):
            raise TypeError(f"Cannot find minimum value of <dtype: '{name}'>.")
        if name == "bfloat16":  # the largest finite bfloat16, (2 - 2**-7) * 2**127
            return -3.3895313892515355e38, 3.3895313892515355e38
        if name in _NARROW_LIMITS:
            return _NARROW_LIMITS[name]
        info = np.finfo(self.as_numpy_dtype) if self.is_floating else np.iinfo(self.as_numpy_dtype)
        return info.min, info.max

    @property
    def min(self):
        return self._limits()[0]

    @property
    def max(self):
        return self._limits()[1]

    @property
    def limits(self, clip_negative=True):
        """TF's image-intensity range of the type. TF makes this a property, so ``clip_negative``
        keeps its default: the low end is always 0 (as TF returns it), and a type outside TF's
        table (float16, string...) is a ValueError."""
        if self.base_dtype.name not in _INTENSITY:
            raise ValueError(f"<dtype: '{self.name}'> does not have defined limits.")
        low, high = _INTENSITY[self.base_dtype.name]
        return (0, high) if clip_negative else (low, high)

    def is_subtype_of(self, other):
        """TF's TraceType rule for a dtype: only the same dtype."""
        return self == other

    def most_specific_common_supertype(self, types):
        """This dtype when every one of ``types`` equals it, else None (TF's TraceType rule)."""
        return self if all(self == other for other in types) else None

    def __reduce__(self):  # pickles by name, as TF's does
        return as_dtype, (self.name,)

    def is_compatible_with(self, other):
        """True when a value of dtype ``other`` may be used where this dtype is expected: the
        same type, or this type's base given a ref (TF's rule)."""
        other = as_dtype(other)
        return self.name in (other.name, other.base_dtype.name)

    @property
    def tf_type_name(self):
        """The name TF's C++ runtime prints in messages (``float`` for float32, ``double``...)."""
        return {"float32": "float", "float64": "double", "float16": "half"}.get(self.base_dtype.name,
                                                                                self.base_dtype.name)

    @property
    def size(self):
        return np.dtype(self.as_numpy_dtype).itemsize

    def __eq__(self, other):
        try:
            return self.name == as_dtype(other).name
        except TypeError:
            return False

    def __hash__(self):
        return hash(self.name)

    def __repr__(self):
        return f"tf.{self.name}"


_BASE = {
    "float16": np.float16, "float32": np.float32, "float64": np.float64,
    "int8": np.int8, "int16": np.int16, "int32": np.int32, "int64": np.int64,
    "uint8": np.uint8, "bool": np.bool_, "string": np.object_,
    "uint16": np.uint16, "uint32": np.uint32, "uint64": np.uint64,
    "complex64": np.complex64, "complex128": np.complex128,
}
# TensorFlow's types that numpy has no dtype for. Graph files (``devlab.load_graph``) carry them;
# devlab places and models such tensors but never computes with them, so numpy stands in only
# for the element size (after the real types above, so ``as_dtype(np.int8)`` stays int8).
_STAND_INS = {
    "bfloat16": np.uint16, "qint8": np.int8, "quint8": np.uint8, "qint16": np.int16,
    "quint16": np.uint16, "qint32": np.int32, "resource": np.object_, "variant": np.object_,
}
_QUANTIZED = ("qint8", "quint8", "qint16", "quint16", "qint32")
# The 8- and 4-bit floats and the 4- and 2-bit integers TF takes from ml_dtypes: stand-ins too
# (numpy holds their bytes; ``as_dtype`` never maps a numpy dtype to them), with TF's limits.
_NARROW_LIMITS = {"float8_e5m2": (-57344.0, 57344.0), "float8_e4m3fn": (-448.0, 448.0),
                  "float8_e4m3fnuz": (-240.0, 240.0), "float8_e4m3b11fnuz": (-30.0, 30.0),
                  "float8_e5m2fnuz": (-57344.0, 57344.0), "int4": (-8, 7), "uint4": (0, 15), "int2": (-2, 1),
                  "uint2": (0, 3), "float4_e2m1fn": (-6.0, 6.0)}
_NARROW_FLOATS = ("float8_e5m2", "float8_e4m3fn", "float8_e4m3fnuz", "float8_e4m3b11fnuz", "float8_e5m2fnuz",
                  "float4_e2m1fn")
_NARROW_INTS = ("int4", "uint4", "int2", "uint2")
_STAND_INS.update({name: np.uint8 for name in _NARROW_FLOATS})
_STAND_INS.update({"int4": np.int8, "uint4": np.uint8, "int2": np.int8, "uint2": np.uint8})
# TF's ``dtype_range`` (for ``DType.limits``): float32 and float64 are image intensities in [-1, 1]
_INTENSITY = {"bool": (False, True), "uint8": (0, 255), "uint16": (0, 65535), "int8": (-128, 127),
              "int16": (-32768, 32767), "int64": (-(2**63), 2**63 - 1), "uint64": (0, 2**64 - 1),
              "int32": (-(2**31), 2**31 - 1), "uint32": (0, 2**32 - 1), "float32": (-1, 1), "float64": (-1, 1)}
# TensorFlow's DataType enum values (types.proto)
DT_ENUM = {"float32": 1, "float64": 2, "int32": 3, "uint8": 4, "int16": 5, "int8": 6, "string": 7, "complex64": 8,
           "int64": 9, "bool": 10, "qint8": 11, "quint8": 12, "qint32": 13, "bfloat16": 14, "qint16": 15,
           "quint16": 16, "uint16": 17, "complex128": 18, "float16": 19, "resource": 20, "variant": 21,
           "uint32": 22, "uint64": 23, "float8_e5m2": 24, "float8_e4m3fn": 25, "float8_e4m3fnuz": 26,
           "float8_e4m3b11fnuz": 27, "float8_e5m2fnuz": 28, "int4": 29, "uint4": 30, "int2": 31, "uint2": 32,
           "float4_e2m1fn": 33}
_BY_NAME = {}
for _name, _np in list(_BASE.items()) + list(_STAND_INS.items()):
    _BY_NAME[_name] = DType(_name, _np)
    _BY_NAME[_name + "_ref"] = DType(_name, _np, is_ref=True)

float16, float32, float64 = _BY_NAME["float16"], _BY_NAME["float32"], _BY_NAME["float64"]
int8, int16, int32, int64 = _BY_NAME["int8"], _BY_NAME["int16"], _BY_NAME["int32"], _BY_NAME["int64"]
uint8, bool, string = _BY_NAME["uint8"], _BY_NAME["bool"], _BY_NAME["string"]  # noqa: A001 - TF's names
half, double = float16, float64
resource, variant = _BY_NAME["resource"], _BY_NAME["variant"]  # handles (stacks, TensorArrays) and opaque values
uint16, uint32, uint64 = _BY_NAME["uint16"], _BY_NAME["uint32"], _BY_NAME["uint64"]
complex64, complex128, bfloat16 = _BY_NAME["complex64"], _BY_NAME["complex128"], _BY_NAME["bfloat16"]
qint8, quint8, qint16, quint16, qint32 = (_BY_NAME[n] for n in _QUANTIZED)
float8_e5m2, float8_e4m3fn, float8_e4m3fnuz = _BY_NAME["float8_e5m2"], _BY_NAME["float8_e4m3fn"], _BY_NAME["float8_e4m3fnuz"]
float8_e4m3b11fnuz, float8_e5m2fnuz = _BY_NAME["float8_e4m3b11fnuz"], _BY_NAME["float8_e5m2fnuz"]
int4, uint4, int2, uint2, float4_e2m1fn = (_BY_NAME[n] for n in ("int4", "uint4", "int2", "uint2", "float4_e2m1fn"))
# The reference dtypes by name (``dtypes.float32_ref``), as TF's dtypes module has them
globals().update({name: dt for name, dt in _BY_NAME.items() if dt.is_ref})


def as_dtype(type_value):  # TF's argument name
    """Converts a DType, a dtype name, a numpy dtype or a Python type to a DType."""
    value = type_value
    if value is None:  # numpy would read None as float64; TF refuses it (so no DType equals None)
        raise TypeError("Cannot convert the argument `type_value`: None to a TensorFlow DType.")
    if isinstance(value, DType):
        return _BY_NAME[value.name]  # the interned one, also for a ``DType(enum)`` copy (TF's rule)
    for python_type, dtype in ((builtins.float, float32), (builtins.bool, bool), (builtins.object, string)):
        if value is python_type:  # TF's _PYTHON_TO_TF (numpy would make float a float64)
            return dtype
    if isinstance(value, str) and value in _BY_NAME:
        return _BY_NAME[value]
    if isinstance(value, int) and not isinstance(value, (builtins.bool, np.bool_)):  # a DataType enum value
        base = _BY_ENUM.get(value % 100 if value > 100 else value)
        if base is None or value in (0, 100):
            raise TypeError(f"Cannot convert the argument `type_value`: {value!r} to a TensorFlow DType.")
        return base._as_ref if value > 100 else base
    try:
        npd = np.dtype(value)
    except (TypeError, ValueError, SyntaxError):  # numpy parses some strings (b",") as Python code
        raise TypeError(f"Cannot convert the argument `type_value`: {value!r} to a TensorFlow DType.") from None
    if npd.kind in "OUS":
        return string
    for dt in _BY_NAME.values():
        if not dt.is_ref and dt.name not in _STAND_INS and np.dtype(dt.as_numpy_dtype) == npd:
            return dt
    raise TypeError(f"Cannot convert the argument `type_value`: {value!r} to a TensorFlow DType.")


_BY_ENUM = {code: _BY_NAME[name] for name, code in DT_ENUM.items()}
# TF's enum -> name table, the reference types included (``DType(enum)`` for each)
_TYPE_TO_STRING = {**{code: name for name, code in DT_ENUM.items()},
                   **{code + 100: name + "_ref" for name, code in DT_ENUM.items()}}
# The value types (TF's set: every dtype but the refs, resource and variant), in enum order
TF_VALUE_DTYPES = tuple(_BY_ENUM[code] for code in sorted(_BY_ENUM) if code not in (20, 21))


def infer_dtype(value):
    """The dtype TensorFlow gives a constant (TF's ``make_tensor_proto``): a numpy array or numpy
    scalar keeps its dtype (``np.int64(3)`` is int64); a Python number or list is float32 for
    floats and int32 for ints, unless an int does not fit in 32 bits (then int64)."""
    arr = np.asarray(value)
    if isinstance(value, (np.ndarray, np.generic)):
        return as_dtype(arr.dtype)
    if arr.dtype == np.float64:
        return float32
    if arr.dtype == np.int64:
        return int32 if arr.size == 0 or -2**31 <= arr.min() and arr.max() < 2**31 else int64
    return as_dtype(arr.dtype)
