"""``IndexedSlices``: a sparse slice of a dense tensor, what ``tf.gather`` hands back as its
gradient. ``values[i]`` is row ``indices[i]`` of a tensor shaped ``dense_shape``; rows not
listed are zero and rows listed twice add up. An embedding table of a million rows gets a
gradient of the few rows a batch looked up, and the sparse optimizer updates touch only those.
"""
import collections


class IndexedSlices:
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
