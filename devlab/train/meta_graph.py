"""Saving a graph with its devices to a JSON file, and loading it back.

The format is plain JSON (``"format": "devlab.meta_graph"``): one record per op with its type,
inputs, requested device, attrs and output types, plus the variables and collections. Loading
only parses and checks data, never runs code from the file. ``clear_devices=True`` drops every
requested device, so the graph is placed afresh; ``import_scope="s"`` puts every name under ``s/``.

``import_meta_graph`` is the one entry point, in three steps that each stand alone:

1. ``read_meta_graph_file(path)``: the file's bytes, bounded (``MAX_FILE_BYTES``; a device such
   as ``/dev/zero`` or a pipe is refused before a byte is read), parsed. TF's ``OSError``\\s
   ("File does not exist", "Cannot parse file ..."), ``FailedPreconditionError`` for a folder.
2. ``validate_meta_graph(meta, import_scope)``: checks *every* field (types, names, references,
   attrs, each op's inputs and outputs against the op table's shape rule, Const values present
   and of their dtype) and returns an ``ImportPlan`` in which nothing can fail any more; a bad
   field is a ValueError (TypeError for a wrong argument) that names the node and the field.
3. ``check_import_target(graph, plan)`` then ``build(graph, plan, clear_devices)``: only now is the
   graph touched, so a bad file never leaves a half-built graph.

A file that is not devlab's JSON (its first character is not ``{``) is TensorFlow's MetaGraphDef,
binary or text, as ``tf.train.Saver`` writes it: ``devlab.graphs`` reads it (TF's importer, the
``graphs`` extra), as it does a MetaGraphDef message passed in place of the file.
"""
import inspect
import json
import math
import os
import re
from dataclasses import dataclass, field

import numpy as np

from ..framework import dtypes
from ..framework.device_spec import DeviceSpec
from ..framework.graph import get_default_graph
from ..framework.graph_keys import GraphKeys
from ..framework.operation import Operation
from ..framework.tensor import Tensor
from ..framework.tensor_shape import TensorShape
from ..ops.table import lookup
from ..api.variables import Variable

FORMAT = "devlab.meta_graph"
VERSION = 1
MAX_FILE_BYTES = 256 << 20  # a saved graph (constants included) larger than this is refused unread
MAX_NODES = 1_000_000
MAX_RANK = 254  # TF's limit on the rank of a tensor
MAX_DIM = 2 ** 62

_VALID_NAME = re.compile(r"^[A-Za-z0-9.][A-Za-z0-9_.\\/>-]*$")  # TF's op names
_TOP_KEYS = {"format", "version", "nodes", "variables", "collections", "saver_def"}
_SAVER_NAMES = ("filename_tensor_name", "save_tensor_name", "restore_op_name")
_NODE_KEYS = {"name", "op", "device", "inputs", "control_inputs", "attrs", "outputs"}
_VARIABLE_KEYS = {"variable", "initializer", "snapshot", "initial_value", "trainable"}

# The kinds of the attrs devlab's ops read, by attr name: a file giving another kind is refused.
_DTYPE_ATTRS = {"dtype", "T", "DstT", "SrcT", "out_type", "output_type", "Tidx"}
_BOOL_ATTRS = {"transpose_a", "transpose_b", "keep_dims", "use_locking", "validate_shape", "use_nesterov",
               "adj_x", "adj_y", "is_training", "use_cudnn_on_gpu"}
_INT_ATTRS = {"N", "depth", "batch", "tower", "towers", "num", "num_split", "depth_radius", "begin_mask", "end_mask",
              "ellipsis_mask", "new_axis_mask", "shrink_axis_mask"}
