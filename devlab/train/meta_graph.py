"""Saving a graph with its devices to a JSON file, and loading it back.

The format is plain JSON (``"format": "devlab.meta_graph"``): one record per op with its type,
inputs, requested device, attrs and output types, plus the variables and collections. Loading
only parses and checks data, never runs code from the file; a corrupt or hand-edited file is
rejected with a ValueError that names what is wrong, before the current graph is touched.
``clear_devices=True`` drops every requested device, so the graph is placed afresh.
"""
import json

import numpy as np

from ..framework import dtypes
from ..framework.graph import get_default_graph
from ..framework.graph_keys import GraphKeys
from ..framework.tensor import Tensor
from ..framework.operation import Operation
from ..ops.table import OPS
from ..ops.variables import Variable

FORMAT = "devlab.meta_graph"
VERSION = 1


def _encode(value):
    if isinstance(value, dtypes.DType):
        return {"dtype": value.name}
    if isinstance(value, np.ndarray):
        if value.dtype.kind in "OUS":
            texts = [x.decode("utf-8", "surrogateescape") if isinstance(x, bytes) else str(x) for x in value.reshape(-1)]
            return {"strings": texts, "shape": list(value.shape)}
        return {"array": value.tolist(), "dtype": dtypes.as_dtype(value.dtype).name, "shape": list(value.shape)}
    if isinstance(value, bytes):
        return {"bytes": value.decode()}
    if isinstance(value, (list, tuple)):
        return {"list": [_encode(v) for v in value]}
    if value is None or isinstance(value, (bool, int, float, str)):
        return {"value": value}
    raise TypeError(f"cannot save attr value {value!r}")


def _decode(obj, where):
    if not isinstance(obj, dict) or len(obj) < 1:
        raise ValueError(f"{where}: an attr must be an object, got {obj!r}")
    if "dtype" in obj and "array" not in obj:
        return dtypes.as_dtype(obj["dtype"])
    if "array" in obj:
        return np.asarray(obj["array"], dtype=dtypes.as_dtype(obj["dtype"]).as_numpy_dtype).reshape(obj["shape"])
    if "strings" in obj:
        strings = np.empty(len(obj["strings"]), dtype=object)
        strings[:] = [x.encode("utf-8", "surrogateescape") for x in obj["strings"]]  # string tensors hold bytes
        return strings.reshape(obj["shape"])
    if "bytes" in obj:
        return obj["bytes"].encode()
    if "list" in obj:
        return [_decode(v, where) for v in obj["list"]]
    if "value" in obj:
        return obj["value"]
    raise ValueError(f"{where}: unknown attr encoding {sorted(obj)}")


def _tensor_ref(t):
    return f"{t.op.name}:{t.value_index}"


def export_meta_graph(filename=None, graph=None, clear_devices=False, **unused):
    """Writes the graph (ops, devices, variables, collections) as JSON; returns the dict."""
    graph = graph or get_default_graph()
    nodes = []
    for op in graph.get_operations():
        nodes.append({
            "name": op.name, "op": op.type, "device": "" if clear_devices else op.device,
            "inputs": [_tensor_ref(t) for t in op.inputs], "control_inputs": [c.name for c in op.control_inputs],
            "attrs": {k: _encode(v) for k, v in op.attrs.items()},
            "outputs": [{"dtype": t.dtype.name, "shape": t.shape.dims and list(t.shape.dims)} for t in op.outputs],
        })
    variables = [{"variable": v.op.name, "initializer": v.initializer.name, "snapshot": _tensor_ref(v.value()),
                  "initial_value": _tensor_ref(v.initial_value), "trainable": v in graph.get_collection(GraphKeys.TRAINABLE_VARIABLES)}
                 for v in graph.get_collection(GraphKeys.GLOBAL_VARIABLES)]
    collections = {}
    for key in graph.get_all_collection_keys():
        if key in (GraphKeys.GLOBAL_VARIABLES, GraphKeys.TRAINABLE_VARIABLES):
            continue
        items = [x for x in graph.get_collection(key) if isinstance(x, (Tensor, Operation, Variable))]
        collections[key] = [("var:" + x.op.name) if isinstance(x, Variable) else
                            (_tensor_ref(x) if isinstance(x, Tensor) else "op:" + x.name) for x in items]
    meta = {"format": FORMAT, "version": VERSION, "nodes": nodes, "variables": variables, "collections": collections}
    if filename:
        with open(filename, "w") as f:
            json.dump(meta, f, indent=1)
    return meta


