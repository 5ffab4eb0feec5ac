"""devlab's JSON meta graph (``"format": "devlab.meta_graph"``, as ``json_encode.py`` writes it),
parsed and checked into the one ``GraphPlan`` the builder takes.

``validate_meta_graph`` checks *every* field (types, names, references, attrs, each op's inputs
and outputs against the op table's shape rule, Const values present and of their dtype) and
returns a plan in which nothing can fail any more; a bad field is a ValueError that names the
node and the field. Loading only parses and checks data, never runs code from the file.
"""
import json
import math

import numpy as np

from ..framework import dtypes
from ..framework.device_spec import DeviceSpec
from ..framework.graph import VALID_OP_NAME
from ..framework.graph_keys import GraphKeys
from ..framework.tensor_shape import TensorShape
from ..ops.attr_kinds import check_attr, dims
from ..ops.node_check import check_signature, output_specs
from ..ops.table import lookup
from .json_encode import FORMAT, VERSION
from .plan import SAVER_NAMES, GraphPlan, NodeSpec, VariableSpec

MAX_NODES = 1_000_000
_TOP_KEYS = {"format", "version", "nodes", "variables", "collections", "saver_def", "unbound_inputs"}
_NODE_KEYS = {"name", "op", "device", "inputs", "control_inputs", "attrs", "outputs"}
_VARIABLE_KEYS = {"variable", "initializer", "snapshot", "initial_value", "trainable"}


def parse_meta_graph_bytes(data, path="<bytes>"):
    """The JSON object in ``data``, or TF's OSError "Cannot parse file"."""
    try:
        meta = json.loads(data.decode("utf-8"))
    except UnicodeDecodeError as e:
        raise OSError(f"Cannot parse file {path}: not a devlab meta graph (not UTF-8 text: {e.reason} at byte "
                      f"{e.start}).") from None
    except json.JSONDecodeError as e:
        raise OSError(f"Cannot parse file {path}: not a devlab meta graph (invalid JSON: {e}).") from None
    except (RecursionError, ValueError) as e:  # nested too deeply; an integer with too many digits
        raise OSError(f"Cannot parse file {path}: not a devlab meta graph ({type(e).__name__}: {e}).") from None
    return meta


def validate_meta_graph(meta):
    """Checks the whole meta graph (the parsed JSON); returns its GraphPlan, or raises ValueError
    naming the problem."""
    if not isinstance(meta, dict) or meta.get("format") != FORMAT:
        raise ValueError("not a devlab meta graph (missing \"format\": \"devlab.meta_graph\")")
    if meta.get("version") != VERSION:
        raise ValueError(f"unsupported devlab meta graph version {meta.get('version')!r} (devlab reads {VERSION})")
    unknown = set(meta) - _TOP_KEYS
    if unknown:
        raise ValueError(f"meta graph has unknown fields {sorted(unknown)}")
    nodes = meta.get("nodes")
    if not isinstance(nodes, list):
        raise ValueError("meta graph field 'nodes' is missing or not a list")
    for key in ("variables", "collections"):  # export always writes both: a file without is damaged
        if key not in meta:
            raise ValueError(f"meta graph field '{key}' is missing")
    if len(nodes) > MAX_NODES:
        raise ValueError(f"meta graph has {len(nodes)} nodes, more than devlab imports ({MAX_NODES})")
    outputs_of = {}  # node name in the file -> [(DType, dims)]
    unbound = _validate_unbound(meta.get("unbound_inputs", {}))
    outputs_of.update(unbound)  # inputs from outside an exported scope: input_map binds them
    # A loop's NextIteration comes after the Merge that reads it: the one forward reference allowed.
    next_iterations = {n["name"]: n for n in nodes if isinstance(n, dict) and isinstance(n.get("name"), str)
                       and n.get("op") in ("NextIteration", "RefNextIteration")}
    specs = []
    for i, n in enumerate(nodes):
        spec = _validate_node(i, n, outputs_of, next_iterations)
        specs.append(spec)
        outputs_of[n["name"]] = spec.outputs
    for spec in specs:  # colocation groups may name any node of the file, before or after
        groups = spec.attrs.get("_class", ())
        for group in groups:
            if group[5:].decode() not in outputs_of:
                raise ValueError(f"node {spec.name!r}: attr '_class' names {group!r}, which is not a node of the file")
    types = {n["name"]: n["op"] for n in nodes}
    variables = _validate_variables(meta.get("variables", []), outputs_of, types)
    # The variables' own collections are implied by the records (export does not list them).
    collections = {}
    if variables:
        collections[GraphKeys.GLOBAL_VARIABLES] = [("variable", v.variable) for v in variables]
    trainable = [("variable", v.variable) for v in variables if v.trainable]
    if trainable:
        collections[GraphKeys.TRAINABLE_VARIABLES] = trainable
    for key, entries in _validate_collections(meta.get("collections", {}), outputs_of,
                                              {v.variable for v in variables}).items():
        collections.setdefault(key, []).extend(entries)
    saver_def = _validate_saver_def(meta.get("saver_def"), outputs_of)
    return GraphPlan(specs, {spec.name: spec for spec in specs}, variables=variables, collections=collections,
                     saver_def=saver_def, unbound=unbound)


