"""``Operation.op_def``: TensorFlow's ``OpDef`` proto of an op's type, from TF 2.21's recorded
op definitions (``ops/data/tf_op_defs.json``), built with TensorBoard's copy of TF's protos (the
``graphs`` extra).

The record keeps every field of TF's OpDef that devlab reads: arguments (name, dtype or type
attr, number or type-list attr, is_ref), attrs (type, default, allowed types, minimum) and the
op's flags. Two defaults it does not keep: a ``tensor`` attr's default value (TF's
``DefaultAttrs`` and ``ImageSummary``'s ``bad_color``) is left unset.
"""
import functools

from ..framework import dtypes
from ..framework.tf_protos import pb
from ..ops.recorded import OP_DEFS

_SCALAR_FIELDS = {"string": "s", "int": "i", "float": "f", "bool": "b", "type": "type", "shape": "shape",
                  "func": "func"}


def _dtype_enum(name):
    return dtypes._BY_NAME[name].as_datatype_enum


def _arg(proto, record):
    proto.name = record["name"]
    if "type" in record:
        proto.type = _dtype_enum(record["type"])
    for key in ("type_attr", "number_attr", "type_list_attr"):
        if key in record:
            setattr(proto, key, record[key])
    if record.get("is_ref"):
        proto.is_ref = True


def _set_value(attr_value, kind, value):
    """Fills an AttrValue with ``value`` of TF attr type ``kind`` (``list(int)``...)."""
    if kind.startswith("list("):
        inner = kind[5:-1]
        attr_value.list.SetInParent()  # an empty list is still set
        for item in value:
            _append(attr_value.list, inner, item)
        return
    field = _SCALAR_FIELDS.get(kind)
    if kind == "type":
        attr_value.type = _dtype_enum(value)
    elif kind == "shape":
        _shape(attr_value.shape, value)
    elif kind == "string":
        attr_value.s = value.encode() if isinstance(value, str) else value
    elif field in ("i", "f", "b"):
        setattr(attr_value, field, value)


def _append(list_value, kind, item):
    if kind == "type":
        list_value.type.append(_dtype_enum(item))
    elif kind == "shape":
        _shape(list_value.shape.add(), item)
    elif kind == "string":
        list_value.s.append(item.encode() if isinstance(item, str) else item)
    elif kind in ("int", "float", "bool"):
        getattr(list_value, _SCALAR_FIELDS[kind]).append(item)


def _shape(proto, dims):
    proto.SetInParent()
    if dims is None:
        proto.unknown_rank = True
    else:
        for d in dims:
            proto.dim.add().size = -1 if d is None else d


@functools.lru_cache(maxsize=None)
def _op_def(op_type):
    record = OP_DEFS.get(op_type)
    if record is None:
        return None
    proto = pb().OpDef(name=op_type)
    for r in record.get("inputs", ()):
        _arg(proto.input_arg.add(), r)
    for r in record.get("outputs", ()):
        _arg(proto.output_arg.add(), r)
    for r in record.get("attrs", ()):
        attr = proto.attr.add(name=r["name"], type=r["type"])
        if "default" in r:
            _set_value(attr.default_value, r["type"], r["default"])
        if "allowed" in r:
            _set_value(attr.allowed_values, "list(type)" if r["type"] in ("type", "list(type)") else
                       f"list({r['type'].replace('list(', '').rstrip(')')})", r["allowed"])
        if "minimum" in r:
            attr.has_minimum, attr.minimum = True, r["minimum"]
    proto.is_stateful = bool(record.get("stateful"))
    proto.is_commutative = bool(record.get("is_commutative"))
    proto.is_aggregate = bool(record.get("is_aggregate"))
    proto.allows_uninitialized_input = bool(record.get("allows_uninitialized_input"))
    return proto


def op_def(op):
    """TF's ``Operation.op_def``: the OpDef of the op's type (a copy); TF's KeyError-free lookup
    gives ``None`` for a type TF does not define, as ``op_def_registry.get`` does."""
    proto = _op_def(op.type)
    if proto is None:
        return None
    out = pb().OpDef()
    out.CopyFrom(proto)
    return out


def node_def_text(op):
    """``str(op)``: the op's NodeDef in protobuf text format as TF prints it (a tensor attr as its
    TensorProto, TF's default attrs included); devlab's own text of it without the protos."""
    from .encode import _with_tf_defaults, node_def
    nd = op.node_def
    try:
        proto = node_def(nd.name, nd.op, nd.input, nd.device, _with_tf_defaults(nd.op, dict(nd.attr)), pb().NodeDef())
    except (ImportError, TypeError, ValueError):  # no protobuf, or an attr only devlab has (a Python object)
        return str(nd)
    return str(proto)


def install(operation_class):
    """Gives ``tf.Operation`` TF's ``op_def`` and ``str()`` (the op layer's records and TF's protos,
    above the framework)."""
    operation_class.op_def = property(op_def)
    operation_class.__str__ = node_def_text
