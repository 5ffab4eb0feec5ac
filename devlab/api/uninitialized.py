"""``report_uninitialized_variables`` and ``report_uninitialized_resources``: a tensor of the names
of what is not initialized yet (empty once everything is).

This is how TF's Supervisor and MonitoredSession tell that a model is ready: the chief runs the
init op, every other task runs this *ready op* until it comes back empty. TF builds it on the
CPU of the task that runs it (``/cpu:0``, or ``$TF_DEVICE_FOR_UNINITIALIZED_VARIABLE_REPORTING``):
one ``IsVariableInitialized`` per variable (each colocated with its variable, since it takes the
variable by reference), a ``Pack`` of them, ``LogicalNot``, a Const of the names, and a
``boolean_mask`` of the names by that mask.
"""
import os

from ..framework import dtypes
from ..framework.graph import get_default_graph
from ..framework.scopes import colocate_with, device, name_scope
from ..ops.build import apply_op_output, convert_to_tensor
from . import state_ops
from .array_ops import constant, stack
from .masking import boolean_mask
from .math_ops import logical_not
from .resources import local_resources, shared_resources
from .variables import global_variables, local_variables

_OLD_STYLE = ("Variable", "VariableV2", "AutoReloadVariable")


def _report_device():
    return os.environ.get("TF_DEVICE_FOR_UNINITIALIZED_VARIABLE_REPORTING", "/cpu:0")


def report_uninitialized_variables(var_list=None, name="report_uninitialized_variables"):
    """A 1-D string tensor: the names of the variables in ``var_list`` (default: global and local
    variables) that are not initialized; empty when all are (or there are none)."""
    if var_list is None:
        var_list = global_variables() + local_variables()
        if not var_list:  # TF's fallback for variables made without the collections
            var_list = [op.outputs[0] for op in get_default_graph().get_operations() if op.type in _OLD_STYLE]
    with name_scope(name):
        if var_list:
            init_vars = [state_ops.is_variable_initialized(v) for v in var_list]
        with device(_report_device()):
            if not var_list:
                return constant([], dtype=dtypes.string)
            variables_mask = logical_not(stack(init_vars))
            variable_names_tensor = constant([v.op.name for v in var_list])
            return boolean_mask(variable_names_tensor, variables_mask)


def report_uninitialized_resources(resource_list=None, name="report_uninitialized_resources"):
    """A 1-D string tensor: the names of the resources (default: shared and local ones) whose
    ``is_initialized`` is false; devlab makes no resources, so this is usually an empty Const."""
    if resource_list is None:
        resource_list = shared_resources() + local_resources()
    with name_scope(name):
        with device(_report_device()):
            if not resource_list:
                return constant([], dtype=dtypes.string)
            variables_mask = logical_not(stack([r.is_initialized for r in resource_list]))
            variable_names_tensor = constant([r.handle.name for r in resource_list])
            return boolean_mask(variable_names_tensor, variables_mask)


def assert_variables_initialized(var_list=None):
    """TF1's ``tf.assert_variables_initialized``: a Rank of each variable, beside it (a stack of
    them for several), whose run fails with FailedPreconditionError while one is uninitialized;
    None when there are no variables."""
    if var_list is None:
        var_list = global_variables() + local_variables()
        if not var_list:
            var_list = [op.outputs[0] for op in get_default_graph().get_operations() if op.type in _OLD_STYLE]
    if not var_list:
        return None
    ranks = []
    for var in var_list:
        var = convert_to_tensor(var)  # the variable's read value
        with colocate_with(var.op):
            ranks.append(apply_op_output("Rank", [var], None, "Rank"))  # never folded: it must read the variable
    return ranks[0] if len(ranks) == 1 else stack(ranks)
