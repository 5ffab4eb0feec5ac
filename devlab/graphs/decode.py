"""From TensorFlow's GraphDef message to a checked plan of ops, before any graph is touched.

``plan_graph_def(graph_def)`` reads every node and checks it, the way TensorFlow's importer
does, and returns a ``GraphPlan`` from which building a graph cannot fail:

* names are TF's op names and unique; every input (``x``, ``x:1``, ``^x``) names a node of the
  file and an output it has; devices parse; colocation groups (``_class``) name nodes;
* each op type is TensorFlow's (its OpDef, recorded from TF 2.21) or devlab's own; attrs have
  the kinds the OpDef declares (a ``type`` attr is a dtype of the allowed ones...), missing
  attrs take the OpDef's defaults (as TF's importer adds them), required ones must be there;
* each input's dtype is the one the OpDef expects given the attrs (TF's "Input 0 of node y was
  passed float from x:0 incompatible with expected int32"), a reference where it takes one;
* the nodes are ordered so that each comes after its inputs; the only cycles allowed are while
  loops' back edges (a ``Merge`` reading a ``NextIteration``); any other cycle is TF's
  "Graph is invalid, contains a cycle";
* outputs get their dtypes from the OpDef and their shapes from ``_output_shapes``, devlab's
  shape rule, or ``ops/tf_shapes.py`` (unknown where none applies);
* a node devlab can run (its type is in the op table *in devlab's form*: the inputs and attrs
  devlab's kernel takes) is marked runnable; every other node is placed and modelled only.

Errors are ``GraphFileError`` (a ValueError) naming the node and what is wrong.
"""
import functools
import heapq
import math
import re

import numpy as np

from ..framework import dtypes
from ..framework.device_spec import DeviceSpec
from ..framework.tensor_shape import TensorShape
from ..ops import tf_ops, tf_shapes
from ..ops import attr_kinds
from ..ops.attr_kinds import check_attr, devlab_attrs
from ..ops.node_check import check_signature, output_specs
from ..ops.table import OPS
from .files import GraphFileError
from .plan import GraphPlan, NodeSpec
from ..framework.tf_protos import pb

MAX_NODES = 2_000_000
MAX_ATTR_DEPTH = 16  # func attrs nest NameAttrLists; deeper than this is not a graph anyone wrote
MAX_EXPANDED_BYTES = 1 << 30  # Const values written as one repeated element, expanded, per file
MAX_RANK = attr_kinds.MAX_RANK

_VALID_NAME = re.compile(r"^[A-Za-z0-9.][A-Za-z0-9_.\\/>-]*$")
_BACK_EDGE_SOURCES = ("NextIteration", "RefNextIteration")
_MERGES = ("Merge", "RefMerge")

# TensorFlow's DataType enum -> devlab's dtype names (a ref type is the base + 100).
DT_ENUM = dtypes.DT_ENUM
_DT = {code: name for name, code in DT_ENUM.items()}


def dtype_of(code, where):
    """The devlab DType of TF's DataType enum value ``code``."""
    ref = code > 100
    name = _DT.get(code - 100 if ref else code)
    if name is None:
        raise GraphFileError(f"{where}: unsupported dtype (DataType enum {code})")
    return dtypes._BY_NAME[name + ("_ref" if ref else "")]


def _shape(proto, where):
    if proto.unknown_rank:
        return None
    if len(proto.dim) > MAX_RANK:
        raise GraphFileError(f"{where}: a shape of rank {len(proto.dim)} (TensorFlow allows {MAX_RANK})")
    dims = []
    for d in proto.dim:
        if d.size < -1:
            raise GraphFileError(f"{where}: dimension {d.size} in a shape (a dim is -1 or a size >= 0)")
        dims.append(None if d.size == -1 else int(d.size))
    return dims


_VALUE_FIELDS = {"float32": "float_val", "float64": "double_val", "int32": "int_val", "uint8": "int_val",
                 "int16": "int_val", "int8": "int_val", "int64": "int64_val", "bool": "bool_val",
                 "string": "string_val", "float16": "half_val", "uint16": "int_val", "uint32": "uint32_val",
                 "uint64": "uint64_val", "complex64": "scomplex_val", "complex128": "dcomplex_val",
                 "bfloat16": "half_val", "qint8": "int_val", "quint8": "int_val", "qint16": "int_val",
                 "quint16": "int_val", "qint32": "int_val"}


