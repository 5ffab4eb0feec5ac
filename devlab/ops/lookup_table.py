"""The mutable hash table resource and the kernels of TF's lookup-table ops (``MutableHashTableV2``,
``LookupTableInsertV2``, ``LookupTableFindV2``, ``LookupTableExportV2``, ``LookupTableImportV2``...).

A table maps scalar keys to scalar values. It is a resource (``resource_mgr.py``): made by its
``MutableHashTableV2`` op in the session's device, shared by every op that takes its handle. As a
queue's, its state changes when an op runs, not when the run commits. ``LookupTableImportV2``
replaces the whole contents (what a Saver's restore does); export lists the entries in the
order they were first inserted (TF's order is its hash map's, unspecified). Errors are TF 2.21's.
"""
import threading

import numpy as np

from ..framework import dtypes, errors
from . import shapes as S
from .resource_mgr import resources_of


class MutableHashTable:
    """Scalar keys of ``key_dtype`` to scalar values of ``value_dtype``."""

    def __init__(self, key_dtype, value_dtype):
        self.key_dtype, self.value_dtype = key_dtype, value_dtype
        self._entries = {}
        self._lock = threading.Lock()

    def check_matches(self, key_dtype, value_dtype):
        if (key_dtype, value_dtype) != (self.key_dtype, self.value_dtype):
            raise errors.InvalidArgumentError(
                None, None, f"Conflicting key/value dtypes {key_dtype.name}->{value_dtype.name} with "
                f"{self.key_dtype.name}-{self.value_dtype.name}")

    def insert(self, keys, values, clear=False):
        keys, values = np.asarray(keys), np.asarray(values)
        if values.shape != keys.shape:
            raise errors.InvalidArgumentError(None, None, f"Expected shape {_dims(keys.shape)} for value, got "
                                                          f"{_dims(values.shape)}")
        with self._lock:
            if clear:
                self._entries.clear()
            self._entries.update(zip(keys.reshape(-1).tolist(), values.reshape(-1).tolist()))

    def find(self, keys, default):
        keys, default = np.asarray(keys), np.asarray(default)
        if default.shape not in ((), (1,)):
            raise errors.InvalidArgumentError(None, None, "Expected shape [] or [1] for default value, got "
                                                          f"{_dims(default.shape)}")
        fallback = default.reshape(-1)[0].item() if default.dtype != object else default.reshape(-1)[0]
        with self._lock:
            found = [self._entries.get(k, fallback) for k in keys.reshape(-1).tolist()]
        return _array(found, self.value_dtype).reshape(keys.shape)

    def remove(self, keys):
        with self._lock:
            for k in np.asarray(keys).reshape(-1).tolist():
                self._entries.pop(k, None)

    def export(self):
        with self._lock:
            keys, values = list(self._entries), list(self._entries.values())
        return _array(keys, self.key_dtype), _array(values, self.value_dtype)

    def size(self):
        with self._lock:
            return len(self._entries)


def _dims(shape):
    return "[" + ",".join(str(d) for d in shape) + "]"


def _array(items, dtype):
    if dtype == dtypes.string:
        out = np.empty(len(items), dtype=object)
        out[:] = items
        return out
    return np.asarray(items, dtype=dtype.as_numpy_dtype).reshape(len(items))


# -- shape rules ------------------------------------------------------------------------------------
def handle_shape(inputs, attrs):
    return [(dtypes.resource, ())]


def find_shape(inputs, attrs):
    """As many values as keys, of the table's value dtype (``Tout``)."""
    return [(attrs["Tout"].base_dtype, S.dims(inputs[1]))]


def export_shape(inputs, attrs):
    return [(attrs["Tkeys"].base_dtype, None), (attrs["Tvalues"].base_dtype, None)]


def size_shape(inputs, attrs):
    return [(dtypes.int64, ())]


# -- kernels ----------------------------------------------------------------------------------------
def _table(k, handle):
    return resources_of(k).lookup(handle, MutableHashTable)


def mutable_hash_table_v2(k):
    a = k.attrs
    # use_node_name_sharing: a table without a shared_name is shared under its node's name
    shared = a.get("shared_name", "") or (k.op_name if a.get("use_node_name_sharing") else "")
    handle, table = resources_of(k).create(a.get("container", ""), shared, k.op_name,
                                           lambda name: MutableHashTable(a["key_dtype"], a["value_dtype"]))
    table.check_matches(a["key_dtype"], a["value_dtype"])
    return handle


def lookup_table_insert_v2(k, handle, keys, values):
    _table(k, handle).insert(keys, values)


def lookup_table_import_v2(k, handle, keys, values):
    _table(k, handle).insert(keys, values, clear=True)


def lookup_table_remove_v2(k, handle, keys):
    _table(k, handle).remove(keys)


def lookup_table_find_v2(k, handle, keys, default_value):
    return _table(k, handle).find(keys, default_value)


def lookup_table_export_v2(k, handle):
    return _table(k, handle).export()


def lookup_table_size_v2(k, handle):
    return np.asarray(_table(k, handle).size(), np.int64)
