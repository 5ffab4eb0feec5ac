"""A ref Variable to and from TF's ``VariableDef`` proto (``v.to_proto()``, ``Variable(variable_def=...)``).

A VariableDef names the graph elements a variable is made of (its VariableV2 op's output, its
initializer, its snapshot ``read``, its initial value) and records whether it is trainable and
how it synchronizes and aggregates; a MetaGraphDef's variable collections hold one per variable.
Reading one back wraps ops already in the graph: nothing is built, nothing is collected.
"""
from ..framework.graph import get_default_graph, prepend_name_scope, strip_name_scope
from ..framework.tf_protos import pb
from .partitioned_variables import SaveSliceInfo
from ..unimplemented import argument
from .variable_sync import validate_synchronization_aggregation_trainable


def to_proto(var, export_scope=None):
    """``var``'s VariableDef (names without ``export_scope``), or None when it is not in that scope."""
    if export_scope is not None and not var.name.startswith(export_scope):
        return None
    var_def = pb().VariableDef()
    var_def.variable_name = strip_name_scope(var.name, export_scope)
    if var._initial_value is not None:
        var_def.initial_value_name = strip_name_scope(var._initial_value.name, export_scope)
    var_def.trainable = var.trainable
    var_def.synchronization = var.synchronization.value
    var_def.aggregation = var.aggregation.value
    var_def.initializer_name = strip_name_scope(var.initializer.name, export_scope)
    # a resource variable's snapshot is its ``Read/ReadVariableOp``
    resource = getattr(var, "_should_act_as_resource_variable", False)
    snapshot = var._graph_element if resource else var._snapshot
    var_def.snapshot_name = strip_name_scope(snapshot.name, export_scope)
    var_def.is_resource = resource
    if var._save_slice_info:
        var_def.save_slice_info_def.MergeFrom(var._save_slice_info.to_proto(export_scope=export_scope))
    return var_def


def init_from_proto(var, variable_def, import_scope=None):
    """Makes ``var`` (a new ref Variable) the variable ``variable_def`` describes, its names under
    ``import_scope``; a def without an initial value (older files) leaves ``initial_value`` None."""
    if not isinstance(variable_def, pb().VariableDef):
        raise TypeError(f"variable_def must be a VariableDef protocol buffer, got {type(variable_def).__name__}")
    if variable_def.is_resource:
        raise argument("variable_def", "tf.Variable (a resource variable's VariableDef)")
    graph = get_default_graph()

    def element(name):
        return graph.as_graph_element(prepend_name_scope(name, import_scope))
    var._variable = element(variable_def.variable_name)
    var._initializer_op = element(variable_def.initializer_name)
    var._initial_value = element(variable_def.initial_value_name) if variable_def.initial_value_name else None
    var._synchronization, var._aggregation, var.trainable = validate_synchronization_aggregation_trainable(
        variable_def.synchronization, variable_def.aggregation, variable_def.trainable, variable_def.variable_name)
    var._snapshot = element(variable_def.snapshot_name)
    var._save_slice_info = (SaveSliceInfo(save_slice_info_def=variable_def.save_slice_info_def,
                                          import_scope=import_scope)
                            if variable_def.HasField("save_slice_info_def") else None)
    var._caching_device = None
    var._constraint = None
