"""Python operators on tensors and variables (``a + b``, ``a @ b``, ``-a``), named as TF names them.

This is the one place that attaches behaviour to ``Tensor`` from above: the framework layer
cannot build ops itself, so ``install()`` is called once, explicitly, by ``devlab/__init__``.
"""
from ..framework.scopes import name_scope
from . import math_ops
from ..ops.build import apply_op_output, convert_to_tensor
from ..ops.sparse_tensor import SparseTensor

# operator name -> (builder, TF's scope name for the op)
_BINARY = {
    "add": (math_ops.add, "add"),
    "sub": (math_ops.subtract, "sub"),
    "mul": (math_ops.multiply, "mul"),
    "truediv": (math_ops.truediv, "truediv"),
    "matmul": (math_ops.matmul, "matmul"),
    "pow": (math_ops.pow, "pow"),
    "floordiv": (math_ops.floordiv, "floordiv"),
    "mod": (math_ops.mod, "mod"),
    "and": (math_ops.logical_and, "and"),
    "or": (math_ops.logical_or, "or"),
    "xor": (None, "xor"),
    "gt": (math_ops.greater, "Greater"),
    "lt": (math_ops.less, "Less"),
    "ge": (math_ops.greater_equal, "GreaterEqual"),
    "le": (math_ops.less_equal, "LessEqual"),
}
_COMPARISONS = ("gt", "lt", "ge", "le")


def _xor(x, y, name=None):
    """x xor y = (x or y) and not (x and y), as TF builds it."""
    with name_scope(name, "LogicalXor", [x, y]) as scope:
        return math_ops.logical_and(math_ops.logical_or(x, y), math_ops.logical_not(math_ops.logical_and(x, y)),
                                    name=scope)


# ``&``, ``|``, ``^`` on integer tensors: bitwise ops (in the operator's scope), as TF's
_BITWISE = {"and": "BitwiseAnd", "or": "BitwiseOr", "xor": "BitwiseXor"}


def _binary(builder, scope_name, reverse):
    builder = builder or _xor
    op_type = getattr(builder, "op_type", None)

    def op(self, other):
        if isinstance(other, SparseTensor):  # dense * sparse is the SparseTensor's (__rmul__); others fail
            return NotImplemented
        with name_scope(None, scope_name, [self, other]) as scope:
            x = convert_to_tensor(self)
            if scope_name in _BITWISE and not reverse and x.dtype.base_dtype.name != "bool":
                # TF hands a non-tensor y to the op itself, which converts it in its own scope
                with name_scope(_BITWISE[scope_name]) as inner:
                    y = convert_to_tensor(other, preferred_dtype=x.dtype.base_dtype, name="y")
                    return apply_op_output(_BITWISE[scope_name], [x, y], None, inner)
            y = convert_to_tensor(other, preferred_dtype=x.dtype.base_dtype, name="x" if reverse else "y")
            if reverse:
                x, y = y, x
            if scope_name in _BITWISE and x.dtype.base_dtype.name != "bool":
                return apply_op_output(_BITWISE[scope_name], [x, y], None, _BITWISE[scope_name])
            if op_type is not None:  # the builder would only re-enter this scope: build directly
                return apply_op_output(op_type, [x, y], None, scope)
            return builder(x, y, name=scope)
    return op


def install(*classes):
    """Gives each class TF's arithmetic operators."""
    for cls in classes:
        for key, (builder, scope_name) in _BINARY.items():
            setattr(cls, f"__{key}__", _binary(builder, scope_name, reverse=False))
            if key not in _COMPARISONS:
                setattr(cls, f"__r{key}__", _binary(builder, scope_name, reverse=True))
        cls.__div__ = cls.__truediv__
        cls.__neg__ = lambda self: math_ops.negative(self)
        cls.__abs__ = lambda self: math_ops.abs(self)
        cls.__invert__ = _invert
        cls.__getitem__ = _getitem



def install_indexed_slices(cls):
    """IndexedSlices' ``-x`` (the values negated) and ``shape`` (what its ``dense_shape`` says
    statically, unknown without one), as TF's class has them."""
    from ..framework.tensor_shape import TensorShape
    from ..ops.tensor_util import constant_value_as_shape
    cls.__neg__ = lambda self: cls(math_ops.negative(self.values), self.indices, self.dense_shape)
    cls.shape = property(lambda self: TensorShape(None if self.dense_shape is None
                                                  else constant_value_as_shape(self.dense_shape)))


def _invert(self):
    """``~x``: LogicalNot of a bool tensor, the bitwise Invert of an integer one (TF's)."""
    x = convert_to_tensor(self)
    if x.dtype.base_dtype.name != "bool":
        return apply_op_output("Invert", [x], None, "Invert")
    return math_ops.logical_not(x)


def _getitem(self, slice_spec):
    """``t[1:3, :, None, 2]``: one StridedSlice (``Variable`` reads its value first)."""
    from .array_ops import getitem
    return getitem(self, slice_spec)
