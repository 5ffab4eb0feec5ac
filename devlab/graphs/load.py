"""Opening TensorFlow's graph files: ``devlab.load_graph``, ``tf.import_graph_def`` and the
TensorFlow side of ``tf.train.import_meta_graph``.

Each reads the whole file, checks every node (``decode.py``) and only then creates ops
(``build.py``), so a bad file raises and leaves the target graph as it was.
"""
import os

from ..framework.graph import Graph, get_default_graph
from ..framework.graph_keys import GraphKeys
from ..ops import kernel_registry, tf_ops
from ..api.variables import Variable
from . import build as build_mod
from .decode import plan_graph_def
from .files import GraphFileError, read_graph_file
from ..framework.tf_protos import pb
from ..unimplemented import reject


def load_graph(path, clear_devices=False):
    """A new ``Graph`` holding the graph of a TensorFlow file: a GraphDef (``.pb`` binary,
    ``.pbtxt`` text, as ``tf.io.write_graph`` writes them) or a MetaGraphDef (``.meta``, as
    ``tf.train.Saver``/``export_meta_graph`` write it, with its variables and collections).

    Names, op types, attrs and requested devices are the file's, exactly (``clear_devices=True``
    drops the devices); colocation groups (``_class``) are kept. Ops devlab has no kernel for
    are placed by TensorFlow's kernel registry and can be run modelled
    (``devlab.modelled_run``); ``devlab.graphs.kernel_report(graph)`` lists them.
    """
    if not isinstance(clear_devices, bool):
        raise TypeError(f"clear_devices must be True or False, got {clear_devices!r}")
    kind, message = read_graph_file(path)
    graph = Graph()
    if kind == "meta":
        import_tf_meta_graph(message, graph, clear_devices=clear_devices, devices="file")
    else:
        plan = plan_graph_def(message)
        mapped = build_mod.check_target(graph, plan, "", None)
        build_mod.build(graph, plan, "", mapped, devices="file", clear_devices=clear_devices)
    graph.source_file = os.fsdecode(os.fspath(path))
    return graph


def _as_graph_def(graph_def):
    """A GraphDef message from TensorBoard's protos, given any GraphDef message (TensorFlow's own,
    when the caller has it) or TensorBoard's."""
    p = pb()
    if isinstance(graph_def, p.GraphDef):
        return graph_def
    if type(graph_def).__name__ == "GraphDef" and hasattr(graph_def, "SerializeToString"):
        out = p.GraphDef()
        out.ParseFromString(graph_def.SerializeToString())
        return out
    raise TypeError("graph_def must be a GraphDef proto.")


def import_graph_def(graph_def, input_map=None, return_elements=None, name=None, op_dict=None,
                     producer_op_list=None):
    reject("tf.import_graph_def", producer_op_list=(producer_op_list, None))
    """TF's ``tf.import_graph_def``: imports ``graph_def`` into the default graph under the name
    scope ``name`` (default ``"import"``, uniquified; ``""`` for none).

    ``input_map`` maps names in ``graph_def`` (``"x:0"``, ``"^x"``) to Tensors (Operations) of
    the default graph, which the imported ops then read instead; ``return_elements`` names the
    ops (``"y"``) and tensors (``"y:0"``) to return. Requested devices follow TF's importer: the
    NodeDef's device inside the ``tf.device`` scopes around the call, and the group's device for
    a colocated op. Everything is checked before the graph changes.
    """
    graph_def = _as_graph_def(graph_def)
    if input_map is not None and not isinstance(input_map, dict):
        raise TypeError("input_map must be a dictionary mapping strings to Tensor objects.")
    if return_elements is not None and (isinstance(return_elements, (str, bytes)) or
                                        not all(isinstance(x, str) for x in return_elements)):
        raise TypeError("return_elements must be a list of strings.")
    if name is not None and not isinstance(name, str):
        raise TypeError(f"name must be a string, got {name!r}")
    plan = plan_graph_def(graph_def)
    wanted = _check_return_elements(plan, return_elements)
    graph = get_default_graph()
    prefix = _import_prefix(graph, name, dry_run=True)
    mapped = build_mod.check_target(graph, plan, prefix, input_map)
    prefix = _import_prefix(graph, name, dry_run=False)
    built = build_mod.build(graph, plan, prefix, mapped, devices="import")
    if wanted is None:
        return None
    return [built[n] if i is None else built[n].outputs[i] for n, i in wanted]


def _import_prefix(graph, name, dry_run):
    """TF's scope for the imported names: ``name_scope(name, "import")``, so "import", "import_1"..."""
    if name == "":
        return graph.get_name_scope() + "/" if graph.get_name_scope() else ""
    if dry_run:
        scope = graph.unique_name(name or "import", mark_as_used=False)
        return scope + "/"
    with graph.name_scope(name or "import") as scope:
        return scope


def _check_return_elements(plan, return_elements):
    if return_elements is None:
        return None
    out = []
    for element in return_elements:
        node, sep, index = element.partition(":")
        if node.startswith("^"):
            node = node[1:]
        spec = plan.by_name.get(node)
        if spec is None or (sep and (not index.isdigit() or int(index) >= len(spec.outputs))):
            raise ValueError(f"Requested return_element {element!r} not found in graph_def.")
        out.append((node, int(index) if sep else None))
    return out


