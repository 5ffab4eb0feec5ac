"""Creating a checked ``GraphPlan``'s ops, variables and collections in a devlab ``Graph``: the
one builder of every importer, and the only step that touches the graph.

Two ways to set the requested devices, as TensorFlow has two:

* ``devices="file"`` (``devlab.load_graph``, devlab's JSON meta graphs): each op keeps its
  NodeDef's device exactly as the file stores it (``/cpu:1`` stays ``/cpu:1``), as a TensorFlow
  session reading the GraphDef sees it.
* ``devices="import"`` (``tf.import_graph_def``, ``tf.train.import_meta_graph`` of TF's files): TensorFlow's
  Python importer (``importer.py _ProcessNewOps``). An op with no colocation group is given its
  NodeDef device as the innermost ``tf.device`` scope, under the scopes active around the import
  (so ``/cpu:1`` becomes ``/device:CPU:1``, and ``with tf.device("/job:worker")`` fills the
  job). An op whose ``_class`` names other ops loses its own device and takes, in creation
  order, the device of the first of them that has one by then (``_class`` naming only the op
  itself, as ``global_step``'s does, counts as no group).
"""
from ..framework.device_spec import DeviceSpec
from ..framework.operation import Operation
from ..framework.tensor import Tensor
from ..ops.table import OPS, mark_other_form
from ..api.variables import Variable
from ..ops.attr_kinds import devlab_attrs
from ..train.queue_runner import QueueRunner
from .files import GraphFileError


def check_target(graph, plan, prefix, input_map, scope_argument="name"):
    """Whether ``graph`` can take the plan under ``prefix``: nothing may fail after this.
    ``scope_argument`` is the caller's argument that gives a scope, for the error's hint."""
    if graph.finalized:
        raise RuntimeError("Graph is finalized and cannot be modified.")
    existing = {op.name for op in graph.get_operations()}
    clash = [prefix + n.name for n in plan.nodes if prefix + n.name in existing]
    if clash:
        raise ValueError(f"cannot import: the graph already has ops named {clash[:3]} (import into a new "
                         f"tf.Graph(), or pass {scope_argument}= a scope)")
    mapped = _check_input_map(plan, input_map or {}, graph)
    unbound = sorted(name for name in plan.unbound if not any(key[0] == name for key in mapped))
    if unbound:  # TF's import_scoped_meta_graph
        raise ValueError(f"Graph contains unbound inputs: {','.join(unbound)}. Must provide these inputs through "
                         "input_map.")
    return mapped


class _Unbound:
    """An unbound input of a scoped meta graph, as a node of the plan: only its outputs' types."""

    def __init__(self, outputs):
        self.outputs = outputs


def _check_input_map(plan, input_map, graph):
    """{(file node, index or -1 for '^'): the graph's Tensor or Operation}, checked."""
    out, missing = {}, []
    for key, value in input_map.items():
        if not isinstance(key, str):
            raise TypeError(f"input_map keys must be strings (tensor names), got {key!r}")
        control = key.startswith("^")
        name, _, index = (key[1:], "", "-1") if control else key.partition(":")
        index = int(index) if index.lstrip("-").isdigit() else (0 if not index else None)
        node = plan.by_name.get(name)
        if node is None and name in plan.unbound:  # an input from outside the exported scope
            node = _Unbound(plan.unbound[name])
        if node is None or index is None or index >= len(node.outputs):
            missing.append(key)
            continue
        if control:
            if not isinstance(value, Operation):
                raise ValueError(f"input_map entry {key!r} must map to an Operation, got {value!r}")
        else:
            if hasattr(value, "_as_graph_element"):
                value = value._as_graph_element()
            if not isinstance(value, Tensor):
                raise ValueError(f"tf.import_graph_def() requires a non-empty `input_map` of Tensors, but "
                                 f"{key!r} maps to {value!r}")
            want = node.outputs[index][0]
            if value.dtype.base_dtype != want.base_dtype:
                raise ValueError(f"Input {key} of the graph was passed {value.dtype.base_dtype.tf_type_name} from "
                                 f"{value.name} incompatible with expected {want.base_dtype.tf_type_name}.")
        if value.graph is not graph:
            raise ValueError(f"input_map value {value!r} is not an element of this graph.")
        out[(name, index)] = value
    if missing:
        raise ValueError(f"Attempted to map inputs that were not found in graph_def: [{', '.join(missing)}]")
    return out