def tensor_value(proto, where, budget):
    """A TensorProto as a numpy array (float16 from its bit patterns, strings as bytes objects)."""
    dtype = dtype_of(proto.dtype, where)
    if dtype.is_ref or dtype.name in ("resource", "variant"):
        raise GraphFileError(f"{where}: a constant tensor of dtype {dtype.name} cannot be read")
    if dtype.name not in _VALUE_FIELDS:  # the 8- and 4-bit types: numpy has no dtype to read them into
        raise GraphFileError(f"{where}: unsupported dtype (DataType enum {proto.dtype})")
    shape = _shape(proto.tensor_shape, f"{where} shape")
    if shape is None or any(d is None for d in shape):
        raise GraphFileError(f"{where}: a constant tensor needs a fully known shape, got {shape}")
    size = math.prod(shape)
    np_dtype = np.dtype(dtype.as_numpy_dtype)
    if dtype.name == "string":
        values = list(proto.string_val)
        if len(values) > size or (size and not values):
            raise GraphFileError(f"{where}: {len(values)} strings for a shape {shape} of {size} elements")
        budget[0] -= size * 8
        _check_budget(budget, where)
        out = np.empty(size, dtype=object)
        out[:len(values)] = values
        out[len(values):] = values[-1] if values else b""
        return out.reshape(shape)
    if proto.tensor_content:
        content = proto.tensor_content
        if len(content) != size * np_dtype.itemsize:
            raise GraphFileError(f"{where}: tensor_content has {len(content)} bytes, but shape {shape} of "
                                 f"{dtype.name} needs {size * np_dtype.itemsize}")
        return np.frombuffer(content, dtype=np_dtype).reshape(shape).copy()
    values = list(getattr(proto, _VALUE_FIELDS[dtype.name]))
    if dtype.name in ("float16",):
        values = np.asarray(values, dtype=np.uint16).view(np.float16)
    elif dtype.name.startswith("complex"):
        values = np.asarray(values[0::2], dtype=np.float64) + 1j * np.asarray(values[1::2], dtype=np.float64)
    if len(values) > size:
        raise GraphFileError(f"{where}: {len(values)} values for a shape {shape} of {size} elements")
    budget[0] -= size * np_dtype.itemsize
    _check_budget(budget, where)
    try:
        flat = np.asarray(values, dtype=np_dtype) if len(values) else np.zeros(0, np_dtype)
    except (OverflowError, ValueError, TypeError) as e:
        raise GraphFileError(f"{where}: values that are not {dtype.name} ({e})") from None
    if len(flat) < size:  # TF repeats the last value (zeros when none is given)
        fill = flat[-1] if len(flat) else np.zeros((), np_dtype)
        flat = np.concatenate([flat, np.full(size - len(flat), fill, dtype=np_dtype)])
    return flat.reshape(shape)


def _check_budget(budget, where):
    if budget[0] < 0:
        raise GraphFileError(f"{where}: the file's constants expand to more than {MAX_EXPANDED_BYTES} bytes "
                             "(devlab.graphs.decode.MAX_EXPANDED_BYTES)")


def attr_value(proto, where, budget, depth=0):
    """An AttrValue as the Python value devlab keeps in ``op.attrs``."""
    if depth > MAX_ATTR_DEPTH:
        raise GraphFileError(f"{where}: attr values nested more than {MAX_ATTR_DEPTH} deep")
    kind = proto.WhichOneof("value")
    if kind == "s":
        return bytes(proto.s)
    if kind == "i":
        return int(proto.i)
    if kind == "f":
        return float(proto.f)
    if kind == "b":
        return bool(proto.b)
    if kind == "type":
        return dtype_of(proto.type, where)
    if kind == "shape":
        return _shape(proto.shape, where)
    if kind == "tensor":
        return tensor_value(proto.tensor, where, budget)
    if kind == "func":
        return _func(proto.func, where, budget, depth)
    if kind == "placeholder":
        return str(proto.placeholder)
    if kind == "list":
        lst = proto.list
        for name in ("s", "i", "f", "b", "type", "shape", "tensor", "func"):
            items = getattr(lst, name)
            if not len(items):
                continue
            if name == "s":
                return [bytes(x) for x in items]
            if name in ("i", "f", "b"):
                return [{"i": int, "f": float, "b": bool}[name](x) for x in items]
            if name == "type":
                return [dtype_of(x, where) for x in items]
            if name == "shape":
                return [_shape(x, where) for x in items]
            if name == "tensor":
                return [tensor_value(x, where, budget) for x in items]
            return [_func(x, where, budget, depth) for x in items]
        return []
    return None  # an AttrValue with nothing set