def import_tf_meta_graph(meta, graph=None, clear_devices=False, import_scope=None, devices="import"):
    """Imports a TensorFlow MetaGraphDef (its graph, variables and collections); returns
    {variable op name: Variable}. ``tf.train.import_meta_graph`` comes here for TF's format."""
    graph = get_default_graph() if graph is None else graph
    plan = plan_graph_def(meta.graph_def)
    prefix = ""
    if import_scope:
        prefix = import_scope.rstrip("/") + "/"
    collections = _read_collections(meta, plan)
    mapped = build_mod.check_target(graph, plan, prefix, None)
    built = build_mod.build(graph, plan, prefix, mapped, devices=devices, clear_devices=clear_devices)
    variables = {}
    for key, entries in collections.items():
        for kind, value in entries:
            if kind == "variable":
                var = variables.get(value.variable_name)
                if var is None:
                    var = _variable(built, value)
                    variables[value.variable_name] = var
                graph.add_to_collection(key, var)
            elif kind == "name":
                node, _, index = value.partition(":")
                graph.add_to_collection(key, built[node] if not index else built[node].outputs[int(index)])
            else:
                graph.add_to_collection(key, value)
    return {v.op.name: v for v in variables.values()}


_VARIABLE_COLLECTIONS = (GraphKeys.GLOBAL_VARIABLES, GraphKeys.TRAINABLE_VARIABLES, "local_variables",
                         "model_variables", "moving_average_variables")


def _read_collections(meta, plan):
    """{key: [(kind, value)]} of the collections devlab can rebuild, checked against the plan."""
    p = pb()
    out = {}
    for key in sorted(meta.collection_def):
        c = meta.collection_def[key]
        kind = c.WhichOneof("kind")
        entries = []
        if kind == "node_list":
            for name in c.node_list.value:
                node, _, index = name.partition(":")
                spec = plan.by_name.get(node)
                if spec is None or (index and (not index.isdigit() or int(index) >= len(spec.outputs))):
                    raise GraphFileError(f"collection {key!r}: {name!r} is not a node or tensor of the graph")
                entries.append(("name", name))
        elif kind == "bytes_list" and key in _VARIABLE_COLLECTIONS:
            for raw in c.bytes_list.value:
                vd = p.VariableDef()
                try:
                    vd.ParseFromString(raw)
                except p.DecodeError as e:
                    raise GraphFileError(f"collection {key!r}: a VariableDef that cannot be parsed ({e})") from None
                _check_variable(key, vd, plan)
                entries.append(("variable", vd))
        elif kind in ("int64_list", "float_list"):
            entries = [("value", v) for v in getattr(c, kind).value]
        # other bytes lists (cond and while contexts, savers, queue runners) describe Python objects
        # devlab does not rebuild; the ops they name are in the graph all the same
        if entries:
            out[key] = entries
    return out


def _check_variable(key, vd, plan):
    def op_of(tensor_name, what, want_tensor=True):
        node, _, index = tensor_name.partition(":")
        spec = plan.by_name.get(node)
        if spec is None or (want_tensor and (not index.isdigit() or int(index) >= len(spec.outputs))):
            raise GraphFileError(f"collection {key!r}: variable {vd.variable_name!r} names {what} "
                                 f"{tensor_name!r}, which is not in the graph")
        return spec
    if vd.is_resource:
        raise GraphFileError(f"collection {key!r}: {vd.variable_name!r} is a resource variable; devlab rebuilds "
                             "TF1's ref variables (VariableV2) only")
    var = op_of(vd.variable_name, "its variable")
    if var.op_type not in ("VariableV2", "Variable"):
        raise GraphFileError(f"collection {key!r}: {vd.variable_name!r} is a {var.op_type}, not a variable op")
    op_of(vd.initializer_name, "its initializer", want_tensor=False)
    op_of(vd.snapshot_name, "its snapshot")
    if vd.initial_value_name:
        op_of(vd.initial_value_name, "its initial value")


def _variable(built, vd):
    def tensor(name):
        node, _, index = name.partition(":")
        return built[node].outputs[int(index or 0)]
    var_op = built[vd.variable_name.partition(":")[0]]
    initial = tensor(vd.initial_value_name) if vd.initial_value_name else None
    var = Variable._from_ops(var_op, built[vd.initializer_name.partition(":")[0]], tensor(vd.snapshot_name), initial)
    var.trainable = bool(vd.trainable)
    return var


# -- what devlab knows about the ops of a graph ------------------------------------------------------------
class KernelReport:
    """The ops of a graph devlab cannot run, and those whose kernels TensorFlow's registry (as
    recorded) does not list, so that their availability on CPU and GPU had to be assumed."""

    def __init__(self, without_kernel, assumed):
        self.without_kernel = without_kernel  # [(op name, op type)]: placed and modelled only
        self.assumed = assumed  # [(op name, op type, device types assumed)]

    def __str__(self):
        lines = []
        types = sorted({t for _, t in self.without_kernel})
        lines.append(f"{len(self.without_kernel)} ops devlab cannot run (modelled only), of {len(types)} types"
                     + (f": {', '.join(types)}" if types else ""))
        if self.assumed:
            lines.append(f"{len(self.assumed)} ops whose kernels TensorFlow 2.21's registry does not list; assumed "
                         "to have kernels on every device type:")
            lines += [f"  {name} ({op_type}): {', '.join(assumed)}" for name, op_type, assumed in self.assumed]
        else:
            lines.append("every op's kernels are in TensorFlow 2.21's registry: none had to be assumed")
        return "\n".join(lines)

    __repr__ = __str__


def kernel_report(graph):
    """A KernelReport of ``graph``'s ops."""
    from ..ops.table import OPS, lookup
    without, assumed = [], []
    for op in graph.get_operations():
        if not tf_ops.has_kernel(op):
            without.append((op.name, op.type))
        if not kernel_registry.knows(op.type) and op.type not in OPS:
            assumed.append((op.name, op.type, tuple(lookup(op.type).devices)))
    return KernelReport(without, assumed)