_FLOAT_ATTRS = {"bias", "alpha", "beta", "epsilon", "exponential_avg_factor"}
_INT_LIST_ATTRS = {"squeeze_dims", "strides", "ksize", "dilations", "explicit_paddings"}
_OPTIONAL_INT_ATTRS = {"seed", "seed2"}
_DIMS_ATTRS = {"shape", "perm"}  # None, or a list of ints (-1 allowed in a reshape) and Nones
STR_ATTRS = {"separator", "padding", "data_format", "mode"}
# The attrs each op's kernel (or the runtime) reads: a node without one would fail only at run time.
REQUIRED_ATTRS = {
    "Const": ("value", "dtype"), "VariableV2": ("shape", "dtype"), "Placeholder": ("dtype", "shape"),
    "RandomUniform": ("dtype",), "RandomUniformInt": ("dtype",), "RandomStandardNormal": ("dtype",),
    "TruncatedNormal": ("dtype",), "Sum": ("keep_dims",), "Mean": ("keep_dims",), "Max": ("keep_dims",),
    "Min": ("keep_dims",), "Prod": ("keep_dims",), "Any": ("keep_dims",), "All": ("keep_dims",),
    "ArgMax": ("output_type",), "Pack": ("axis",), "Unpack": ("axis", "num"), "Shape": ("out_type",),
    "ShapeN": ("out_type",), "Size": ("out_type",), "Cast": ("SrcT", "DstT"), "Squeeze": ("squeeze_dims",),
    "Split": ("num_split",), "SplitV": ("num_split",), "Range": ("Tidx",), "MirrorPad": ("mode",),
    "MirrorPadGrad": ("mode",), "DynamicStitch": ("N",), "StringJoin": ("separator",),
    "Conv2D": ("strides", "padding"), "Conv2DBackpropInput": ("strides", "padding"),
    "Conv2DBackpropFilter": ("strides", "padding"), "MaxPool": ("ksize", "strides", "padding"),
    "MaxPoolGrad": ("ksize", "strides", "padding"), "AvgPool": ("ksize", "strides", "padding"),
    "AvgPoolGrad": ("ksize", "strides", "padding"), "LRN": ("depth_radius", "bias", "alpha", "beta"),
    "LRNGrad": ("depth_radius", "bias", "alpha", "beta"), "FusedBatchNormV3": ("epsilon",),
    "FusedBatchNormGradV3": ("epsilon",), "DatasetSlice": ("data", "batch", "tower", "towers"),
}


# -- saving -------------------------------------------------------------------------------------
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


def _tensor_ref(t):
    return f"{t.op.name}:{t.value_index}"


def export_meta_graph(filename=None, graph=None, clear_devices=False, saver_def=None, **unused):
    """Writes the graph (ops, devices, variables, collections, and the ``saver_def`` naming a
    Saver's ops when given) as JSON; returns the dict."""
    graph = graph or get_default_graph()
    # Variables first: a mirrored variable's ``initializer`` is a group op made on first access,
    # and it must be among the nodes written below.
    variables = [{"variable": v.op.name, "initializer": v.initializer.name, "snapshot": _tensor_ref(v.value()),
                  "initial_value": _tensor_ref(v.initial_value), "trainable": v in graph.get_collection(GraphKeys.TRAINABLE_VARIABLES)}
                 for v in graph.get_collection(GraphKeys.GLOBAL_VARIABLES)]
    nodes = []
    for op in _definition_order(graph.get_operations()):
        nodes.append({
            "name": op.name, "op": op.type, "device": "" if clear_devices else op.device,
            "inputs": [_tensor_ref(t) for t in op.inputs], "control_inputs": [c.name for c in op.control_inputs],
            "attrs": {k: _encode(v) for k, v in op.attrs.items()},
            "outputs": [{"dtype": t.dtype.name, "shape": t.shape.sizes and list(t.shape.sizes)} for t in op.outputs],
        })
    collections = {}
    for key in graph.get_all_collection_keys():
        if key in (GraphKeys.GLOBAL_VARIABLES, GraphKeys.TRAINABLE_VARIABLES):
            continue
        items = [x for x in graph.get_collection(key) if isinstance(x, (Tensor, Operation, Variable))]
        collections[key] = [("var:" + x.op.name) if isinstance(x, Variable) else
                            (_tensor_ref(x) if isinstance(x, Tensor) else "op:" + x.name) for x in items]
    meta = {"format": FORMAT, "version": VERSION, "nodes": nodes, "variables": variables, "collections": collections}
    if saver_def is not None:
        meta["saver_def"] = {k: getattr(saver_def, k) for k in _SAVER_NAMES + ("max_to_keep", "sharded")}
    if filename:
        with open(filename, "w") as f:
            json.dump(meta, f, indent=1)
    return meta