def proto_kind(proto):
    """The kind of an AttrValue as TF's OpDefs name them ('shape', 'list(int)'...); 'list()' for an
    empty list (which fits any list kind), None for an unset value or a placeholder."""
    kind = proto.WhichOneof("value")
    if kind == "list":
        for name in ("s", "i", "f", "b", "type", "shape", "tensor", "func"):
            if len(getattr(proto.list, name)):
                return f"list({_KIND_NAMES[name]})"
        return "list()"
    return _KIND_NAMES.get(kind)


_KIND_NAMES = {"s": "string", "i": "int", "f": "float", "b": "bool", "type": "type", "shape": "shape",
               "tensor": "tensor", "func": "func"}


def _check_kinds(node, where):
    """Each attr's kind, as the proto holds it, against TF's OpDef: a Placeholder's ``shape`` given
    as a list of ints is TF's ValueError, not the shape (1, 2). (Once decoded, a shape and a
    list(int) are both Python lists, so this is checked on the proto.)"""
    op_def = tf_ops.op_def(node.op)
    if op_def is None:
        return
    declared = {a["name"]: a["type"] for a in op_def.get("attrs", ())}
    for key, value in node.attr.items():
        want, got = declared.get(key), proto_kind(value)
        if want is None or got is None or got == want or (got == "list()" and want.startswith("list(")):
            continue
        raise GraphFileError(f"{where}: AttrValue had value with type '{got}' when '{want}' expected")


def _func(proto, where, budget, depth):
    return {"name": proto.name,
            "attr": {k: attr_value(v, f"{where}.{k}", budget, depth + 1) for k, v in sorted(proto.attr.items())}}


_KIND_CHECKS = {
    "string": lambda v: isinstance(v, bytes), "int": lambda v: isinstance(v, int) and not isinstance(v, bool),
    "float": lambda v: isinstance(v, (float, int)) and not isinstance(v, bool),
    "bool": lambda v: isinstance(v, bool), "type": lambda v: isinstance(v, dtypes.DType),
    "shape": lambda v: v is None or isinstance(v, list), "tensor": lambda v: isinstance(v, np.ndarray),
    "func": lambda v: isinstance(v, dict),
}


def _check_attrs(node, op_def, attrs, where):
    """Attr kinds and allowed values as TF's OpDef declares them; defaults filled in."""
    declared = _declared(node.op)
    for name, a in declared.items():
        if name not in attrs:
            if "default" not in a:
                raise GraphFileError(f"{where}: NodeDef missing attr '{name}' from Op<name={node.op}>")
            attrs[name] = tf_ops.attr_defaults(node.op)[name]
            continue
        value, kind = attrs[name], a["type"]
        if kind.startswith("list("):
            inner = _KIND_CHECKS.get(kind[5:-1])
            ok = isinstance(value, list) and (inner is None or all(inner(v) for v in value))
            if ok and "minimum" in a and len(value) < a["minimum"]:
                raise GraphFileError(f"{where}: attr '{name}' has {len(value)} values, fewer than the "
                                     f"minimum {a['minimum']}")
        else:
            check = _KIND_CHECKS.get(kind)
            ok = check is None or check(value)
            if ok and kind == "int" and "minimum" in a and value < a["minimum"]:
                raise GraphFileError(f"{where}: Value for attr '{name}' of {value} must be at least minimum "
                                     f"{a['minimum']}")
        if not ok:
            raise GraphFileError(f"{where}: attr '{name}' must be a {kind}, got {_describe(value)}")
        allowed = a.get("allowed")
        if allowed and kind == "type" and value.base_dtype.name not in allowed:
            raise GraphFileError(f"{where}: Value for attr '{name}' of {value.name} is not in the list of "
                                 f"allowed values: {', '.join(allowed)}")
        if allowed and kind == "string" and value.decode("utf-8", "replace") not in allowed:
            raise GraphFileError(f"{where}: Value for attr '{name}' of \"{value.decode('utf-8', 'replace')}\" is "
                                 f"not in the list of allowed values: {', '.join(allowed)}")
    for name, value in attrs.items():
        if name == "_class":
            if not (isinstance(value, list) and all(isinstance(g, bytes) and g.startswith(b"loc:@") for g in value)):
                raise GraphFileError(f"{where}: attr '_class' must be a list of colocation groups b'loc:@name', "
                                     f"got {_describe(value)}")
        elif name == "_output_shapes":
            if not isinstance(value, list) or not all(v is None or isinstance(v, list) for v in value):
                raise GraphFileError(f"{where}: attr '_output_shapes' must be a list of shapes")