def _validate_unbound(unbound):
    """{"$unbound_inputs_<op>": [(DType, dims)]}: the ops outside an exported scope its nodes read."""
    if not isinstance(unbound, dict):
        raise ValueError("meta graph field 'unbound_inputs' must be an object")
    out = {}
    for name, outputs in unbound.items():
        if not name.startswith("$unbound_inputs_") or not isinstance(outputs, list):
            raise ValueError(f"meta graph field 'unbound_inputs': {name!r} is not an unbound input record")
        out[name] = _output_specs(outputs, f"unbound input {name!r}")
    return out


def _validate_saver_def(saver_def, outputs_of):
    """The file's saver (the names of its save and restore ops), or None."""
    if saver_def is None:
        return None
    if not isinstance(saver_def, dict) or set(saver_def) - set(SAVER_NAMES + ("max_to_keep", "sharded")):
        raise ValueError("meta graph field 'saver_def' must be an object with the names of a Saver's ops")
    out = {}
    for key in SAVER_NAMES:
        value = saver_def.get(key)
        if not isinstance(value, str) or value.split(":")[0] not in outputs_of:
            raise ValueError(f"meta graph field 'saver_def': {key} {value!r} is not a node of the file")
        out[key] = value
    max_to_keep, sharded = saver_def.get("max_to_keep", 5), saver_def.get("sharded", False)
    if not isinstance(max_to_keep, int) or isinstance(max_to_keep, bool) or not isinstance(sharded, bool):
        raise ValueError("meta graph field 'saver_def': max_to_keep must be an int and sharded a bool")
    return dict(out, max_to_keep=max_to_keep, sharded=sharded)


