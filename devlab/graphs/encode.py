"""From devlab's graphs to TensorFlow's ``GraphDef`` message, and ``tf.io.write_graph``.

Each op becomes a NodeDef with its name, type, inputs (``x``, ``x:1``, ``^c``), requested device
(or, when asked, the device a session placed it on) and attrs. An attr's encoding follows the
kind TensorFlow's OpDef declares for it (a ``shape`` attr, a ``list(int)``...), else its Python
type; devlab's own ops (``Sum`` with an ``axis`` attr...) are written in devlab's form, which
``devlab.load_graph`` reads back as runnable ops.
"""
import os
import tempfile

import numpy as np

from ..framework import dtypes
from ..ops import tf_ops
from .decode import DT_ENUM
from ..framework.tf_protos import pb

PRODUCER = 2474  # TF 2.21's GraphDef version (versions.producer of the graphs it writes)
MIN_CONSUMER = 0  # TF 2.21's GRAPH_DEF_VERSION_MIN_CONSUMER
MIN_PRODUCER = 0  # TF 2.21's GRAPH_DEF_VERSION_MIN_PRODUCER


def dtype_enum(dtype):
    code = DT_ENUM[dtype.base_dtype.name]
    return code + 100 if dtype.is_ref else code


def _tensor(value, out):
    value = np.asarray(value)
    dtype = dtypes.as_dtype(value.dtype)
    out.dtype = dtype_enum(dtype)
    out.tensor_shape.SetInParent()  # a scalar's shape has no dims, but is set
    for d in value.shape:
        out.tensor_shape.dim.add().size = int(d)
    field = _SCALAR_FIELDS.get(dtype.name)
    if dtype == dtypes.string:
        out.string_val.extend(v if isinstance(v, bytes) else str(v).encode() for v in value.reshape(-1))
    elif value.size == 1 and field:  # TF writes a single value in its typed field, not as bytes
        getattr(out, field).append(value.reshape(-1).view(np.uint16)[0] if field == "half_val"
                                   else value.reshape(-1)[0].item())
    else:
        out.tensor_content = np.ascontiguousarray(value).tobytes()
    return out


_SCALAR_FIELDS = {"float32": "float_val", "float64": "double_val", "int32": "int_val", "int16": "int_val",
                  "int8": "int_val", "uint8": "int_val", "uint16": "int_val", "int64": "int64_val",
                  "bool": "bool_val", "float16": "half_val", "uint32": "uint32_val", "uint64": "uint64_val"}


def _shape(dims, out):
    out.SetInParent()  # a scalar's shape has no dims, but is set
    if dims is None:
        out.unknown_rank = True
    else:
        for d in dims:
            out.dim.add().size = -1 if d is None else int(d)
    return out


def attr_value(value, kind, out):
    """Fills AttrValue ``out`` with ``value``; ``kind`` is TF's declared attr type or None."""
    if value is None:
        if kind == "shape":
            _shape(None, out.shape)
        return out  # nothing set: devlab's "no value" (an unset seed, an axis of None)
    if kind == "shape":
        return _shape(getattr(value, "dims", value), out.shape)
    if isinstance(value, dtypes.DType):
        out.type = dtype_enum(value)
    elif isinstance(value, np.ndarray):
        _tensor(value, out.tensor)
    elif isinstance(value, bool):
        out.b = value
    elif isinstance(value, (int, np.integer)):
        out.i = int(value)
    elif isinstance(value, (float, np.floating)):
        out.f = float(value)
    elif isinstance(value, bytes):
        out.s = value
    elif isinstance(value, str):
        out.s = value.encode()
    elif isinstance(value, dict) and "name" in value:
        out.func.name = value["name"]
        for k, v in value.get("attr", {}).items():
            attr_value(v, None, out.func.attr[k])
    elif isinstance(value, (list, tuple)):
        _list(list(value), kind, out.list)
        if not value:
            out.list.SetInParent()
    else:
        out.s = str(value).encode()
    return out


def _list(items, kind, out):
    inner = kind[5:-1] if kind and kind.startswith("list(") else None
    if inner == "shape" or (inner is None and items and all(x is None or isinstance(x, (list, tuple))
                                                             for x in items)):
        for x in items:
            _shape(x, out.shape.add())
    elif items and all(isinstance(x, dtypes.DType) for x in items):
        out.type.extend(dtype_enum(x) for x in items)
    elif items and all(isinstance(x, bool) for x in items):
        out.b.extend(items)
    elif items and all(isinstance(x, (int, np.integer)) and not isinstance(x, bool) for x in items):
        out.i.extend(int(x) for x in items)
    elif items and all(isinstance(x, (int, float, np.number)) for x in items):
        out.f.extend(float(x) for x in items)
    elif items and all(isinstance(x, np.ndarray) for x in items):
        for x in items:
            _tensor(x, out.tensor.add())
    else:
        out.s.extend(x if isinstance(x, bytes) else str(x).encode() for x in items)


