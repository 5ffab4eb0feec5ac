"""``tf.math`` ops beside the common ones of ``math_ops.py``: ``multiply_no_nan`` (and its raw
``mul_no_nan``), ``nextafter``, ``argmin`` and ``cumprod``. Each builds one op of the table, named
as TF's wrapper names it."""
from ..framework import dtypes
from ..framework.scopes import name_scope
from ..ops.build import convert_to_tensor, op_output
from .math_ops import _AXIS_TYPES


def mul_no_nan(x, y, name=None):
    """x * y, and 0 where y is 0 even if x is NaN or infinite (TF's raw ``MulNoNan`` wrapper)."""
    return op_output("MulNoNan", name, [("x", x, None), ("y", y, None)])


def multiply_no_nan(x, y, name=None):
    """``tf.math.multiply_no_nan``: y converted to x's dtype, then one ``MulNoNan``."""
    with name_scope(name, "multiply_no_nan", [x, y]) as scope:
        x = convert_to_tensor(x, name="x")
        y = convert_to_tensor(y, dtype=x.dtype.base_dtype, name="y")
        return op_output("MulNoNan", scope, [("x", x, None), ("y", y, None)])


def nextafter(x1, x2, name=None):
    """The next representable float after x1 towards x2, elementwise (float32 and float64)."""
    return op_output("NextAfter", name, [("x1", x1, None), ("x2", x2, None)])


def argmin(input, axis=None, name=None, dimension=None, output_type=dtypes.int64):  # noqa: A002 - TF's name
    """The index of the smallest value along ``axis`` (0 when neither it nor ``dimension`` is given)."""
    axis = dimension if axis is None else axis
    axis = 0 if axis is None else axis
    if hasattr(axis, "dtype"):
        if str(getattr(axis.dtype, "name", axis.dtype)).replace("_ref", "") not in _AXIS_TYPES:
            raise TypeError(f"axis tensor dtypes {axis.dtype!r} is not supported")
    elif not isinstance(axis, int):
        raise TypeError("axis must be int or Tensor with integer datatype")
    return op_output("ArgMin", name, [("input", input, None), ("dimension", axis, None)],
                     {"output_type": dtypes.as_dtype(output_type)})


def cumprod(x, axis=0, exclusive=False, reverse=False, name=None):
    """Running products of ``x`` along ``axis`` (one Cumprod op): ``exclusive`` leaves each element
    out of its own product, ``reverse`` multiplies from the end."""
    with name_scope(name, "Cumprod", [x]) as scope:
        x = convert_to_tensor(x, name="x")
        return op_output("Cumprod", scope, [("x", x, None), ("axis", axis, None)],
                         {"exclusive": bool(exclusive), "reverse": bool(reverse)})


# -- complex numbers --------------------------------------------------------------------------------
def complex(real, imag, name=None):  # noqa: A001 - TF's name
    """real + i * imag: complex64 from two float32 tensors, complex128 from two float64 ones."""
    real = convert_to_tensor(real, name="real")
    imag = convert_to_tensor(imag, name="imag")
    with name_scope(name, "Complex", [real, imag]) as scope:
        types = (real.dtype.base_dtype, imag.dtype.base_dtype)
        if types == (dtypes.float64, dtypes.float64):
            tout = dtypes.complex128
        elif types == (dtypes.float32, dtypes.float32):
            tout = dtypes.complex64
        else:
            raise TypeError(f"The `real` and `imag` components have incorrect types: {real.dtype.name} "
                            f"{imag.dtype.name}. They must be consistent, and one of "
                            f"{[dtypes.float32, dtypes.float64]}")
        return op_output("Complex", scope, [("real", real, None), ("imag", imag, None)], {"Tout": tout})


def _part(op_type, scope_name):
    def part(input, name=None):  # noqa: A002 - TF's name
        with name_scope(name, scope_name, [input]) as scope:
            x = convert_to_tensor(input, name="input")
            if x.dtype.is_complex:
                return op_output(op_type, scope, [("input", x, None)], {"Tout": x.dtype.real_dtype})
            if op_type == "Real":
                return x  # the real part of a real tensor is itself, as TF returns it
            from .array_ops import zeros_like
            return zeros_like(x)
    part.__name__ = scope_name.lower()
    part.__doc__ = f"The {scope_name.lower()} part of each element (a real tensor)."
    return part


real = _part("Real", "Real")
imag = _part("Imag", "Imag")


def conj(x, name=None):
    """The complex conjugate; a real tensor is its own (returned as it is, as TF does)."""
    with name_scope(name, "Conj", [x]) as scope:
        x = convert_to_tensor(x, name="x")
        if x.dtype.is_complex:
            return op_output("Conj", scope, [("input", x, None)])
        return x


def complex_abs(x, name=None):
    """|x| of a complex tensor (TF's raw ``ComplexAbs`` wrapper)."""
    x = convert_to_tensor(x, name="x")
    return op_output("ComplexAbs", name, [("x", x, None)], {"Tout": x.dtype.real_dtype})