def _validate_node(i, n, outputs_of, next_iterations=None):
    if not isinstance(n, dict):
        raise ValueError(f"node {i}: must be an object, got {type(n).__name__}")
    name = n.get("name")
    where = f"node {i} ({name!r})" if isinstance(name, str) else f"node {i}"
    for key, kind in (("name", str), ("op", str), ("device", str), ("inputs", list), ("control_inputs", list),
                      ("attrs", dict), ("outputs", list)):
        if not isinstance(n.get(key), kind):
            raise ValueError(f"{where}: field {key!r} missing or not a {kind.__name__}")
    unknown = set(n) - _NODE_KEYS
    if unknown:
        raise ValueError(f"{where}: unknown fields {sorted(unknown)}")
    where = f"node {name!r}"
    if not VALID_OP_NAME.match(name):
        raise ValueError(f"{where}: Node name contains invalid characters")
    if name in outputs_of:
        raise ValueError(f"{where}: duplicate name")
    try:  # the op table, or TF's other ops (a Saver's SaveV2...), which devlab places but cannot run
        opdef = lookup(n["op"])
    except KeyError:
        raise ValueError(f"{where}: unknown op type {n['op']!r}") from None
    known = outputs_of
    if n["op"] in ("Merge", "RefMerge") and next_iterations:
        known = dict(outputs_of)
        for later in next_iterations.values():
            if later["name"] not in outputs_of and isinstance(later.get("outputs"), list):
                known[later["name"]] = _output_specs(later["outputs"], f"node {later['name']!r}")
    inputs = [_tensor_reference(ref, known, f"{where}: input {ref!r}") for ref in n["inputs"]]
    controls = []
    for c in n["control_inputs"]:
        if not isinstance(c, str) or c not in outputs_of:
            raise ValueError(f"{where}: control input {c!r} does not name an earlier op")
        controls.append(c)
    outputs = _output_specs(n["outputs"], where)
    if n["device"]:
        try:
            DeviceSpec.from_string(n["device"])
        except (ValueError, TypeError) as e:
            raise ValueError(f"{where}: bad device {n['device']!r}: {e}") from None
    attrs = {}
    for k, v in n["attrs"].items():
        attrs[k] = check_attr(k, _decode(v, f"{where}: attr {k!r}"), f"{where}: attr {k!r}")
    in_specs = [(known[src][index], src) for src, index in inputs]
    _check_against_op_table(name, n["op"], opdef, attrs, in_specs, outputs)
    back_edges = tuple(j for j, (src, _) in enumerate(inputs) if src not in outputs_of)  # a loop's NextIteration
    return NodeSpec(name, n["op"], n["device"], inputs, controls, attrs, outputs, back_edges=back_edges)


def _output_specs(entries, where):
    """[(DType, dims)] from a node's ``outputs`` field."""
    outputs = []
    for j, o in enumerate(entries):
        if not isinstance(o, dict) or set(o) != {"dtype", "shape"} or not isinstance(o["dtype"], str) \
                or o["dtype"] not in dtypes._BY_NAME:
            raise ValueError(f"{where}: output {j} must be {{\"dtype\": <a dtype name>, \"shape\": ...}}, got {o!r}")
        outputs.append((dtypes._BY_NAME[o["dtype"]], dims(o["shape"], f"{where}: output {j} shape")))
    return outputs


def _tensor_reference(ref, outputs_of, where):
    """(op name, index) of a tensor reference ``"op:index"`` to an earlier node's output."""
    if not isinstance(ref, str):
        raise ValueError(f"{where}: a tensor reference must be a string \"op:index\"")
    name, _, index = ref.rpartition(":")
    if name not in outputs_of or not index.isdigit() or int(index) >= len(outputs_of[name]):
        raise ValueError(f"{where} does not name an earlier op's output")
    return name, int(index)


def _array_shape(shape, where):
    """The shape of an encoded array: a list of known dims (no None)."""
    known = dims(shape, where)
    if known is None or any(d is None for d in known):
        raise ValueError(f"{where}: an array's shape must be a list of ints, got {shape!r}")
    return known