def _is_back_edge(op, producer):
    """A while loop's NextIteration -> Merge edge: the one edge allowed to point forward."""
    return op.type in ("Merge", "RefMerge") and producer.type in ("NextIteration", "RefNextIteration")


def _definition_order(ops):
    """``ops`` reordered so every op comes after its inputs and control inputs (loop back edges
    aside); creation order where it already is. Control flow rewires inputs after creation (a
    cond's Switch is made after the op that reads it), so creation order alone is not enough."""
    placed, visiting, order = set(), set(), []
    for root in ops:
        stack = [(root, False)]
        while stack:
            op, expanded = stack.pop()
            if op in placed or (op in visiting and not expanded):  # done, or a cycle: leave it be
                continue
            if expanded:
                placed.add(op)
                order.append(op)
                continue
            visiting.add(op)
            stack.append((op, True))
            deps = [t.op for t in op.inputs if not _is_back_edge(op, t.op)] + list(op.control_inputs)
            stack.extend((d, False) for d in reversed(deps) if d not in placed)
    return order


# -- loading ------------------------------------------------------------------------------------
def import_meta_graph(meta_graph_or_file, clear_devices=False, import_scope=None, **unused):
    """Rebuilds a saved graph in the default graph; returns a Saver for its variables (None if it
    has none). Everything is checked before the graph is touched."""
    if not isinstance(clear_devices, bool):
        raise TypeError(f"clear_devices must be True or False, got {clear_devices!r}")
    meta = meta_graph_or_file
    if isinstance(meta, (str, bytes, os.PathLike)):
        data, path = _read_bounded(meta)
        if data.lstrip()[:1] not in (b"{", b"["):  # not devlab's JSON: TF's MetaGraphDef, binary or text
            return _import_tf(_parse_tf(data, path), clear_devices, import_scope)
        meta = parse_meta_graph_bytes(data, path)
    elif type(meta).__name__ == "MetaGraphDef" and hasattr(meta, "graph_def"):
        return _import_tf(meta, clear_devices, import_scope)
    elif not isinstance(meta, dict):
        raise TypeError(f"Expected binary or unicode string, got {meta_graph_or_file!r}")
    plan = validate_meta_graph(meta, import_scope)
    graph = get_default_graph()
    check_import_target(graph, plan)
    by_name = build(graph, plan, clear_devices)
    return _saver_for(by_name, plan.saver_def)


def _saver_for(variables, saver_def):
    """TF's rule: a Saver over the file's own save ops when the file has a saver, else a new Saver
    of every global variable; None without variables."""
    from .saver import Saver
    from .saver_graph import SaverDef
    if not variables:
        return None
    if saver_def is not None:
        return Saver(list(variables.values()), saver_def=SaverDef(**saver_def))
    return Saver()


def _parse_tf(data, path):
    """TensorFlow's MetaGraphDef in ``data``, or TF's OSError "Cannot parse file"."""
    from ..graphs.files import GraphFileError, parse_meta_graph_def
    try:
        return parse_meta_graph_def(data, path)
    except GraphFileError as e:
        reason = str(e).split(": ", 1)[-1]
        raise OSError(f"Cannot parse file {path}: not a devlab meta graph (JSON), and {reason}") from None


def _import_tf(meta, clear_devices, import_scope):
    """TensorFlow's MetaGraphDef (a ``.meta`` file): imported as TF's importer does it; a Saver of
    its variables (None if it has none)."""
    from ..graphs.load import import_tf_meta_graph
    from ..framework.tf_protos import pb
    if not isinstance(meta, pb().MetaGraphDef):
        meta = pb().MetaGraphDef.FromString(meta.SerializeToString())
    _scope_prefix(import_scope)  # the same checks as for devlab's format
    variables = import_tf_meta_graph(meta, get_default_graph(), clear_devices, import_scope or None)
    saver_def = None
    if meta.HasField("saver_def"):
        prefix = _scope_prefix(import_scope)
        d = meta.saver_def
        saver_def = {k: prefix + getattr(d, k) for k in _SAVER_NAMES}
        saver_def.update(max_to_keep=d.max_to_keep, sharded=d.sharded)
    return _saver_for(variables, saver_def)


