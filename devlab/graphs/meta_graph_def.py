"""From TensorFlow's MetaGraphDef (a ``.meta`` file) to a checked plan: its graph (``decode.py``),
the variables its collections describe, the collections devlab rebuilds, and its Saver's names.

Errors are ``GraphFileError`` naming the collection and what is wrong.
"""
from ..framework.graph_keys import GraphKeys
from ..framework.tf_protos import pb
from .decode import plan_graph_def
from .files import GraphFileError
from .plan import SAVER_NAMES, VariableSpec

_VARIABLE_COLLECTIONS = (GraphKeys.GLOBAL_VARIABLES, GraphKeys.TRAINABLE_VARIABLES, "local_variables",
                         "model_variables", "moving_average_variables")


def plan_meta_graph_def(meta):
    """Checks the whole MetaGraphDef (any MetaGraphDef message); returns its GraphPlan."""
    p = pb()
    if not isinstance(meta, p.MetaGraphDef):
        meta = p.MetaGraphDef.FromString(meta.SerializeToString())
    plan = plan_graph_def(meta.graph_def)
    variables = {}
    plan.collections = _read_collections(meta, plan, variables)
    plan.variables = list(variables.values())
    if meta.HasField("saver_def"):
        d = meta.saver_def
        plan.saver_def = {k: getattr(d, k) for k in SAVER_NAMES}
        plan.saver_def.update(max_to_keep=d.max_to_keep, sharded=d.sharded)
    return plan


def _read_collections(meta, plan, variables):
    """{key: [(kind, value)]} of the collections devlab can rebuild, checked against the plan;
    adds each variable they describe to ``variables`` (by op name, the first description wins)."""
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
                entries.append(("tensor", (node, int(index))) if index else ("op", node))
        elif kind == "bytes_list" and key in _VARIABLE_COLLECTIONS:
            for raw in c.bytes_list.value:
                vd = p.VariableDef()
                try:
                    vd.ParseFromString(raw)
                except p.DecodeError as e:
                    raise GraphFileError(f"collection {key!r}: a VariableDef that cannot be parsed ({e})") from None
                _check_variable(key, vd, plan)
                name = vd.variable_name.partition(":")[0]
                variables.setdefault(name, _variable_spec(vd))
                entries.append(("variable", name))
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


def _variable_spec(vd):
    def tensor(name):
        node, _, index = name.partition(":")
        return node, int(index or 0)
    return VariableSpec(vd.variable_name.partition(":")[0], vd.initializer_name.partition(":")[0],
                        tensor(vd.snapshot_name), tensor(vd.initial_value_name) if vd.initial_value_name else None,
                        bool(vd.trainable))
