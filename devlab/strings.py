"""``tf.strings``: string ops. They have CPU kernels only, as in TensorFlow."""
from .framework.scopes import name_scope
from .ops.build import apply_op_output, convert_to_tensor


def as_string(input, name=None):  # noqa: A002 - TF's argument name
    """Formats each element as a string (an op with no GPU kernel)."""
    return apply_op_output("AsString", [convert_to_tensor(input)], None, name or "AsString")


def join(inputs, separator="", name=None):
    if not isinstance(inputs, (list, tuple)):  # TF's op-def layer's words for a list argument and a string attr
        raise TypeError(f"Expected list for 'inputs' argument to 'string_join' Op, not {inputs!r}.")
    if isinstance(separator, bytes):
        separator = separator.decode("utf-8", "surrogateescape")
    if not isinstance(separator, str):
        raise TypeError(f"Expected string for argument 'separator' not {separator!r}.")
    with name_scope(name, "StringJoin", inputs) as scope:
        xs = [convert_to_tensor(x) for x in inputs]
        return apply_op_output("StringJoin", xs, {"separator": separator, "N": len(xs)}, scope)


from .unimplemented import module_getattr  # noqa: E402

__getattr__ = module_getattr("tf.strings", __name__)