def read_meta_graph_file(filename):
    """The parsed JSON of a meta graph file, read with bounds; TF's errors for a file that is
    missing, a folder, not a regular file, too large, or not parseable."""
    data, path = _read_bounded(filename)
    return parse_meta_graph_bytes(data, path)


def _read_bounded(filename):
    """(the bytes of a meta graph file, its path), read with bounds; TF's errors for a file that
    is missing, a folder, not a regular file or too large."""
    from ..graphs.files import read_file
    return read_file(filename, MAX_FILE_BYTES, "a meta graph", OSError, "devlab.train.meta_graph.MAX_FILE_BYTES")


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


@dataclass
class NodePlan:
    """One op to create, every field checked: names already carry the import scope."""
    name: str
    op_type: str
    device: str
    inputs: list  # [(producer name, output index)]
    control_inputs: list  # [producer name]
    attrs: dict  # decoded values
    outputs: list  # [(DType, shape dims or None)]


@dataclass
class ImportPlan:
    nodes: list
    variables: list  # [(variable, initializer, (snapshot op, index), (initial value op, index), trainable)]
    collections: dict  # key -> [("var" | "op" | "tensor", name, index or None)]
    names: set = field(default_factory=set)
    saver_def: dict = None  # the file's saver: names of its ops (import scope included)


def validate_meta_graph(meta, import_scope=None):
    """Checks the whole meta graph; returns the ImportPlan, or raises ValueError naming the problem."""
    prefix = _scope_prefix(import_scope)
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
    # A loop's NextIteration comes after the Merge that reads it: the one forward reference allowed.
    next_iterations = {n["name"]: n for n in nodes if isinstance(n, dict) and isinstance(n.get("name"), str)
                       and n.get("op") in ("NextIteration", "RefNextIteration")}
    plans = []
    for i, n in enumerate(nodes):
        plan = _validate_node(i, n, outputs_of, prefix, next_iterations)
        plans.append(plan)
        outputs_of[n["name"]] = plan.outputs
    for plan in plans:  # colocation groups may name any node of the file, before or after
        groups = plan.attrs.get("_class", ())
        for group in groups:
            if group[5:].decode() not in outputs_of:
                raise ValueError(f"node {plan.name!r}: attr '_class' names {group!r}, which is not a node of the file")
        if prefix and groups:
            plan.attrs["_class"] = [b"loc:@" + (prefix + g[5:].decode()).encode() for g in groups]
    types = {n["name"]: n["op"] for n in nodes}
    variables = _validate_variables(meta.get("variables", []), outputs_of, types, prefix)
    collections = _validate_collections(meta.get("collections", {}), outputs_of, {v[0] for v in variables}, prefix)
    saver_def = _validate_saver_def(meta.get("saver_def"), outputs_of, prefix)
    return ImportPlan(plans, variables, collections, {p.name for p in plans}, saver_def)


def _validate_saver_def(saver_def, outputs_of, prefix):
    """The file's saver (the names of its save and restore ops, with the import scope), or None."""
    if saver_def is None:
        return None
    if not isinstance(saver_def, dict) or set(saver_def) - set(_SAVER_NAMES + ("max_to_keep", "sharded")):
        raise ValueError("meta graph field 'saver_def' must be an object with the names of a Saver's ops")
    out = {}
    for key in _SAVER_NAMES:
        value = saver_def.get(key)
        if not isinstance(value, str) or value.split(":")[0] not in outputs_of:
            raise ValueError(f"meta graph field 'saver_def': {key} {value!r} is not a node of the file")
        out[key] = prefix + value
    max_to_keep, sharded = saver_def.get("max_to_keep", 5), saver_def.get("sharded", False)
    if not isinstance(max_to_keep, int) or isinstance(max_to_keep, bool) or not isinstance(sharded, bool):
        raise ValueError("meta graph field 'saver_def': max_to_keep must be an int and sharded a bool")
    return dict(out, max_to_keep=max_to_keep, sharded=sharded)


def _scope_prefix(import_scope):
    if import_scope is None or import_scope == "":
        return ""
    if not isinstance(import_scope, str):
        raise TypeError(f"import_scope must be a string, got {import_scope!r}")
    scope = import_scope.rstrip("/")
    if not _VALID_NAME.match(scope):
        raise ValueError(f"'{import_scope}' is not a valid scope name")
    return scope + "/"


