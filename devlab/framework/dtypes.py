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
        return np.issubdtype(self.as_numpy_dtype, np.floating)

    @property
    def is_integer(self):
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
}
_BY_NAME = {}
for _name, _np in _BASE.items():
    _BY_NAME[_name] = DType(_name, _np)
    _BY_NAME[_name + "_ref"] = DType(_name, _np, is_ref=True)

float16, float32, float64 = _BY_NAME["float16"], _BY_NAME["float32"], _BY_NAME["float64"]
int8, int16, int32, int64 = _BY_NAME["int8"], _BY_NAME["int16"], _BY_NAME["int32"], _BY_NAME["int64"]
uint8, bool, string = _BY_NAME["uint8"], _BY_NAME["bool"], _BY_NAME["string"]  # noqa: A001 - TF's names
half, double = float16, float64


def as_dtype(value):
    """Converts a DType, a dtype name, a numpy dtype or a Python type to a DType."""
    if isinstance(value, DType):
        return value
    if isinstance(value, str) and value in _BY_NAME:
        return _BY_NAME[value]
    try:
        npd = np.dtype(value)
    except TypeError:
        raise TypeError(f"Cannot convert value {value!r} to a TensorFlow DType.") from None
    if npd.kind in "OUS":
        return string
    for dt in _BY_NAME.values():
        if not dt.is_ref and np.dtype(dt.as_numpy_dtype) == npd:
            return dt
    raise TypeError(f"Cannot convert value {value!r} to a TensorFlow DType.")


def infer_dtype(value):
    """The dtype TensorFlow gives a Python or numpy constant: floats are float32, ints int32."""
    arr = np.asarray(value)
    if arr.dtype == np.float64 and not isinstance(value, np.ndarray):
        return float32
    if arr.dtype == np.int64 and not isinstance(value, np.ndarray):
        return int32
    return as_dtype(arr.dtype)
