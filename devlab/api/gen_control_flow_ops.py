"""TF's raw control-flow op wrappers (``gen_control_flow_ops``), which TF1 code and TF's tests
import: each builds one op from its arguments, as TF's generated wrapper does, with no shape
set beyond the op's own shape function (a non-constant Enter's output shape is unknown)."""
from ..framework.scopes import name_scope
from ..ops.build import apply_op, convert_to_tensor
from .control_flow import exit, loop_cond, merge, next_iteration, switch  # noqa: F401, A004 - the same ops


def _enter_op(op_type, data, frame_name, is_constant, parallel_iterations, name):
    with name_scope(name, op_type, [data]) as scope:
        data = convert_to_tensor(data, name="data", as_ref=op_type == "RefEnter")
        attrs = {"frame_name": frame_name, "is_constant": bool(is_constant),
                 "parallel_iterations": int(parallel_iterations)}
        return apply_op(op_type, [data], attrs, scope).outputs[0]


def enter(data, frame_name, is_constant=False, parallel_iterations=10, name=None):
    """An ``Enter`` of ``data`` (a variable's value, not its ref) into the frame ``frame_name``."""
    return _enter_op("Enter", data, frame_name, is_constant, parallel_iterations, name)


def ref_enter(data, frame_name, is_constant=False, parallel_iterations=10, name=None):
    """A ``RefEnter`` of the ref tensor ``data`` into the frame ``frame_name``."""
    return _enter_op("RefEnter", data, frame_name, is_constant, parallel_iterations, name)


def no_op(name=None):
    return apply_op("NoOp", [], None, name or "NoOp")
