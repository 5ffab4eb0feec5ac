"""devlab's JSON meta graph, written: a graph with its devices, variables and collections.

The format is plain JSON (``"format": "devlab.meta_graph"``): one record per op with its type,
inputs, requested device, attrs and output types, plus the variables, the collections and the
names of a Saver's ops. ``json_decode.py`` reads it back; ``tf.train.export_meta_graph`` and
``Saver.save`` write it.
"""
import json

import numpy as np

from ..framework import dtypes
from ..framework.graph import get_default_graph, strip_name_scope
from ..framework.graph_keys import GraphKeys
from ..framework.operation import Operation
from ..framework.tensor import Tensor
from ..api.variables import Variable
from ..unimplemented import argument, reject
from .plan import SAVER_NAMES

FORMAT = "devlab.meta_graph"
UNBOUND_PREFIX = "$unbound_inputs_"  # TF's name for an input from outside an exported scope
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


def _tensor_ref(t):
    return f"{t.op.name}:{t.value_index}"


def export_meta_graph(filename=None, meta_info_def=None, graph_def=None, saver_def=None, collection_list=None,
                      as_text=False, graph=None, export_scope=None, clear_devices=False,
                      clear_extraneous_savers=False, strip_default_attrs=False, save_debug_info=False, nodes=None,
                      **kwargs):
    """Writes the graph (ops, devices, variables, collections, and the ``saver_def`` naming a
    Saver's ops when given) as JSON; returns the dict. TF's arguments in TF's order: the JSON is
    always text; ``collection_list`` keeps only those collections (TF's); ``export_scope`` keeps
    the part under that scope, without it in the names; ``nodes`` are the ops written instead of
    the graph's (``tf.train.export_meta_graph(graph_def=)`` passes a GraphDef's, ``train/meta_graph.py``);
    the rest say they are not implemented."""
    reject("tf.train.export_meta_graph", meta_info_def=(meta_info_def, None), graph_def=(graph_def, None),
           clear_extraneous_savers=(clear_extraneous_savers, False), strip_default_attrs=(strip_default_attrs, False),
           save_debug_info=(save_debug_info, False))
    del as_text  # devlab's meta graph is JSON, text either way
    for key in kwargs:
        raise argument(key, "tf.train.export_meta_graph")
    graph = graph or get_default_graph()
    # Variables first: a mirrored variable's ``initializer`` is a group op made on first access,
    # and it must be among the nodes written below.
    # (a resource variable's snapshot is the read its constructor made: v.value() would make another)
    variables = [{"variable": v.op.name, "initializer": v.initializer.name,
                  "snapshot": _tensor_ref(v._as_graph_element() if v.op.type == "VarHandleOp" else v.value()),
                  "initial_value": _tensor_ref(v.initial_value), "trainable": v in graph.get_collection(GraphKeys.TRAINABLE_VARIABLES)}
                 for v in graph.get_collection(GraphKeys.GLOBAL_VARIABLES)]
    ops = graph.get_operations() if nodes is None else nodes
    nodes = []
    for op in _definition_order(ops):
        nodes.append({
            "name": op.name, "op": op.type, "device": "" if clear_devices else op.device,
            "inputs": [_tensor_ref(t) for t in op.inputs], "control_inputs": [c.name for c in op.control_inputs],
            "attrs": {k: _encode(v) for k, v in op.attrs.items()},
            "outputs": [{"dtype": t.dtype.name, "shape": t.shape.sizes and list(t.shape.sizes)} for t in op.outputs],
        })
    collections = {}
    for key in graph.get_all_collection_keys() if collection_list is None else collection_list:
        if key in (GraphKeys.GLOBAL_VARIABLES, GraphKeys.TRAINABLE_VARIABLES):
            continue
        items = [x for x in graph.get_collection(key)
                 if isinstance(x, (Tensor, Operation, Variable)) or _is_queue_runner(x) or _is_saver(x)]
        collections[key] = [("var:" + x.op.name) if isinstance(x, Variable) else
                            _tensor_ref(x) if isinstance(x, Tensor) else
                            "op:" + x.name if isinstance(x, Operation) else
                            _saver_ref(x) if _is_saver(x) else _queue_runner_ref(x) for x in items]
    unbound = {}
    if export_scope:
        nodes, variables, collections, unbound = _scoped(export_scope, nodes, variables, collections)
    meta = {"format": FORMAT, "version": VERSION, "nodes": nodes, "variables": variables, "collections": collections}
    if unbound:
        meta["unbound_inputs"] = unbound
    if saver_def is not None:
        meta["saver_def"] = {k: getattr(saver_def, k) for k in SAVER_NAMES + ("max_to_keep", "sharded")}
    if filename:
        with open(filename, "w") as f:
            json.dump(meta, f, indent=1)
    return meta