def _validate_node(i, n, outputs_of, prefix, next_iterations=None):
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
    if not _VALID_NAME.match(name):
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
        controls.append(prefix + c)
    outputs = _output_specs(n["outputs"], where)
    if n["device"]:
        try:
            DeviceSpec.from_string(n["device"])
        except (ValueError, TypeError) as e:
            raise ValueError(f"{where}: bad device {n['device']!r}: {e}") from None
    attrs = {}
    for k, v in n["attrs"].items():
        attrs[k] = _check_attr(k, _decode(v, f"{where}: attr {k!r}"), f"{where}: attr {k!r}")
    in_specs = [(known[src][index], src) for src, index in inputs]
    _check_against_op_table(name, n["op"], opdef, attrs, in_specs, outputs)
    return NodePlan(prefix + name, n["op"], n["device"], [(prefix + src, index) for src, index in inputs],
                    controls, attrs, outputs)


def _output_specs(entries, where):
    """[(DType, dims)] from a node's ``outputs`` field."""
    outputs = []
    for j, o in enumerate(entries):
        if not isinstance(o, dict) or set(o) != {"dtype", "shape"} or not isinstance(o["dtype"], str) \
                or o["dtype"] not in dtypes._BY_NAME:
            raise ValueError(f"{where}: output {j} must be {{\"dtype\": <a dtype name>, \"shape\": ...}}, got {o!r}")
        outputs.append((dtypes._BY_NAME[o["dtype"]], _dims(o["shape"], f"{where}: output {j} shape")))
    return outputs


def _tensor_reference(ref, outputs_of, where):
    """(op name, index) of a tensor reference ``"op:index"`` to an earlier node's output."""
    if not isinstance(ref, str):
        raise ValueError(f"{where}: a tensor reference must be a string \"op:index\"")
    name, _, index = ref.rpartition(":")
    if name not in outputs_of or not index.isdigit() or int(index) >= len(outputs_of[name]):
        raise ValueError(f"{where} does not name an earlier op's output")
    return name, int(index)


def _dims(shape, where, allow_minus_one=False):
    """A shape field: None (unknown) or a list of dims, each an int >= 0 (or -1 where allowed) or None."""
    if shape is None:
        return None
    if not isinstance(shape, (list, tuple)) or len(shape) > MAX_RANK:
        raise ValueError(f"{where}: must be null or a list of at most {MAX_RANK} dims, got {shape!r}")
    low = -1 if allow_minus_one else 0
    for d in shape:
        if d is not None and (isinstance(d, bool) or not isinstance(d, int) or not low <= d <= MAX_DIM):
            raise ValueError(f"{where}: a dim must be null or an int in [{low}, 2**62], got {d!r}")
    return tuple(shape)


def _array_shape(shape, where):
    """The shape of an encoded array: a list of known dims (no None)."""
    dims = _dims(shape, where)
    if dims is None or any(d is None for d in dims):
        raise ValueError(f"{where}: an array's shape must be a list of ints, got {shape!r}")
    return dims


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


def _check_attr(key, value, where):
    """The attr if it has the kind devlab's ops read under that name; else a ValueError."""
    def fail(kind):
        raise ValueError(f"{where}: must be {kind}, got {value!r}")
    if key in _DTYPE_ATTRS and not isinstance(value, dtypes.DType):
        fail("a dtype such as {\"dtype\": \"float32\"}")
    if key in _BOOL_ATTRS and not isinstance(value, bool):
        fail("true or false")
    if key in _INT_ATTRS and (isinstance(value, bool) or not isinstance(value, int)):
        fail("an integer")
    if key in _OPTIONAL_INT_ATTRS and value is not None and (isinstance(value, bool) or not isinstance(value, int)):
        fail("null or an integer")
    if key in STR_ATTRS and not isinstance(value, str):
        fail("a string")
    if key in _FLOAT_ATTRS and (isinstance(value, bool) or not isinstance(value, (int, float))):
        fail("a number")
    if key in _INT_LIST_ATTRS and not (isinstance(value, list) and all(
            isinstance(v, int) and not isinstance(v, bool) for v in value)):
        fail("a list of integers")
    if key == "data" and not isinstance(value, np.ndarray):
        fail("an array")
    if key in _DIMS_ATTRS:
        return None if value is None else list(_dims(value, where, allow_minus_one=True))
    if key == "axis" and value is not None and not (
            (isinstance(value, int) and not isinstance(value, bool)) or
            (isinstance(value, list) and all(isinstance(a, int) and not isinstance(a, bool) for a in value))):
        fail("null, an integer or a list of integers")
    if key == "_class" and not (isinstance(value, list) and all(
            isinstance(g, bytes) and g.startswith(b"loc:@") and _VALID_NAME.match(g[5:].decode("utf-8", "replace"))
            for g in value)):
        fail("a list of colocation groups such as [{\"bytes\": \"loc:@v\"}]")
    return value