def _describe(value):
    text = repr(value)
    return text if len(text) < 80 else text[:77] + "..."


# -- nodes --------------------------------------------------------------------------------------------
def _parse_input(text, where):
    """('name', index, is_control) of a NodeDef input string."""
    if text.startswith("^"):
        return text[1:], -1, True
    name, sep, index = text.rpartition(":")
    if not sep:
        return text, 0, False
    if not index.isdigit() or len(index) > 9:
        raise GraphFileError(f"{where}: input '{text}' is not 'node', 'node:N' or '^node'")
    return name, int(index), False


def read_nodes(graph_def):
    """Every node's name, type, device, attrs and parsed inputs, checked one by one."""
    if len(graph_def.node) > MAX_NODES:
        raise GraphFileError(f"the graph has {len(graph_def.node)} nodes, more than devlab reads ({MAX_NODES})")
    budget = [MAX_EXPANDED_BYTES]
    nodes, by_name = [], {}
    devices_seen = {}
    for i, node in enumerate(graph_def.node):
        name = node.name
        where = f"node {name!r}" if name else f"node {i}"
        if not _VALID_NAME.match(name):
            raise GraphFileError(f"{where}: Node name contains invalid characters" if name else
                                 f"{where}: a node without a name")
        if name in by_name:
            raise GraphFileError(f"{where}: Node '{name}' is not unique")
        if not (name and (node.op in OPS or tf_ops.op_def(node.op) is not None)):
            raise GraphFileError(f"{where}: Op type not registered '{node.op}': neither TensorFlow "
                                 f"(2.21's op definitions) nor devlab defines it")
        device = node.device
        if device and device not in devices_seen:
            try:
                DeviceSpec.from_string(device)
            except (ValueError, TypeError) as e:
                raise GraphFileError(f"{where}: Malformed device specification '{device}' ({e})") from None
            devices_seen[device] = True
        _check_kinds(node, where)
        attrs = {k: attr_value(v, f"{where}: attr '{k}'", budget) for k, v in node.attr.items()}
        inputs, controls = [], []
        for text in node.input:
            src, index, control = _parse_input(text, where)
            if control:
                controls.append(src)
            elif controls:
                raise GraphFileError(f"{where}: data input '{text}' comes after a control input")
            else:
                inputs.append((src, index))
        spec = NodeSpec(name, node.op, device, inputs, controls, attrs)
        nodes.append(spec)
        by_name[name] = spec
    return nodes, by_name


def _check_references(nodes, by_name):
    for n in nodes:
        where = f"node {n.name!r}"
        for src, index in n.inputs:
            if src not in by_name:
                raise GraphFileError(f"{where}: Node '{n.name}': Unknown input node '{src}'" +
                                     ("" if index == 0 else f":{index}"))
        for src in n.control_inputs:
            if src not in by_name:
                raise GraphFileError(f"{where}: Node '{n.name}': Unknown input node '^{src}'")
        groups = n.attrs.get("_class", ())
        if not isinstance(groups, (list, tuple)) or not all(isinstance(g, bytes) for g in groups):
            raise GraphFileError(f"{where}: attr '_class' is {groups!r}, not a list of 'loc:@node' strings")
        for group in groups:
            if group[5:].decode("utf-8", "replace") not in by_name:
                raise GraphFileError(f"{where}: attr '_class' names {group!r}, which is not a node of the file")


