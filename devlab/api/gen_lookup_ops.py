"""The raw builders of TF's mutable-hash-table ops, as TF's generated ``gen_lookup_ops`` names
them: one op each, inputs that are not tensors made Consts named after their argument.

A table is a ``MutableHashTableV2`` (its handle, a scalar of dtype ``resource``) and the ops that
take that handle (``ops/lookup_table.py`` has the resource and the kernels). As a queue, a table
lives on the CPU and its users are placed beside it.
"""
from ..framework import dtypes
from ..ops.build import apply_op, op


def mutable_hash_table_v2(key_dtype, value_dtype, container="", shared_name="", use_node_name_sharing=False,
                          name=None):
    """The handle of a new empty table from ``key_dtype`` keys to ``value_dtype`` values."""
    attrs = {"container": container or "", "shared_name": shared_name or "",
             "use_node_name_sharing": bool(use_node_name_sharing),
             "key_dtype": dtypes.as_dtype(key_dtype).base_dtype, "value_dtype": dtypes.as_dtype(value_dtype).base_dtype}
    return apply_op("MutableHashTableV2", [], attrs, name or "MutableHashTableV2").outputs[0]


def _handle(table_handle):
    return ("table_handle", table_handle, dtypes.resource)


def _key_dtype(table_handle):
    return table_handle.op.attrs.get("key_dtype") if table_handle.op.type == "MutableHashTableV2" else None


def _value_dtype(table_handle):
    return table_handle.op.attrs.get("value_dtype") if table_handle.op.type == "MutableHashTableV2" else None


def lookup_table_insert_v2(table_handle, keys, values, name=None):
    """Adds (or overwrites) the entries ``keys`` -> ``values`` (same shapes). Returns the Operation."""
    return op("LookupTableInsertV2", name, [_handle(table_handle), ("keys", keys, _key_dtype(table_handle)),
                                            ("values", values, _value_dtype(table_handle))])


def lookup_table_import_v2(table_handle, keys, values, name=None):
    """Replaces the table's contents with ``keys`` -> ``values``. Returns the Operation."""
    return op("LookupTableImportV2", name, [_handle(table_handle), ("keys", keys, _key_dtype(table_handle)),
                                            ("values", values, _value_dtype(table_handle))])


def lookup_table_remove_v2(table_handle, keys, name=None):
    return op("LookupTableRemoveV2", name, [_handle(table_handle), ("keys", keys, _key_dtype(table_handle))])


def lookup_table_find_v2(table_handle, keys, default_value, name=None):
    """The value of each key (``default_value`` for a key not in the table), in the keys' shape."""
    return op("LookupTableFindV2", name, [_handle(table_handle), ("keys", keys, _key_dtype(table_handle)),
                                          ("default_value", default_value, _value_dtype(table_handle))]).outputs[0]


def lookup_table_export_v2(table_handle, Tkeys, Tvalues, name=None):  # noqa: N803 - TF's argument names
    """(keys, values): every entry of the table, as two vectors."""
    return tuple(op("LookupTableExportV2", name, [_handle(table_handle)],
                    {"Tkeys": dtypes.as_dtype(Tkeys).base_dtype,
                     "Tvalues": dtypes.as_dtype(Tvalues).base_dtype}).outputs)


def lookup_table_size_v2(table_handle, name=None):
    """The number of entries (int64)."""
    return op("LookupTableSizeV2", name, [_handle(table_handle)]).outputs[0]