def _arity(opdef):
    """(fewest, most) inputs the op's kernel takes."""
    kernel = opdef.kernel
    params = list(inspect.signature(kernel).parameters.values())[1:]
    fixed = sum(p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) for p in params)
    if not any(p.kind == p.VAR_POSITIONAL for p in params):
        return fixed, fixed
    ufunc = getattr(kernel, "ufunc", None)
    if ufunc is not None:
        n = getattr(np, ufunc).nin
        return n, n
    if len(opdef.args) > 1:
        return len(opdef.args), len(opdef.args)
    return max(fixed, 1), math.inf


class _InputSpec:
    """What an op-table shape rule reads of an input: its dtype and static shape."""

    def __init__(self, dtype, dims, producer):
        self.dtype, self.shape, self.name = dtype, TensorShape(dims), producer


def _check_against_op_table(name, op_type, opdef, attrs, in_specs, outputs):
    """The node's inputs, attrs and outputs must be what the op table makes of them."""
    where = f"node {name!r}"
    missing = [a for a in REQUIRED_ATTRS.get(op_type, ()) if a not in attrs]
    if missing:
        raise ValueError(f"{where}: a {op_type} op needs the attrs {missing}")
    low, high = _arity(opdef)
    if not low <= len(in_specs) <= high:
        want = low if low == high else f"at least {low}"
        raise ValueError(f"{where}: a {op_type} op takes {want} inputs, the file gives {len(in_specs)}")
    for i in opdef.ref_inputs:
        if i < len(in_specs) and not in_specs[i][0][0].is_ref:
            dt = in_specs[i][0][0]
            raise ValueError(f"{where}: Input {i} of node {name} was passed {dt.tf_type_name} from "
                             f"{in_specs[i][1]} incompatible with expected {dt.tf_type_name}_ref.")
    if opdef.args and len(in_specs) > 1:
        first = in_specs[0][0][0].base_dtype
        for i, ((dt, _), src) in enumerate(in_specs[1:], start=1):
            if dt.base_dtype != first:
                raise ValueError(f"{where}: Input {i} was passed {dt.base_dtype.tf_type_name} from {src} "
                                 f"incompatible with expected {first.tf_type_name}.")
    if op_type == "Const":
        value, dtype = attrs.get("value"), attrs.get("dtype")
        if not isinstance(value, np.ndarray) or not isinstance(dtype, dtypes.DType):
            raise ValueError(f"{where}: a Const needs attrs 'value' (an array) and 'dtype'")
        if np.dtype(dtype.as_numpy_dtype) != value.dtype:
            raise ValueError(f"{where}: Const value is {value.dtype} but its dtype attr is {dtype.name}")
    inputs = [_InputSpec(dt, dims, src) for (dt, dims), src in in_specs]
    try:
        expected = opdef.shape(inputs, dict(attrs))
    except Exception as e:  # noqa: BLE001 - any failure of the rule means the node is malformed
        raise ValueError(f"{where}: its inputs and attrs do not make a valid {op_type} op "
                         f"({type(e).__name__}: {e})") from None
    if len(expected) != len(outputs):
        raise ValueError(f"{where}: a {op_type} op has {len(expected)} outputs, the file lists {len(outputs)}")
    for j, ((dt, dims), (want_dt, want_dims)) in enumerate(zip(outputs, expected)):
        if dt != dtypes.as_dtype(want_dt):
            raise ValueError(f"{where}: output {j} is {dt.name} in the file, but the op makes "
                             f"{dtypes.as_dtype(want_dt).name}")
        if not TensorShape(dims).is_compatible_with(TensorShape(want_dims)):
            raise ValueError(f"{where}: output {j} has shape {dims} in the file, but the op makes {want_dims}")


