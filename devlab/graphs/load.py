"""Opening graph files: ``devlab.load_graph``, ``tf.import_graph_def``, and the building of a
meta graph's plan for ``tf.train.import_meta_graph`` (TensorFlow's format or devlab's JSON).

Each reads the whole file, checks every node (a parser makes the ``GraphPlan``) and only then
creates ops (``build.py``), so a bad file raises and leaves the target graph as it was.
"""
import os

from ..framework.graph import Graph, get_default_graph
from ..ops import kernel_registry
from ..ops.table import OPS, has_kernel, lookup
from . import build as build_mod
from .decode import plan_graph_def
from .meta_graph_def import plan_meta_graph_def
from .files import read_graph_file
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
        import_meta_plan(plan_meta_graph_def(message), graph, clear_devices=clear_devices, devices="file")
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


def import_meta_plan(plan, graph, prefix="", clear_devices=False, devices="import", colocate=False, input_map=None,
                     make_saver=None):
    """Builds a meta graph's plan (either parser's: its graph, variables and collections) into
    ``graph`` under ``prefix``, ``input_map`` replacing tensors of the file, ``make_saver``
    rebuilding the Savers of its collections; returns {variable op name: Variable}. The graph is
    checked first and changes only if every op can be made."""
    mapped = build_mod.check_target(graph, plan, prefix, input_map, scope_argument="import_scope")
    built = build_mod.build(graph, plan, prefix, mapped, devices=devices, clear_devices=clear_devices)
    if devices == "file" and colocate:  # imported as TF imports: a colocated op takes its group's device
        build_mod.colocated_devices(graph, plan, prefix, built)
    return build_mod.build_variables(graph, plan, built, make_saver)


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
        if types:
            n, k = len(self.without_kernel), len(types)
            lines.append(f"{n} op{'s' if n != 1 else ''} devlab cannot run (modelled only), of {k} "
                         f"type{'s' if k != 1 else ''}: {', '.join(types)}")
        else:
            lines.append("devlab has a kernel for every op: the graph can run for real, not only modelled")
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
    without, assumed = [], []
    for op in graph.get_operations():
        if not has_kernel(op):
            without.append((op.name, op.type))
        if not kernel_registry.knows(op.type) and op.type not in OPS:
            assumed.append((op.name, op.type, tuple(lookup(op.type).devices)))
    return KernelReport(without, assumed)
