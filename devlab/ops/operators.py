"""Python operators on tensors and variables (``a + b``, ``a @ b``, ``-a``), named as TF names them.

This is the one place that attaches behaviour to ``Tensor`` from above: the framework layer
cannot build ops itself, so ``install()`` is called once, explicitly, by ``devlab/__init__``.
"""
from ..framework.scopes import name_scope
from . import math_ops
from .build import apply_op_output, convert_to_tensor

# operator name -> (builder, TF's scope name for the op)
_BINARY = {
    "add": (math_ops.add, "add"),
    "sub": (math_ops.subtract, "sub"),
    "mul": (math_ops.multiply, "mul"),
    "truediv": (math_ops.truediv, "truediv"),
    "matmul": (math_ops.matmul, "matmul"),
    "pow": (math_ops.pow, "pow"),
    "gt": (math_ops.greater, "Greater"),
    "lt": (math_ops.less, "Less"),
}


def _binary(builder, scope_name, reverse):
    op_type = getattr(builder, "op_type", None)

    def op(self, other):
        with name_scope(None, scope_name, [self, other]) as scope:
            x = convert_to_tensor(self)
            y = convert_to_tensor(other, preferred_dtype=x.dtype.base_dtype, name="x" if reverse else "y")
            if reverse:
                x, y = y, x
            if op_type is not None:  # the builder would only re-enter this scope: build directly
                return apply_op_output(op_type, [x, y], None, scope)
            return builder(x, y, name=scope)
    return op


def install(*classes):
    """Gives each class TF's arithmetic operators."""
    for cls in classes:
        for key, (builder, scope_name) in _BINARY.items():
            setattr(cls, f"__{key}__", _binary(builder, scope_name, reverse=False))
            if key not in ("gt", "lt"):
                setattr(cls, f"__r{key}__", _binary(builder, scope_name, reverse=True))
        cls.__div__ = cls.__truediv__
        cls.__neg__ = lambda self: math_ops.negative(self)
        cls.__abs__ = lambda self: math_ops.abs(self)