def topological_order(nodes, by_name):
    """The nodes, each after its inputs (file order where free); while loops' back edges into a
    Merge do not count. A cycle otherwise is TF's InvalidArgument text."""
    position = {n.name: i for i, n in enumerate(nodes)}
    waiting = [0] * len(nodes)
    users = [[] for _ in nodes]
    for i, n in enumerate(nodes):
        deps = set()
        for j, (src, _) in enumerate(n.inputs):
            if n.op_type in _MERGES and by_name[src].op_type in _BACK_EDGE_SOURCES:
                n.back_edges += (j,)
                continue
            deps.add(position[src])
        deps.update(position[c] for c in n.control_inputs)
        waiting[i] = len(deps)
        for d in deps:
            users[d].append(i)
    ready = [i for i, w in enumerate(waiting) if w == 0]
    heapq.heapify(ready)
    out = []
    while ready:
        i = heapq.heappop(ready)
        out.append(nodes[i])
        for u in users[i]:
            waiting[u] -= 1
            if waiting[u] == 0:
                heapq.heappush(ready, u)
    if len(out) < len(nodes):
        stuck = [n.name for i, n in enumerate(nodes) if waiting[i] > 0]
        raise GraphFileError(f"Graph is invalid, contains a cycle with {len(stuck)} nodes, including: "
                             f"{', '.join(stuck[:10])}")
    return out


class _Input:
    """What a shape rule reads of an input: dtype, static shape, and a Const's value."""

    __slots__ = ("dtype", "shape", "value", "name")

    def __init__(self, dtype, dims, value, name):
        self.dtype, self.shape, self.value, self.name = dtype, TensorShape(dims), value, name


def _devlab_form(n, in_specs):
    """devlab's own output specs for a node of the op table written in devlab's form, else None."""
    opdef = OPS.get(n.op_type)
    if opdef is None:
        return None
    attrs = devlab_attrs(n.attrs)
    try:
        check_signature(n.name, n.op_type, opdef, attrs, in_specs)
        for k, v in attrs.items():
            check_attr(k, v, "")
        specs = output_specs(n.name, n.op_type, opdef, attrs, in_specs)
    except ValueError:  # devlab's op table does not take this node: it is in TF's form
        return None
    return [(dtypes.as_dtype(dt), None if dims is None else tuple(dims)) for dt, dims in specs]


@functools.lru_cache(maxsize=None)
def _declared(op_type):
    return {a["name"]: a for a in tf_ops.op_def(op_type).get("attrs", ())}


def plan_graph_def(graph_def):
    """Checks the whole GraphDef; returns the GraphPlan (or raises GraphFileError)."""
    if not isinstance(graph_def, pb().GraphDef):
        raise TypeError("graph_def must be a GraphDef proto.")
    nodes, by_name = read_nodes(graph_def)
    _check_references(nodes, by_name)
    ordered = topological_order(nodes, by_name)
    for n in ordered:
        _resolve(n, by_name)
    versions = {"producer": graph_def.versions.producer, "min_consumer": graph_def.versions.min_consumer}
    return GraphPlan(ordered, by_name, versions)


def _output_dtypes_early(n):
    """A back edge's producer (a NextIteration) is resolved after the Merge that reads it: its
    dtype comes from its attrs alone."""
    return tf_ops.output_dtypes(n.op_type, {**tf_ops.attr_defaults(n.op_type), **n.attrs})


