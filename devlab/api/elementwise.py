"""The builders of TF's elementwise wrappers (``tf.add``, ``tf.exp``...): one op in TF's name scope.

``math_ops`` makes its functions with them, and ``array_ops`` the few math ops it builds itself
(``transpose`` of an unknown rank subtracts), so neither imports the other's module.
"""
from ..framework.scopes import name_scope
from ..ops.build import apply_op_output, convert_to_tensor


def binary(op_type, scope_name):
    def build(x, y, name=None):
        with name_scope(name, scope_name, [x, y]) as scope:
            x = convert_to_tensor(x, name="x")
            y = convert_to_tensor(y, preferred_dtype=x.dtype.base_dtype, name="y")
            return apply_op_output(op_type, [x, y], None, scope)
    build.__name__ = scope_name.lower()
    build.__doc__ = f"Elementwise ``{op_type}`` of x and y, with numpy broadcasting."
    build.op_type = op_type  # lets an operator, already in its scope, build the op directly
    return build


def unary(op_type):
    def build(x, name=None):
        with name_scope(name, op_type, [x]) as scope:
            return apply_op_output(op_type, [convert_to_tensor(x, name="x")], None, scope)
    build.__name__ = op_type.lower()
    build.__doc__ = f"Elementwise ``{op_type}`` of x."
    return build