def _decode(obj, where, depth=0):
    """An attr value from its JSON encoding; ValueError naming ``where`` if it is malformed."""
    if depth > 32:
        raise ValueError(f"{where}: nested too deeply")
    if not isinstance(obj, dict) or len(obj) < 1:
        raise ValueError(f"{where}: an attr must be an object such as {{\"value\": 1}}, got {obj!r}")
    keys = set(obj)
    if keys == {"dtype"}:
        return _dtype(obj["dtype"], where)
    if keys == {"array", "dtype", "shape"}:
        dtype = _dtype(obj["dtype"], where)
        shape = _array_shape(obj["shape"], f"{where} shape")
        if dtype.base_dtype == dtypes.string:
            raise ValueError(f"{where}: a string array is encoded as {{\"strings\": ..., \"shape\": ...}}")
        try:
            arr = np.asarray(obj["array"], dtype=dtype.as_numpy_dtype)
        except (ValueError, TypeError, OverflowError) as e:
            raise ValueError(f"{where}: array is not a well-formed {dtype.name} array ({e})") from None
        if arr.size != math.prod(shape):
            raise ValueError(f"{where}: array has {arr.size} elements but shape {list(shape)} needs {math.prod(shape)}")
        return arr.reshape(shape)
    if keys == {"strings", "shape"}:
        shape = _array_shape(obj["shape"], f"{where} shape")
        strings = obj["strings"]
        if not isinstance(strings, list) or not all(isinstance(s, str) for s in strings):
            raise ValueError(f"{where}: 'strings' must be a list of strings")
        if len(strings) != math.prod(shape):
            raise ValueError(f"{where}: {len(strings)} strings but shape {list(shape)} needs {math.prod(shape)}")
        encoded = [x.encode("utf-8", "surrogateescape") for x in strings]  # string tensors hold bytes
        return np.array(encoded + [None], dtype=object)[:-1].reshape(shape)
    if keys == {"bytes"}:
        if not isinstance(obj["bytes"], str):
            raise ValueError(f"{where}: 'bytes' must be a string")
        return obj["bytes"].encode()
    if keys == {"list"}:
        if not isinstance(obj["list"], list):
            raise ValueError(f"{where}: 'list' must be a list")
        return [_decode(v, where, depth + 1) for v in obj["list"]]
    if keys == {"value"}:
        value = obj["value"]
        if value is not None and not isinstance(value, (bool, int, float, str)):
            raise ValueError(f"{where}: 'value' must be null, a boolean, a number or a string, got {value!r}")
        return value
    raise ValueError(f"{where}: unknown attr encoding {sorted(keys)}")


def _dtype(name, where):
    if not isinstance(name, str) or name not in dtypes._BY_NAME:
        raise ValueError(f"{where}: unknown dtype {name!r}")
    return dtypes._BY_NAME[name]


class _InputSpec:
    """What an op-table shape rule reads of an input: its dtype and static shape."""

    def __init__(self, dtype, dims, producer):
        self.dtype, self.shape, self.name = dtype, TensorShape(dims), producer


def _check_against_op_table(name, op_type, opdef, attrs, in_specs, outputs):
    """The node's inputs, attrs and outputs must be what the op table makes of them."""
    where = f"node {name!r}"
    inputs = [_InputSpec(dt, dims, src) for (dt, dims), src in in_specs]
    check_signature(name, op_type, opdef, attrs, inputs)
    if op_type == "Const":
        value, dtype = attrs.get("value"), attrs.get("dtype")
        if not isinstance(value, np.ndarray) or not isinstance(dtype, dtypes.DType):
            raise ValueError(f"{where}: a Const needs attrs 'value' (an array) and 'dtype'")
        if np.dtype(dtype.as_numpy_dtype) != value.dtype:
            raise ValueError(f"{where}: Const value is {value.dtype} but its dtype attr is {dtype.name}")
    expected = output_specs(name, op_type, opdef, attrs, inputs)
    if len(expected) != len(outputs):
        raise ValueError(f"{where}: a {op_type} op has {len(expected)} outputs, the file lists {len(outputs)}")
    for j, ((dt, got), (want_dt, want_dims)) in enumerate(zip(outputs, expected)):
        if dt != dtypes.as_dtype(want_dt):
            raise ValueError(f"{where}: output {j} is {dt.name} in the file, but the op makes "
                             f"{dtypes.as_dtype(want_dt).name}")
        if not TensorShape(got).is_compatible_with(TensorShape(want_dims)):
            raise ValueError(f"{where}: output {j} has shape {got} in the file, but the op makes {want_dims}")


