"""``apply_op_output("VariableV2", ...)`` as TF's ``gen_state_ops.variable``."""
from tensorflow.python.ops import gen_state_ops


def apply_op_output(op_type, inputs, attrs, name):
    assert op_type == "VariableV2" and not inputs
    return gen_state_ops.variable(shape=[1], dtype=attrs["dtype"], name=name, container="", shared_name="")
