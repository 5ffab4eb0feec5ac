"""Nested fetch structures: ``sess.run({"a": [x, y], "b": (z,)})`` returns the same shape; an
``IndexedSlices`` fetches its values, indices and dense shape as an ``IndexedSlicesValue``, a
``SparseTensor`` its indices, values and dense shape as a ``SparseTensorValue``."""
import collections

from ..framework.indexed_slices import IndexedSlices, IndexedSlicesValue
from ..ops.sparse_tensor import SparseTensor, SparseTensorValue


def _parts(slices):
    return [slices.values, slices.indices] + ([] if slices.dense_shape is None else [slices.dense_shape])


def flatten(fetches):
    """The leaves of ``fetches`` (lists, tuples, namedtuples and dicts), in order."""
    if isinstance(fetches, dict):
        return [leaf for k in fetches for leaf in flatten(fetches[k])]
    if isinstance(fetches, (list, tuple)):
        return [leaf for item in fetches for leaf in flatten(item)]
    if isinstance(fetches, IndexedSlices):
        return _parts(fetches)
    if isinstance(fetches, SparseTensor):
        return [fetches.indices, fetches.values, fetches.dense_shape]
    return [fetches]


def pack(fetches, values):
    """``values`` (one per leaf) arranged like ``fetches``."""
    it = iter(values)

    def build(f):
        if isinstance(f, collections.defaultdict):  # TF's _DictFetchMapper keeps the default factory
            out = type(f)(f.default_factory)
            out.update((k, build(v)) for k, v in f.items())
            return out
        if isinstance(f, dict):
            return type(f)((k, build(v)) for k, v in f.items())
        if isinstance(f, tuple) and hasattr(f, "_fields"):
            return type(f)(*[build(x) for x in f])
        if isinstance(f, (list, tuple)):
            return type(f)(build(x) for x in f)
        if isinstance(f, IndexedSlices):
            parts = [next(it) for _ in _parts(f)]
            return IndexedSlicesValue(parts[0], parts[1], parts[2] if len(parts) > 2 else None)
        if isinstance(f, SparseTensor):
            return SparseTensorValue(next(it), next(it), next(it))
        return next(it)

    return build(fetches)
