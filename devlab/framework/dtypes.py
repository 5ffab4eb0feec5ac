"""Data types, named as TensorFlow names them, each backed by a numpy dtype.

A *reference* dtype (``float32_ref``) marks the output of a ref variable: ops that take it
by reference (Assign, AssignAdd) write the variable instead of reading a copy.
"""
import builtins

import numpy as np


class DType:
    """A tensor element type: ``float32``, ``int32``... or its reference form ``float32_ref``."""

    def __init__(self, name, np_dtype, is_ref=False):
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
        if self.base_dtype.name == "bfloat16":
            return True
        return np.issubdtype(self.as_numpy_dtype, np.floating)

    @property
    def is_integer(self):
        if self.base_dtype.name in _STAND_INS:
            return False  # bfloat16, the quantized types, resource and variant
        return np.issubdtype(self.as_numpy_dtype, np.integer)

    @property
    def is_bool(self):
        return self.as_numpy_dtype is np.bool_

    @property
    def is_complex(self):
        return self.base_dtype.name in ("complex64", "complex128")

    @property
    def is_unsigned(self):
        return self.base_dtype.name in ("uint8", "uint16", "uint32", "uint64")

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
        low, high = self._limits()
        return (0, high) if clip_negative and self.is_unsigned else (low, high)

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
# TensorFlow's DataType enum values (types.proto)
DT_ENUM = {"float32": 1, "float64": 2, "int32": 3, "uint8": 4, "int16": 5, "int8": 6, "string": 7, "complex64": 8,
           "int64": 9, "bool": 10, "qint8": 11, "quint8": 12, "qint32": 13, "bfloat16": 14, "qint16": 15,
           "quint16": 16, "uint16": 17, "complex128": 18, "float16": 19, "resource": 20, "variant": 21,
           "uint32": 22, "uint64": 23}
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
# The reference dtypes by name (``dtypes.float32_ref``), as TF's dtypes module has them
globals().update({name: dt for name, dt in _BY_NAME.items() if dt.is_ref})


def as_dtype(type_value):  # TF's argument name
    value = type_value
    """Converts a DType, a dtype name, a numpy dtype or a Python type to a DType."""
    if isinstance(value, DType):
        return value
    if isinstance(value, str) and value in _BY_NAME:
        return _BY_NAME[value]
    if isinstance(value, int) and not isinstance(value, (builtins.bool, np.bool_)):  # a DataType enum value
        base = _BY_ENUM.get(value % 100 if value > 100 else value)
        if base is None or value in (0, 100):
            raise TypeError(f"Cannot convert value {value!r} to a TensorFlow DType.")
        return base._as_ref if value > 100 else base
    try:
        npd = np.dtype(value)
    except (TypeError, ValueError, SyntaxError):  # numpy parses some strings (b",") as Python code
        raise TypeError(f"Cannot convert value {value!r} to a TensorFlow DType.") from None
    if npd.kind in "OUS":
        return string
    for dt in _BY_NAME.values():
        if not dt.is_ref and dt.name not in _STAND_INS and np.dtype(dt.as_numpy_dtype) == npd:
            return dt
    raise TypeError(f"Cannot convert value {value!r} to a TensorFlow DType.")


_BY_ENUM = {code: _BY_NAME[name] for name, code in DT_ENUM.items()}


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
