"""A node read from a graph file, checked against devlab's OpDef of its type before it is built.

Both graph importers (``graphs/json_decode.py`` for devlab's JSON, ``graphs/decode.py`` for
TensorFlow's GraphDef) ask here whether a node is one devlab's kernel can run: the attrs its
kernel reads are there, the number of inputs fits the kernel, reference inputs are references,
inputs that share the dtype ``T`` share it, and the shape rule accepts the node. An input is any
object with ``dtype``, ``shape`` and ``name`` (its producer), since nothing is built yet.
"""


def check_signature(name, op_type, opdef, attrs, inputs):
    """Raises a ValueError naming the node if its attrs or inputs do not fit ``opdef``."""
    where = f"node {name!r}"
    missing = [a for a in opdef.required_attrs if a not in attrs]
    if missing:
        raise ValueError(f"{where}: a {op_type} op needs the attrs {missing}")
    low, high = opdef.arity
    if not low <= len(inputs) <= high:
        want = low if low == high else f"at least {low}"
        raise ValueError(f"{where}: a {op_type} op takes {want} inputs, the file gives {len(inputs)}")
    for i in opdef.ref_inputs:
        if i < len(inputs) and not inputs[i].dtype.is_ref:
            dt = inputs[i].dtype
            raise ValueError(f"{where}: Input {i} of node {name} was passed {dt.tf_type_name} from "
                             f"{inputs[i].name} incompatible with expected {dt.tf_type_name}_ref.")
    if opdef.args and len(inputs) > 1:
        first = inputs[0].dtype.base_dtype
        for i, x in enumerate(inputs[1:], start=1):
            if x.dtype.base_dtype != first:
                raise ValueError(f"{where}: Input {i} was passed {x.dtype.base_dtype.tf_type_name} from {x.name} "
                                 f"incompatible with expected {first.tf_type_name}.")


def output_specs(name, op_type, opdef, attrs, inputs):
    """[(dtype, dims)] per output, by the op's shape rule; a ValueError naming the node if the
    rule rejects its inputs and attrs."""
    try:
        return opdef.shape(inputs, dict(attrs))
    except Exception as e:  # noqa: BLE001 - any failure of the rule means the node is malformed
        raise ValueError(f"node {name!r}: its inputs and attrs do not make a valid {op_type} op "
                         f"({type(e).__name__}: {e})") from None