def _resolve(n, by_name):
    """Checks node ``n`` against its OpDef and its inputs; sets its outputs and runnability."""
    where = f"node {n.name!r}"
    in_specs = []
    for j, (src, index) in enumerate(n.inputs):
        producer = by_name[src]
        if j in n.back_edges and not producer.outputs:
            try:
                out_types = _output_dtypes_early(producer)
            except (KeyError, TypeError, ValueError):
                raise GraphFileError(f"node {src!r}: its attrs do not give its output types") from None
            forward = next((by_name[s].outputs[i] for k, (s, i) in enumerate(n.inputs)
                            if k not in n.back_edges and i < len(by_name[s].outputs)), (None, None))
            outputs = [(t, forward[1]) for t in out_types]  # TF's shape inference starts from the forward edge
        else:
            outputs = producer.outputs
        if index >= len(outputs):
            raise GraphFileError(f"{where}: Node '{n.name}': Connecting to invalid output {index} of source node "
                                 f"{src} which has {len(outputs)} outputs.")
        dt, dims = outputs[index]
        value = producer.attrs.get("value") if producer.op_type == "Const" else \
            producer.values[index] if producer.values else None
        in_specs.append(_Input(dt, dims, value, f"{src}:{index}"))
    op_def = tf_ops.op_def(n.op_type)
    devlab_specs = None
    if n.op_type in OPS:
        devlab_specs = _devlab_form(n, in_specs)
    if op_def is None:  # devlab's own op type (not TensorFlow's)
        if devlab_specs is None:
            raise GraphFileError(f"{where}: its inputs and attrs do not make a valid {n.op_type} op")
        n.outputs, n.runnable = devlab_specs, True
        return
    if devlab_specs is not None and n.op_type not in ("Const", "Placeholder", "VariableV2"):
        tf_form = _tf_form_matches(n, op_def, in_specs)
    else:
        tf_form = True
    if devlab_specs is not None and not tf_form:
        n.outputs, n.runnable = devlab_specs, True  # written by devlab (write_graph of a devlab graph)
        return
    _check_attrs(_Named(n), op_def, n.attrs, where)
    try:
        expected = tf_ops.input_dtypes(n.op_type, n.attrs)
        out_types = tf_ops.output_dtypes(n.op_type, n.attrs)
    except (KeyError, TypeError, ValueError) as e:
        raise GraphFileError(f"{where}: its attrs do not give the types of its inputs and outputs ({e})") from None
    if len(expected) != len(in_specs):
        raise GraphFileError(f"{where}: NodeDef expected inputs '{_types_text(expected)}' do not match "
                             f"{len(in_specs)} inputs specified; Op<name={n.op_type}>")
    for j, ((want, arg), got) in enumerate(zip(expected, in_specs)):
        if got.dtype.base_dtype != want.base_dtype or (want.is_ref and not got.dtype.is_ref):
            raise GraphFileError(f"{where}: Input {j} of node {n.name} was passed {got.dtype.tf_type_name}"
                                 f"{'_ref' if got.dtype.is_ref else ''} from {got.name} incompatible with expected "
                                 f"{want.tf_type_name}{'_ref' if want.is_ref else ''}.")
    shapes = n.attrs.get("_output_shapes")
    if shapes is not None and len(shapes) == len(out_types):
        dims = [None if s is None else tuple(s) for s in shapes]
    elif devlab_specs is not None and len(devlab_specs) == len(out_types):
        # devlab's rule, unless TF's reads more from constant inputs (a Split's axis, a Reshape's shape)
        dims = [d for _, d in devlab_specs]
        if any(d is None or None in d for d in dims):
            inferred = tf_shapes.infer(n.op_type, in_specs, n.attrs)
            if inferred is not None and len(inferred) == len(dims):
                dims = [_more_known(d, i) for d, i in zip(dims, inferred)]
    else:
        dims = tf_shapes.infer(n.op_type, in_specs, n.attrs)
        if dims is None or len(dims) != len(out_types):
            dims = [None] * len(out_types)
    n.outputs = list(zip(out_types, dims))
    n.runnable = devlab_specs is not None and [t for t, _ in devlab_specs] == out_types
    if n.op_type in ("Shape", "ShapeN") and all(s.shape.is_fully_defined() for s in in_specs):
        n.values = tuple(np.array(s.shape.as_list(), dtype=t.as_numpy_dtype) for s, t in zip(in_specs, out_types))


def _more_known(a, b):
    """The better known of two shapes for one output (dims or None)."""
    if b is None:
        return a
    if a is None:
        return tuple(b)
    if len(a) != len(b):
        return a
    return tuple(x if x is not None else y for x, y in zip(a, b))


def _tf_form_matches(n, op_def, in_specs):
    """Whether the node has as many inputs as TF's OpDef takes (then TF's checks apply to it); a
    list arg whose length attr is missing counts as a match, so that TF's error names the attr."""
    attrs = {**tf_ops.attr_defaults(n.op_type), **n.attrs}
    count = 0
    for arg in op_def.get("inputs", ()):
        key = arg.get("number_attr") or arg.get("type_list_attr")
        if key is None:
            count += 1
        elif key not in attrs:
            return True
        else:
            value = attrs[key]
            count += len(value) if isinstance(value, list) else value if isinstance(value, int) else 0
    return count == len(in_specs)


class _Named:
    """The two fields ``_check_attrs`` names in its messages."""

    def __init__(self, n):
        self.op, self.name = n.op_type, n.name


def _types_text(expected):
    return ", ".join(f"{t.tf_type_name}{'_ref' if t.is_ref else ''}" for t, _ in expected)
