"""tf.DType's TF 2.21 surface beyond conversion: the 8/4/2-bit types (enum, kind, size, limits as
TF reports them), ``DType(enum)``, ``limits``, pickling, the TraceType rules and the trace-type
round trip, and ``as_dtype`` of Python's own types. Values are TF 2.21's (printed by the oracle)."""
import pickle

import numpy as np
import pytest

from devlab.framework import dtypes, trace_type

# name: (enum, is_floating, is_integer, is_unsigned, size, min, max), as TF 2.21 prints them
NARROW = {"float8_e5m2": (24, True, False, False, 1, -57344, 57344),
          "float8_e4m3fn": (25, True, False, False, 1, -448, 448),
          "float8_e4m3fnuz": (26, True, False, False, 1, -240, 240),
          "float8_e4m3b11fnuz": (27, True, False, False, 1, -30, 30),
          "float8_e5m2fnuz": (28, True, False, False, 1, -57344, 57344),
          "int4": (29, False, True, False, 1, -8, 7), "uint4": (30, False, True, True, 1, 0, 15),
          "int2": (31, False, True, False, 1, -2, 1), "uint2": (32, False, True, True, 1, 0, 3),
          "float4_e2m1fn": (33, True, False, False, 1, -6, 6)}


@pytest.mark.parametrize("name", sorted(NARROW))
def test_narrow_types_as_tensorflow_reports_them(name):
    enum, floating, integer, unsigned, size, low, high = NARROW[name]
    dt = dtypes.as_dtype(name)
    assert dt is getattr(dtypes, name) is dtypes.as_dtype(enum)
    assert dtypes.as_dtype(name + "_ref").as_datatype_enum == enum + 100
    assert (dt.is_floating, dt.is_integer, dt.is_unsigned, dt.is_complex, dt.size) == (
        floating, integer, unsigned, False, size)
    assert (dt.min, dt.max) == (low, high) and dt.real_dtype is dt


def test_dtype_from_an_enum_is_an_equal_copy_and_as_dtype_interns_it():
    copy = dtypes.DType(21)
    assert copy == dtypes.variant and copy is not dtypes.variant
    assert dtypes.as_dtype(copy) is dtypes.variant
    assert dtypes.DType(101).as_datatype_enum == 101
    with pytest.raises(TypeError):
        dtypes.DType(0)


def test_limits_are_tensorflows_intensity_range():
    assert dtypes.uint8.limits == (0, 255)
    assert dtypes.int8.limits == (0, 127)  # TF's property always clips the low end
    assert dtypes.float32.limits == (0, 1)
    with pytest.raises(ValueError, match="does not have defined limits"):
        dtypes.string.limits  # noqa: B018
    with pytest.raises(ValueError):
        dtypes.float16.limits  # noqa: B018


def test_python_types_convert_as_tensorflow_converts_them():
    assert dtypes.as_dtype(float) is dtypes.float32  # not numpy's float64
    assert dtypes.as_dtype(bool) is dtypes.bool
    assert dtypes.as_dtype(object) is dtypes.string


def test_pickle_trace_rules_and_serialization():
    for dt in dtypes.TF_VALUE_DTYPES + (dtypes.float32_ref, dtypes.resource):
        assert pickle.loads(pickle.dumps(dt)) is dt
        assert trace_type.deserialize(trace_type.serialize(dt)) is dt
    assert trace_type.serialize(dtypes.float32).value == b"\x08\x01"  # TF's bytes
    assert len(dtypes.TF_VALUE_DTYPES) == 31 and dtypes.resource not in dtypes.TF_VALUE_DTYPES
    assert dtypes.string.is_subtype_of(dtypes.string) and not dtypes.string.is_subtype_of(dtypes.uint32)
    assert dtypes.string.most_specific_common_supertype([]) is dtypes.string
    assert dtypes.string.most_specific_common_supertype([dtypes.uint32]) is None
    with pytest.raises(ValueError, match="Can not serialize int since it is not Serializable"):
        trace_type.serialize(3)
    assert np.dtype(dtypes.int4.as_numpy_dtype).itemsize == 1
