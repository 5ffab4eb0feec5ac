"""TF's raw ``gen_state_ops.variable``: a ``Variable`` op (the VariableV2 of TF's first
releases), a variable's reference without the ``tf.Variable`` object around it: no initializer,
no collections; a program assigns it and reads it through its ref tensor."""
from ..framework import dtypes
from ..framework.tensor_shape import TensorShape
from ..ops.build import apply_op_output
from .state_ops import assign, assign_add, assign_sub, count_up_to, is_variable_initialized  # noqa: F401


def variable(shape, dtype, container="", shared_name="", name=None):
    """The reference (``float32_ref``...) of a new variable of ``shape`` and ``dtype``."""
    return apply_op_output("Variable", [], {"shape": TensorShape(shape).sizes, "dtype": dtypes.as_dtype(dtype),
                                            "container": container, "shared_name": shared_name}, name or "Variable")
