"""``tf.Dimension``: one dimension of a static shape, a size or unknown (TF1's tensor shapes).

TF1 code reads shapes through these: ``x.get_shape()[1].value``, ``int(shape[-1])``,
``shape[0] * shape[1]``. Arithmetic with an unknown dimension is unknown, and comparing one
gives None (neither True nor False), as in TensorFlow.
"""
import operator


class Dimension:
    __slots__ = ("_value",)
    __hash__ = None  # as TF's: a Dimension is compared by value, not used as a key

    def __init__(self, value):
        if isinstance(value, Dimension):
            value = value.value
        if value is not None:
            if isinstance(value, (bool, float, str, bytes)) or not hasattr(value, "__index__"):
                raise TypeError(f"Dimension value must be integer or None or have an __index__ method, "
                                f"got value '{value!r}' with type '{type(value)}'")
            value = operator.index(value)
            if value < 0:
                raise ValueError(f"Dimension {value} must be >= 0")
        self._value = value

    @property
    def value(self):
        """The size, or None when unknown."""
        return self._value

    def __repr__(self):
        return f"Dimension({self._value!r})"

    def __str__(self):
        return "?" if self._value is None else str(self._value)

    def __int__(self):
        return self._value

    def __index__(self):
        return self._value

    def __float__(self):
        return float(self._value)

    def __bool__(self):
        return bool(self._value)

    def is_compatible_with(self, other):
        other = as_dimension(other)
        return self._value is None or other.value is None or self._value == other.value

    def assert_is_compatible_with(self, other):
        if not self.is_compatible_with(other):
            raise ValueError(f"Dimensions {self} and {other} are not compatible")

    def merge_with(self, other):
        other = as_dimension(other)
        self.assert_is_compatible_with(other)
        return Dimension(self._value if self._value is not None else other.value)

    # -- comparisons: None when either side is unknown ----------------------------------------
    def _compare(self, other, op):
        try:
            other = as_dimension(other)
        except (TypeError, ValueError):
            return NotImplemented
        if self._value is None or other.value is None:
            return None
        return op(self._value, other.value)

    def __eq__(self, other):
        return self._compare(other, operator.eq)

    def __ne__(self, other):
        return self._compare(other, operator.ne)

    def __lt__(self, other):
        return self._compare(other, operator.lt)

    def __le__(self, other):
        return self._compare(other, operator.le)

    def __gt__(self, other):
        return self._compare(other, operator.gt)

    def __ge__(self, other):
        return self._compare(other, operator.ge)

    # -- arithmetic: unknown when either side is unknown --------------------------------------
    def _apply(self, other, op, reverse=False):
        try:
            other = as_dimension(other)
        except (TypeError, ValueError):
            return NotImplemented
        if self._value is None or other.value is None:
            return Dimension(None)
        a, b = (other.value, self._value) if reverse else (self._value, other.value)
        return Dimension(op(a, b))

    def __add__(self, other):
        return self._apply(other, operator.add)

    def __radd__(self, other):
        return self._apply(other, operator.add, reverse=True)

    def __sub__(self, other):
        return self._apply(other, operator.sub)

    def __rsub__(self, other):
        return self._apply(other, operator.sub, reverse=True)

    def __mul__(self, other):
        return self._apply(other, operator.mul)

    def __rmul__(self, other):
        return self._apply(other, operator.mul, reverse=True)

    def __floordiv__(self, other):
        return self._apply(other, operator.floordiv)

    def __rfloordiv__(self, other):
        return self._apply(other, operator.floordiv, reverse=True)

    def __mod__(self, other):
        return self._apply(other, operator.mod)

    def __rmod__(self, other):
        return self._apply(other, operator.mod, reverse=True)

    def __truediv__(self, other):
        raise TypeError(f"unsupported operand type(s) for /: 'Dimension' and '{type(other).__name__}', "
                        "please use // instead")

    def __rtruediv__(self, other):
        raise TypeError(f"unsupported operand type(s) for /: '{type(other).__name__}' and 'Dimension', "
                        "please use // instead")

    def __reduce__(self):
        return Dimension, (self._value,)


def as_dimension(value):
    return value if isinstance(value, Dimension) else Dimension(value)


def dimension_value(dimension):
    """The size of ``dimension`` (a Dimension, an int or None), as TF's ``dimension_value``."""
    return dimension.value if isinstance(dimension, Dimension) else dimension
