"""``TypeSpec``: the type of a value TensorFlow passes around (a tensor, IndexedSlices, ...).

A spec is described by the tuple its ``_serialize()`` returns (shapes, dtypes, plain values):
two specs are equal when they are of the same class and those tuples are equal, and compatible
when each shape and dtype in them is compatible. ``_component_specs``, ``_to_components`` and
``_from_components`` split a value into the tensors it is made of and put it back together.
Subclasses: ``TensorSpec`` (tensor_spec.py, with ``from_value``) and ``IndexedSlicesSpec``
(indexed_slices.py).
"""
from .dtypes import DType
from .tensor_shape import TensorShape


class TypeSpec:
    """The base class of TensorFlow's type specifications."""

    __slots__ = ()

    @property
    def value_type(self):
        """The Python type of the values this spec describes."""
        raise NotImplementedError(f"{type(self).__name__}.value_type")

    def _serialize(self):
        raise NotImplementedError(f"{type(self).__name__}._serialize")

    def is_compatible_with(self, spec_or_value):
        """Whether ``spec_or_value`` (a spec of the same class) could describe the same values."""
        if not isinstance(spec_or_value, TypeSpec):  # a value: its spec (a plain tensor's is a TensorSpec,
            spec_or_value = getattr(spec_or_value, "_type_spec", None)  # never of a class besides TensorSpec)
        return type(self) is type(spec_or_value) and _compatible(self._serialize(), spec_or_value._serialize())

    def __eq__(self, other):
        return type(other) is type(self) and _key(self._serialize()) == _key(other._serialize())

    def __ne__(self, other):
        return not self == other

    def __hash__(self):
        return hash((type(self), _key(self._serialize())))

    def __reduce__(self):
        return type(self), self._serialize()

    def __repr__(self):
        return f"{type(self).__name__}{self._serialize()!r}"


def _key(value):
    """A hashable form of a serialization (lists become tuples tagged as lists)."""
    if isinstance(value, tuple):
        return tuple(_key(v) for v in value)
    if isinstance(value, list):
        return (list, tuple(_key(v) for v in value))
    if isinstance(value, dict):
        return tuple((k, _key(value[k])) for k in sorted(value))
    return value


def _compatible(a, b):
    if isinstance(a, TypeSpec):
        return a.is_compatible_with(b)
    if type(a) is not type(b):
        return False
    if isinstance(a, (list, tuple)):
        return len(a) == len(b) and all(_compatible(x, y) for x, y in zip(a, b))
    if isinstance(a, dict):
        return sorted(a) == sorted(b) and all(_compatible(a[k], b[k]) for k in a)
    if isinstance(a, (TensorShape, DType)):
        return a.is_compatible_with(b)
    return a == b
