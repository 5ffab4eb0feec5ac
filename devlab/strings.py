"""``tf.strings``: string ops. They have CPU kernels only, as in TensorFlow."""
from .framework.scopes import name_scope
from .ops.build import apply_op_output, convert_to_tensor


def as_string(input, name=None):  # noqa: A002 - TF's argument name
    """Formats each element as a string (an op with no GPU kernel)."""
    return apply_op_output("AsString", [convert_to_tensor(input)], None, name or "AsString")


def join(inputs, separator="", name=None):
    """The elementwise concatenation of ``inputs`` with ``separator`` between them; a scalar
    input is repeated against the others (the result is their shape)."""
    with name_scope(name, "StringJoin", inputs) as scope:
        xs = [convert_to_tensor(x, name=f"inputs_{i}") for i, x in enumerate(inputs)]
        return apply_op_output("StringJoin", xs, {"separator": separator, "N": len(xs)}, scope)


from .unimplemented import module_getattr  # noqa: E402

__getattr__ = module_getattr("tf.strings", __name__)