def import_meta_graph(meta_graph_or_file, clear_devices=False, import_scope=None, **unused):
    """Rebuilds a saved graph in the default graph; returns a Saver for its variables."""
    meta = meta_graph_or_file
    if isinstance(meta, str):
        try:
            with open(meta) as f:
                meta = json.load(f)
        except json.JSONDecodeError as e:
            raise ValueError(f"{meta_graph_or_file}: not a devlab meta graph (invalid JSON: {e})") from None
    nodes, variables, collections = _validate(meta)
    graph = get_default_graph()
    clash = [n["name"] for n in nodes if n["name"] in {op.name for op in graph.get_operations()}]
    if clash:
        raise ValueError(f"cannot import: the default graph already has ops named {clash[:3]}")
    built = {}
    for n in nodes:
        inputs = [built[ref.rsplit(":", 1)[0]].outputs[int(ref.rsplit(":", 1)[1])] for ref in n["inputs"]]
        specs = [(dtypes.as_dtype(o["dtype"]), o["shape"]) for o in n["outputs"]]
        attrs = {k: _decode(v, n["name"]) for k, v in n["attrs"].items()}
        graph.unique_name(n["name"])  # mark the name as used
        with graph.control_dependencies(None):
            op = graph.create_op(n["op"], inputs, specs, n["name"] + "/", attrs)
        for c in n["control_inputs"]:
            op._add_control_input(built[c])
        op._set_device("" if clear_devices else n["device"])
        built[n["name"]] = op
    by_name = {}
    for v in variables:
        var = Variable._from_ops(built[v["variable"]], built[v["initializer"]],
                                 _lookup(built, v["snapshot"]), _lookup(built, v["initial_value"]))
        by_name[v["variable"]] = var
        graph.add_to_collection(GraphKeys.GLOBAL_VARIABLES, var)
        if v["trainable"]:
            graph.add_to_collection(GraphKeys.TRAINABLE_VARIABLES, var)
    for key, items in collections.items():
        for item in items:
            if item.startswith("var:"):
                graph.add_to_collection(key, by_name[item[4:]])
            elif item.startswith("op:"):
                graph.add_to_collection(key, built[item[3:]])
            else:
                graph.add_to_collection(key, _lookup(built, item))
    from .saver import Saver
    return Saver(list(by_name.values())) if by_name else None


def _lookup(built, ref):
    name, index = ref.rsplit(":", 1)
    return built[name].outputs[int(index)]


def _validate(meta):
    """Checks the whole file before anything is built; raises ValueError naming the problem."""
    if not isinstance(meta, dict) or meta.get("format") != FORMAT:
        raise ValueError("not a devlab meta graph (missing \"format\": \"devlab.meta_graph\")")
    if meta.get("version") != VERSION:
        raise ValueError(f"unsupported devlab meta graph version {meta.get('version')!r}")
    nodes = meta.get("nodes")
    if not isinstance(nodes, list):
        raise ValueError("meta graph has no node list")
    seen = {}
    for i, n in enumerate(nodes):
        where = f"node {i}"
        if not isinstance(n, dict):
            raise ValueError(f"{where}: must be an object")
        for key, kind in (("name", str), ("op", str), ("device", str), ("inputs", list), ("control_inputs", list),
                          ("attrs", dict), ("outputs", list)):
            if not isinstance(n.get(key), kind):
                raise ValueError(f"{where} ({n.get('name', '?')}): field {key!r} missing or not a {kind.__name__}")
        where = f"node {n['name']!r}"
        if n["op"] not in OPS:
            raise ValueError(f"{where}: unknown op type {n['op']!r}")
        if n["name"] in seen:
            raise ValueError(f"{where}: duplicate name")
        for ref in n["inputs"]:
            name, _, index = ref.rpartition(":")
            if name not in seen or not index.isdigit() or int(index) >= seen[name]:
                raise ValueError(f"{where}: input {ref!r} does not name an earlier op's output")
        for c in n["control_inputs"]:
            if c not in seen:
                raise ValueError(f"{where}: control input {c!r} does not name an earlier op")
        for o in n["outputs"]:
            if not isinstance(o, dict) or o.get("dtype") not in dtypes._BY_NAME:
                raise ValueError(f"{where}: bad output type {o!r}")
        if n["device"]:
            from ..framework.device_spec import DeviceSpec
            try:
                DeviceSpec.from_string(n["device"])
            except ValueError as e:
                raise ValueError(f"{where}: bad device {n['device']!r}: {e}") from None
        for k, v in n["attrs"].items():
            _decode(v, where)
        seen[n["name"]] = len(n["outputs"])
    variables = meta.get("variables", [])
    for v in variables:
        for key in ("variable", "initializer"):
            if v.get(key) not in seen:
                raise ValueError(f"variable record {v!r}: {key} does not name an op")
        for key in ("snapshot", "initial_value"):
            name, _, index = str(v.get(key)).rpartition(":")
            if name not in seen:
                raise ValueError(f"variable record {v!r}: {key} does not name a tensor")
    collections = meta.get("collections", {})
    if not isinstance(collections, dict):
        raise ValueError("collections must be an object")
    for key, items in collections.items():
        for item in items:
            name = item[4:] if item.startswith("var:") else item[3:] if item.startswith("op:") else item.rpartition(":")[0]
            if name not in seen:
                raise ValueError(f"collection {key!r}: {item!r} does not name an op")
    return nodes, variables, collections