def _kinds(op_type):
    return {a["name"]: a["type"] for a in (tf_ops.op_def(op_type) or {}).get("attrs", ())}


def node_def(name, op_type, inputs, device, attrs, out):
    """Fills NodeDef ``out``."""
    out.name, out.op, out.device = name, op_type, device or ""
    out.input.extend(inputs)
    kinds = _kinds(op_type)
    for key in sorted(attrs):
        kind = kinds.get(key) or ("list(shape)" if key == "_output_shapes" else None)
        attr_value(attrs[key], kind, out.attr[key])
    return out


def graph_def(graph, devices=None):
    """A GraphDef message of a devlab Graph (``devices``: {op name: device string} to write in
    place of the requested devices), of devlab's ``GraphDef`` (partition graphs), or of a
    GraphDef message (returned as it is)."""
    p = pb()
    if isinstance(graph, p.GraphDef):
        return graph
    if type(graph).__name__ == "GraphDef" and hasattr(graph, "SerializeToString"):
        return p.GraphDef.FromString(graph.SerializeToString())
    out = p.GraphDef()
    out.versions.producer = PRODUCER
    if hasattr(graph, "get_operations"):
        for op in graph.get_operations():
            nd = op.node_def
            device = devices.get(op.name, nd.device) if devices else nd.device
            node_def(nd.name, nd.op, nd.input, device, nd.attr, out.node.add())
    elif hasattr(graph, "node"):
        for nd in graph.node:
            node_def(nd.name, nd.op, nd.input, nd.device, nd.attr, out.node.add())
    else:
        raise TypeError(f"expected a tf.Graph or a GraphDef, got {type(graph).__name__}")
    return out


def as_graph_def(graph, from_version=None, add_shapes=False, use_pybind11_proto=False):
    """TF's ``Graph.as_graph_def``: the graph as a GraphDef message, versions set as TF 2.21 sets
    them. ``add_shapes`` gives each node an ``_output_shapes`` attr (its outputs' static shapes).
    TF 2.21 accepts ``from_version`` and writes every node all the same; so does devlab."""
    p = pb()
    out = p.GraphDef()
    out.versions.producer = PRODUCER
    for op in graph.get_operations():
        nd = op.node_def
        attrs = _with_tf_defaults(nd.op, dict(nd.attr))
        if add_shapes:
            attrs["_output_shapes"] = [t.shape.as_list() if t.shape.dims is not None else None for t in op.outputs]
        node_def(nd.name, nd.op, nd.input, nd.device, attrs, out.node.add())
    return out


def _with_tf_defaults(op_type, attrs):
    """A node in TF's form (each attr one TF's OpDef declares) gets the attrs TF adds with their
    defaults at creation (MatMul's ``grad_a``...); a node in devlab's own form stays as it is."""
    defaults = tf_ops.attr_defaults(op_type)
    declared = _kinds(op_type)
    if not defaults or any(k not in declared for k in attrs if not k.startswith("_")):
        return attrs
    return {**attrs, **{k: v for k, v in defaults.items() if k not in attrs}}


def graph_def_versions(graph):
    """TF's ``Graph.graph_def_versions``: the VersionDef of the GraphDefs this graph writes."""
    versions = pb().GraphDef().versions
    versions.producer = PRODUCER
    return versions


def node_def_proto(node):
    """A devlab ``NodeDef`` (``op.node_def``) as TF's NodeDef message."""
    return node_def(node.name, node.op, node.input, node.device, node.attr, pb().NodeDef())


def install(graph_class):
    """Gives ``tf.Graph`` TF's ``as_graph_def`` and ``graph_def_versions``: encoding needs TF's op
    definitions (the op layer), which the graph, a layer below, must not import."""
    graph_class.as_graph_def = as_graph_def
    graph_class.graph_def_versions = property(graph_def_versions)


def write_graph(graph_or_graph_def, logdir, name, as_text=True):
    """TF's ``tf.io.write_graph``: writes the graph as a GraphDef (text by default, binary with
    ``as_text=False``) to ``logdir/name`` (creating ``logdir``); returns the path. The file is
    written whole or not at all. As TF's, it writes any other message it is given (a SaverDef) as it is."""
    if hasattr(graph_or_graph_def, "as_proto"):  # devlab's SaverDef
        graph_or_graph_def = graph_or_graph_def.as_proto()
    if isinstance(graph_or_graph_def, pb().Message) and type(graph_or_graph_def).__name__ != "GraphDef":
        message = graph_or_graph_def
    else:
        message = graph_def(graph_or_graph_def)
    logdir, name = os.fspath(logdir), os.fspath(name)
    if logdir:
        os.makedirs(logdir, exist_ok=True)
    path = os.path.join(logdir, name)
    data = (pb().text_format.MessageToString(message).encode() if as_text
            else message.SerializeToString(deterministic=True))
    fd, tmp = tempfile.mkstemp(dir=os.path.dirname(os.path.abspath(path)), prefix=".write_graph-")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise
    return path