def _scoped(scope, nodes, variables, collections):
    """The part of a meta graph under ``scope`` with ``scope/`` taken off every name, as TF's
    ``export_scope`` (which keeps the names that *start with* the scope). An op outside the scope
    that one inside reads becomes TF's unbound input ``$unbound_inputs_<name>``, listed (with its
    outputs' types) for the importer, whose ``input_map`` must bind it."""
    outputs_of = {node["name"]: node["outputs"] for node in nodes}
    unbound = {}

    def strip(name):
        return strip_name_scope(name, scope)

    def bind(name):
        if name.startswith(scope):
            return strip(name)
        op = name.rsplit(":", 1)[0] if name.rsplit(":", 1)[-1].isdigit() and ":" in name else name
        unbound[UNBOUND_PREFIX + op] = outputs_of[op]
        return UNBOUND_PREFIX + name

    kept = []
    for node in nodes:
        if not node["name"].startswith(scope):
            continue
        attrs = dict(node["attrs"])
        if "_class" in attrs:  # colocation with ops in the scope only
            groups = [g.get("bytes", g.get("value")) for g in attrs["_class"].get("list", [])]
            attrs["_class"] = {"list": [{"bytes": strip(g)} for g in groups if g.split("@", 1)[1].startswith(scope)]}
        if node["op"] in ("Enter", "RefEnter") and "frame_name" in attrs:
            frame = attrs["frame_name"]
            key = "bytes" if "bytes" in frame else "value"
            attrs["frame_name"] = {key: strip(frame[key])}
        kept.append({**node, "name": strip(node["name"]), "inputs": [bind(i) for i in node["inputs"]],
                     "control_inputs": [bind(c) for c in node["control_inputs"]], "attrs": attrs})
    variables = [{k: strip(v) if isinstance(v, str) else v for k, v in var.items()}
                 for var in variables if var["variable"].startswith(scope)]
    scoped = {}
    for key, items in collections.items():
        scoped[key] = [_strip_ref(item, scope) for item in items if all(n.startswith(scope) for n in _ref_names(item))]
    return kept, variables, scoped, unbound


def _ref_names(item):
    """The names a collection entry refers to (``var:NAME``, ``op:NAME``, ``NAME:i``, a queue
    runner's queue, a Saver's three ops: TF keeps a Saver whose ops are all in the scope)."""
    if item.startswith("queue_runner:"):
        return [json.loads(item[len("queue_runner:"):])["queue"]]
    if item.startswith("saver:"):
        return [json.loads(item[len("saver:"):])[k] for k in SAVER_NAMES]
    return [item.split(":", 1)[1] if item.startswith(("var:", "op:")) else item]


def _strip_ref(item, scope):
    if item.startswith("saver:"):
        saver_def = json.loads(item[len("saver:"):])
        return "saver:" + json.dumps({k: strip_name_scope(v, scope) if k in SAVER_NAMES else v
                                      for k, v in saver_def.items()})
    if item.startswith("queue_runner:"):
        runner = json.loads(item[len("queue_runner:"):])
        runner = {k: [strip_name_scope(n, scope) for n in v] if isinstance(v, list) else strip_name_scope(v, scope)
                  for k, v in runner.items()}
        return "queue_runner:" + json.dumps(runner)
    if item.startswith(("var:", "op:")):
        kind, name = item.split(":", 1)
        return f"{kind}:{strip_name_scope(name, scope)}"
    return strip_name_scope(item, scope)


def _is_saver(x):
    """A Saver with its ops built (TF writes a SaverDef for each Saver of a collection)."""
    return getattr(x, "saver_def", None) is not None and hasattr(x, "as_saver_def")


def _saver_ref(saver):
    return "saver:" + json.dumps({k: getattr(saver.saver_def, k) for k in SAVER_NAMES + ("max_to_keep", "sharded")})


def _is_queue_runner(x):
    return all(hasattr(x, a) for a in ("queue", "enqueue_ops", "close_op", "cancel_op"))


def _queue_runner_ref(qr):
    """A QueueRunner as the names of its ops (TF's QueueRunnerDef), so the importer can rebuild it."""
    queue = qr.queue.op if isinstance(qr.queue, Tensor) else qr.queue
    queue_name = queue.name if isinstance(queue, Operation) else queue.queue_ref.op.name
    return "queue_runner:" + json.dumps({"queue": queue_name, "enqueue_ops": [op.name for op in qr.enqueue_ops],
                                         "close_op": qr.close_op.name, "cancel_op": qr.cancel_op.name})


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