def build(graph, plan, prefix="", mapped=None, devices="file", clear_devices=False):
    """Creates the plan's ops in ``graph`` (checked with ``check_target`` first); returns
    {name in the file: Operation}."""
    mapped = mapped or {}
    built = {}
    with graph.name_scope(""), graph.control_dependencies(None):
        for n in plan.nodes:
            inputs = []
            for j, (src, index) in enumerate(n.inputs):
                if j in n.back_edges:
                    inputs.append(None)  # the loop's NextIteration does not exist yet
                else:
                    inputs.append(_source(mapped, built, src, index))
            stand_in = next((t for t in inputs if t is not None), None)
            attrs = devlab_attrs(n.attrs) if n.runnable else dict(n.attrs)
            if prefix and "_class" in attrs:
                attrs["_class"] = [b"loc:@" + prefix.encode() + g[5:] for g in attrs["_class"]]
            name = prefix + n.name
            graph.unique_name(name)  # mark the name as used, as TF's importer does
            device = "" if clear_devices else n.device
            colocated = _groups(attrs, name)
            if devices == "import" and device and not colocated:
                with graph.device(device):
                    op = graph.create_op(n.op_type, [stand_in if t is None else t for t in inputs], n.outputs,
                                         name=name + "/", attrs=attrs)
            else:
                op = graph.create_op(n.op_type, [stand_in if t is None else t for t in inputs], n.outputs,
                                     name=name + "/", attrs=attrs)
                if devices == "file" or colocated:
                    op._set_device(device if devices == "file" else "")  # import: the group decides, below
            if not n.runnable and n.op_type in OPS:
                mark_other_form(op)
            built[n.name] = op
    for n in plan.nodes:
        op = built[n.name]
        for j in n.back_edges:
            src, index = n.inputs[j]
            op._update_input(j, _source(mapped, built, src, index))
        for c in n.control_inputs:
            op._add_control_input(_source(mapped, built, c, -1))
    if devices == "import":
        colocated_devices(graph, plan, prefix, built)
    return built


def build_variables(graph, plan, built, make_saver=None):
    """Rebuilds the plan's variables from the ops ``build`` made and fills the plan's collections
    (a Saver of one made by ``make_saver(saver_def fields)``, the names those of the built ops);
    returns {variable op name in the graph: Variable}."""
    def tensor(ref):
        return built[ref[0]].outputs[ref[1]]
    variables = {}
    for spec in plan.variables:
        initial = None if spec.initial_value is None else tensor(spec.initial_value)
        var = Variable._from_ops(built[spec.variable], built[spec.initializer], tensor(spec.snapshot), initial)
        var.trainable = spec.trainable
        variables[spec.variable] = var
    for key, entries in plan.collections.items():
        for kind, value in entries:
            if kind == "variable":
                item = variables[value]
            elif kind == "op":
                item = built[value]
            elif kind == "saver":  # TF's Saver.from_proto: a Saver over the file's own save and restore ops
                if make_saver is None:
                    raise NotImplementedError(f"collection {key!r} holds a Saver, which tf.train.import_meta_graph "
                                              "rebuilds (this loader does not)")
                item = make_saver({k: _built_name(built, v) if isinstance(v, str) else v for k, v in value.items()})
            elif kind == "queue_runner":  # TF's QueueRunner.from_proto: the runner over the file's own ops
                item = QueueRunner(built[value["queue"]], [built[n] for n in value["enqueue_ops"]],
                                   built[value["close_op"]], built[value["cancel_op"]])
            else:
                item = tensor(value) if kind == "tensor" else value
            graph.add_to_collection(key, item)
    return {v.op.name: v for v in variables.values()}


def _built_name(built, ref):
    """The name in the graph of the file's op or tensor ``ref`` (``op`` or ``op:index``)."""
    op, _, index = ref.partition(":")
    return built[op].name + (":" + index if index else "")


def _source(mapped, built, name, index):
    """The tensor (index -1: the op) the file's ``name:index`` is: an ``input_map`` entry, else built."""
    value = mapped.get((name, index))
    if value is not None:
        return value
    return built[name] if index < 0 else built[name].outputs[index]


def _groups(attrs, name):
    """The ops ``_class`` colocates with, other than the op itself (TF's ``_GetColocationNames``)."""
    return [g[5:].decode() for g in attrs.get("_class", ()) if g.startswith(b"loc:@") and g[5:].decode() != name]


def colocated_devices(graph, plan, prefix, built):
    """TF's importer: an op with a colocation group takes the device of the first op of its group
    (in ``_class`` order) that has one, as a canonical device string."""
    for n in plan.nodes:
        op = built[n.name]
        for other in _groups(op.attrs, op.name):
            try:
                target = graph.get_operation_by_name(other)
            except KeyError:
                raise GraphFileError(f"Specified colocation to an op: {other} that does not exist during import "
                                     f"for op: {op.name}") from None
            if target.device:
                op._set_device(DeviceSpec.from_string(target.device).to_string())
                break
