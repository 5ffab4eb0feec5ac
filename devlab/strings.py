"""``tf.strings``: string ops. They have CPU kernels only, as in TensorFlow."""
from .framework.scopes import name_scope
from .ops.build import apply_op_output, convert_to_tensor
from .unimplemented import reject


def as_string(input, precision=-1, scientific=False, shortest=False, width=-1, fill="", name=None):  # noqa: A002
    """Formats each element as a string (an op with no GPU kernel), in TF's default format; the
    formatting arguments are not implemented and say so."""
    reject("tf.strings.as_string", precision=(precision, -1), scientific=(scientific, False),
           shortest=(shortest, False), width=(width, -1), fill=(fill, ""))
    return apply_op_output("AsString", [convert_to_tensor(input)], None, name or "AsString")


def join(inputs, separator="", name=None):
    """The elementwise concatenation of ``inputs`` with ``separator`` between them; a scalar
    input is repeated against the others (the result is their shape)."""
    if not isinstance(inputs, (list, tuple)):  # TF's op-def layer's words for a list argument and a string attr
        raise TypeError(f"Expected list for 'inputs' argument to 'string_join' Op, not {inputs!r}.")
    if isinstance(separator, bytes):
        separator = separator.decode("utf-8", "surrogateescape")
    if not isinstance(separator, str):
        raise TypeError(f"Expected string for argument 'separator' not {separator!r}.")
    with name_scope(name, "StringJoin", inputs) as scope:
        xs = [convert_to_tensor(x, name=f"inputs_{i}") for i, x in enumerate(inputs)]
        return apply_op_output("StringJoin", xs, {"separator": separator, "N": len(xs)}, scope)


from .unimplemented import module_getattr  # noqa: E402

__getattr__ = module_getattr("tf.strings", __name__)
