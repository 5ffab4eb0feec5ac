"""Data types, named as TensorFlow names them, each backed by a numpy dtype.

A *reference* dtype (``float32_ref``) marks the output of a ref variable: ops that take it
by reference (Assign, AssignAdd) write the variable instead of reading a copy.
"""
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
_BY_NAME = {}
for _name, _np in list(_BASE.items()) + list(_STAND_INS.items()):
    _BY_NAME[_name] = DType(_name, _np)
    _BY_NAME[_name + "_ref"] = DType(_name, _np, is_ref=True)

float16, float32, float64 = _BY_NAME["float16"], _BY_NAME["float32"], _BY_NAME["float64"]
int8, int16, int32, int64 = _BY_NAME["int8"], _BY_NAME["int16"], _BY_NAME["int32"], _BY_NAME["int64"]
uint8, bool, string = _BY_NAME["uint8"], _BY_NAME["bool"], _BY_NAME["string"]  # noqa: A001 - TF's names
half, double = float16, float64
resource, variant = _BY_NAME["resource"], _BY_NAME["variant"]  # handles (stacks, TensorArrays) and opaque values


def as_dtype(value):
    """Converts a DType, a dtype name, a numpy dtype or a Python type to a DType."""
    if isinstance(value, DType):
        return value
    if isinstance(value, str) and value in _BY_NAME:
        return _BY_NAME[value]
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


def infer_dtype(value):
    """The dtype TensorFlow gives a Python or numpy constant: floats are float32, ints int32."""
    arr = np.asarray(value)
    if arr.dtype == np.float64 and not isinstance(value, np.ndarray):
        return float32
    if arr.dtype == np.int64 and not isinstance(value, (np.ndarray, np.generic)):
        return int32 if arr.size == 0 or -2**31 <= arr.min() and arr.max() < 2**31 else int64
    return as_dtype(arr.dtype)