def _validate_variables(variables, outputs_of, types):
    if not isinstance(variables, list):
        raise ValueError("meta graph field 'variables' must be a list")
    out, seen = [], set()
    for i, v in enumerate(variables):
        if not isinstance(v, dict) or set(v) != _VARIABLE_KEYS:
            raise ValueError(f"variable record {i} must have exactly the fields {sorted(_VARIABLE_KEYS)}, got {v!r}")
        where = f"variable record {i} ({v['variable']!r})"
        if isinstance(v["variable"], str) and types.get(v["variable"]) == "VarHandleOp":
            raise NotImplementedError(f"{where}: devlab does not import resource variables (VarHandleOp) from a "
                                      "meta graph yet")
        if not isinstance(v["variable"], str) or types.get(v["variable"]) != "VariableV2":
            raise ValueError(f"{where}: 'variable' does not name a VariableV2 op of the file")
        if v["variable"] in seen:
            raise ValueError(f"{where}: listed twice")
        seen.add(v["variable"])
        if not isinstance(v["initializer"], str) or v["initializer"] not in types:
            raise ValueError(f"{where}: 'initializer' does not name an op of the file")
        snapshot = _tensor_reference(v["snapshot"], outputs_of, f"{where}: snapshot")
        initial = _tensor_reference(v["initial_value"], outputs_of, f"{where}: initial_value")
        if not isinstance(v["trainable"], bool):
            raise ValueError(f"{where}: 'trainable' must be true or false")
        out.append(VariableSpec(v["variable"], v["initializer"], snapshot, initial, v["trainable"]))
    return out


def _validate_collections(collections, outputs_of, variable_names):
    if not isinstance(collections, dict):
        raise ValueError("meta graph field 'collections' must be an object")
    out = {}
    for key, items in collections.items():
        if not isinstance(items, list) or not all(isinstance(x, str) for x in items):
            raise ValueError(f"collection {key!r} must be a list of strings")
        entries = []
        for item in items:
            if item.startswith("var:"):
                if item[4:] not in variable_names:
                    raise ValueError(f"collection {key!r}: {item!r} does not name a variable record")
                entries.append(("variable", item[4:]))
            elif item.startswith("queue_runner:"):
                entries.append(("queue_runner", _queue_runner_entry(key, item, outputs_of)))
            elif item.startswith("saver:"):
                try:
                    record = json.loads(item[len("saver:"):])
                except ValueError:
                    raise ValueError(f"collection {key!r}: {item[:80]!r} is not a saver record") from None
                entries.append(("saver", _validate_saver_def(record, outputs_of)))
            elif item.startswith("op:"):
                if item[3:] not in outputs_of:
                    raise ValueError(f"collection {key!r}: {item!r} does not name an op")
                entries.append(("op", item[3:]))
            else:
                name, index = _tensor_reference(item, outputs_of, f"collection {key!r}: {item!r}")
                entries.append(("tensor", (name, index)))
        out[key] = entries
    return out


def _queue_runner_entry(key, item, outputs_of):
    """A queue runner's record: {"queue", "enqueue_ops", "close_op", "cancel_op"}, each an op of the graph."""
    try:
        record = json.loads(item[len("queue_runner:"):])
    except ValueError:
        record = None
    names = ["queue", "enqueue_ops", "close_op", "cancel_op"]
    if not isinstance(record, dict) or set(record) != set(names) or not isinstance(record["enqueue_ops"], list):
        raise ValueError(f"collection {key!r}: {item[:80]!r} is not a queue runner record")
    for name in [record["queue"], record["close_op"], record["cancel_op"]] + record["enqueue_ops"]:
        if not isinstance(name, str) or name not in outputs_of:
            raise ValueError(f"collection {key!r}: queue runner names {name!r}, which is not an op")
    return record