def _validate_variables(variables, outputs_of, types, prefix):
    if not isinstance(variables, list):
        raise ValueError("meta graph field 'variables' must be a list")
    out, seen = [], set()
    for i, v in enumerate(variables):
        if not isinstance(v, dict) or set(v) != _VARIABLE_KEYS:
            raise ValueError(f"variable record {i} must have exactly the fields {sorted(_VARIABLE_KEYS)}, got {v!r}")
        where = f"variable record {i} ({v['variable']!r})"
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
        out.append((prefix + v["variable"], prefix + v["initializer"], (prefix + snapshot[0], snapshot[1]),
                    (prefix + initial[0], initial[1]), v["trainable"]))
    return out


def _validate_collections(collections, outputs_of, variable_names, prefix):
    if not isinstance(collections, dict):
        raise ValueError("meta graph field 'collections' must be an object")
    out = {}
    for key, items in collections.items():
        if not isinstance(items, list) or not all(isinstance(x, str) for x in items):
            raise ValueError(f"collection {key!r} must be a list of strings")
        entries = []
        for item in items:
            if item.startswith("var:"):
                if prefix + item[4:] not in variable_names:
                    raise ValueError(f"collection {key!r}: {item!r} does not name a variable record")
                entries.append(("var", prefix + item[4:], None))
            elif item.startswith("op:"):
                if item[3:] not in outputs_of:
                    raise ValueError(f"collection {key!r}: {item!r} does not name an op")
                entries.append(("op", prefix + item[3:], None))
            else:
                name, index = _tensor_reference(item, outputs_of, f"collection {key!r}: {item!r}")
                entries.append(("tensor", prefix + name, index))
        out[key] = entries
    return out


def check_import_target(graph, plan):
    """The graph can take the plan: not finalized, and none of its names taken."""
    if graph.finalized:
        raise RuntimeError("Graph is finalized and cannot be modified.")
    existing = {op.name for op in graph.get_operations()}
    clash = [name for name in (n.name for n in plan.nodes) if name in existing]
    if clash:
        raise ValueError(f"cannot import: the default graph already has ops named {clash[:3]} "
                         "(import into a new tf.Graph(), or pass import_scope)")


def build(graph, plan, clear_devices=False):
    """Creates the plan's ops, variables and collections in ``graph``; returns {name: Variable}."""
    built, back_edges = {}, []
    for n in plan.nodes:
        # A Merge's NextIteration input is made later: stand in its first input, rewire below.
        present = next((built[src].outputs[index] for src, index in n.inputs if src in built), None)
        inputs = [built[src].outputs[index] if src in built else present for src, index in n.inputs]
        back_edges += [(n.name, i, src, index) for i, (src, index) in enumerate(n.inputs) if src not in built]
        graph.unique_name(n.name)  # mark the name as used
        with graph.control_dependencies(None):
            op = graph.create_op(n.op_type, inputs, n.outputs, name=n.name + "/", attrs=n.attrs)
        for c in n.control_inputs:
            op._add_control_input(built[c])
        op._set_device("" if clear_devices else n.device)
        built[n.name] = op
    for name, i, src, index in back_edges:
        built[name]._update_input(i, built[src].outputs[index])
    by_name = {}
    for name, initializer, (snap, si), (init, ii), trainable in plan.variables:
        var = Variable._from_ops(built[name], built[initializer], built[snap].outputs[si], built[init].outputs[ii])
        by_name[name] = var
        graph.add_to_collection(GraphKeys.GLOBAL_VARIABLES, var)
        if trainable:
            graph.add_to_collection(GraphKeys.TRAINABLE_VARIABLES, var)
    for key, entries in plan.collections.items():
        for kind, name, index in entries:
            graph.add_to_collection(key, by_name[name] if kind == "var" else
                                    built[name] if kind == "op" else built[name].outputs[index])
    return by_name
