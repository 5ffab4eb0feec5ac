"""``TensorSpec``: the shape, dtype and optional name a tensor must have (TF's ``tf.TensorSpec``).

TF1 code meets it in ``tf.while_loop`` shape invariants, in the component specs of
``IndexedSlicesSpec`` and as a function's input signature. Two specs are equal when shape, dtype
and name are; compatible when a tensor could satisfy both (the name does not matter).
"""
import numpy as np

from . import dtypes
from .tensor import Tensor
from .tensor_shape import TensorShape
from .type_spec import TypeSpec


class TensorSpec(TypeSpec):
    """Describes a ``tf.Tensor``: ``TensorSpec(shape, dtype=tf.float32, name=None)``."""

    __slots__ = ("_shape", "_dtype", "_name")

    def __init__(self, shape, dtype=dtypes.float32, name=None):
        self._shape = TensorShape(shape)
        self._dtype = dtypes.as_dtype(dtype)
        self._name = name

    @classmethod
    def from_spec(cls, spec, name=None):
        """A spec with ``spec``'s shape and dtype, and ``name`` (default: ``spec``'s name)."""
        return cls(spec.shape, spec.dtype, name or spec.name)

    @classmethod
    def from_tensor(cls, tensor, name=None):
        """The spec of ``tensor``, named ``name`` or else after the tensor's op."""
        if not isinstance(tensor, Tensor):
            raise ValueError(f"`tensor` should be a tf.Tensor, but got type {type(tensor)}.")
        return cls(tensor.shape, tensor.dtype, name or tensor.op.name)

    shape = property(lambda self: self._shape)
    dtype = property(lambda self: self._dtype)
    name = property(lambda self: self._name)
    value_type = property(lambda self: Tensor)
    _component_specs = property(lambda self: self)

    def is_compatible_with(self, spec_or_tensor):
        """Whether a tensor could satisfy both: compatible dtype and shape (a spec or a tensor)."""
        return (isinstance(spec_or_tensor, (TensorSpec, Tensor))
                and self._dtype.is_compatible_with(spec_or_tensor.dtype)
                and self._shape.is_compatible_with(spec_or_tensor.shape))

    def is_subtype_of(self, other):
        """Whether every tensor this spec describes is also described by ``other``."""
        return (isinstance(other, TensorSpec) and (not self._name or self._name == other.name)
                and self._shape.is_subtype_of(other.shape) and self._dtype.is_subtype_of(other.dtype))

    def _serialize(self):
        return (self._shape, self._dtype, self._name)

    def _to_components(self, value):
        return value

    def _from_components(self, components):
        return components

    def __eq__(self, other):
        return (type(self) is type(other) and self._shape == other._shape and self._dtype == other._dtype
                and self._name == other._name)

    def __hash__(self):
        return hash((self._shape, self._dtype))

    def __repr__(self):
        return f"{type(self).__name__}(shape={self._shape}, dtype={self._dtype!r}, name={self._name!r})"


def from_value(value):
    """The spec of ``value``: its own ``_type_spec`` (a composite tensor's), or the ``TensorSpec`` of
    a tensor or a numpy array.

    TF also converts other values to a tensor first; devlab's framework layer cannot build ops,
    so that case is refused by name (convert with ``tf.convert_to_tensor`` first)."""
    if isinstance(value, TypeSpec):
        return value
    spec = getattr(value, "_type_spec", None)
    if isinstance(spec, TypeSpec):
        return spec
    if isinstance(value, Tensor):
        return TensorSpec(value.shape, value.dtype)
    if isinstance(value, np.ndarray):  # TF registers this one directly: the array's own dtype
        return TensorSpec(value.shape, value.dtype)
    raise NotImplementedError(f"devlab's type_spec.from_value takes a tensor, a composite tensor or a TypeSpec, "
                              f"not {type(value).__name__} (convert it with tf.convert_to_tensor first)")
