"""``IndexedSlices``: a sparse slice of a dense tensor, what ``tf.gather`` hands back as its
gradient. ``values[i]`` is row ``indices[i]`` of a tensor shaped ``dense_shape``; rows not
listed are zero and rows listed twice add up. An embedding table of a million rows gets a
gradient of the few rows a batch looked up, and the sparse optimizer updates touch only those.
"""
import collections

import numpy as np

from . import dtypes
from .composite_tensor import CompositeTensor, NativeObject
from .tensor_shape import as_shape
from .tensor_spec import TensorSpec
from .type_spec import TypeSpec


class IndexedSlices(NativeObject, CompositeTensor):
    """A sparse representation of a set of tensor slices at given indices (TF's class)."""

    def __init__(self, values, indices, dense_shape=None):
        self._values, self._indices, self._dense_shape = values, indices, dense_shape

    @property
    def values(self):
        return self._values

    @property
    def indices(self):
        return self._indices

    @property
    def dense_shape(self):
        return self._dense_shape

    @property
    def name(self):
        return self._values.name

    @property
    def device(self):
        return self._values.device

    @property
    def op(self):
        return self._values.op

    @property
    def dtype(self):
        return self._values.dtype

    @property
    def graph(self):
        return self._values.graph

    def __repr__(self):
        shape = "" if self._dense_shape is None else f", dense_shape={self._dense_shape}"
        return f"IndexedSlices(indices={self._indices}, values={self._values}{shape})"


IndexedSlicesValue = collections.namedtuple("IndexedSlicesValue", ["values", "indices", "dense_shape"])


class IndexedSlicesSpec(TypeSpec):
    """The type of an ``IndexedSlices``: its dense shape, the values' and indices' dtypes, the
    dense_shape tensor's dtype (None when it has none) and the indices' shape (how many slices)."""

    __slots__ = ("_shape", "_values_dtype", "_indices_dtype", "_dense_shape_dtype", "_indices_shape")

    value_type = property(lambda self: IndexedSlices)

    def __init__(self, shape=None, dtype=dtypes.float32, indices_dtype=dtypes.int64, dense_shape_dtype=None,
                 indices_shape=None):
        self._shape = as_shape(shape)
        self._values_dtype = dtypes.as_dtype(dtype)
        self._indices_dtype = dtypes.as_dtype(indices_dtype)
        self._dense_shape_dtype = None if dense_shape_dtype is None else dtypes.as_dtype(dense_shape_dtype)
        self._indices_shape = as_shape(indices_shape).with_rank(1)

    def _serialize(self):
        return (self._shape, self._values_dtype, self._indices_dtype, self._dense_shape_dtype, self._indices_shape)

    @property
    def _component_specs(self):
        """Specs of the values (a row per index), the indices and, when it has one, the dense shape."""
        specs = [TensorSpec(self._indices_shape.concatenate(self._shape[1:]), self._values_dtype),
                 TensorSpec(self._indices_shape, self._indices_dtype)]
        if self._dense_shape_dtype is not None:
            specs.append(TensorSpec([self._shape.ndims], self._dense_shape_dtype))
        return tuple(specs)

    def _to_components(self, value):
        if value.dense_shape is None:
            return (value.values, value.indices)
        return (value.values, value.indices, value.dense_shape)

    def _from_components(self, tensor_list):
        # numpy components (a run's results) give TF1's IndexedSlicesValue, tensors an IndexedSlices
        if all(isinstance(t, np.ndarray) for t in tensor_list):
            return IndexedSlicesValue(*tensor_list) if len(tensor_list) == 3 else IndexedSlicesValue(*tensor_list, None)
        return IndexedSlices(*tensor_list)
