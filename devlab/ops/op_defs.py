"""TensorFlow's op definitions, as TensorFlow 2.21 recorded them (``data/tf_op_defs.json``): which
type attrs an op has and which input each comes from (``Reshape``: ``T`` from ``tensor``,
``Tshape`` from ``shape``; ``GatherV2``: ``Tparams``, ``Tindices``, ``Taxis``).

``apply_op`` reads this to give every op the type attrs TF gives it, since TF's kernel registry
(``kernel_registry.py``), and so placement, chooses kernels by them: an ``AvgPoolGrad`` is
placed by the dtype of its gradient (``T``), not of its int32 shape input.
"""
import functools

from .recorded import OP_DEFS


@functools.lru_cache(maxsize=None)
def _plan(op_type):
    """Per input argument of ``op_type``: (type attr or None, number attr or None, is a list), or
    None when TF has no such op."""
    op_def = OP_DEFS.get(op_type)
    if op_def is None or op_type.startswith("_"):
        return None
    return tuple((arg.get("type_attr"), arg.get("number_attr"), "number_attr" in arg or "type_list_attr" in arg)
                 for arg in op_def.get("inputs", ()))


@functools.lru_cache(maxsize=None)
def _firsts(op_type):
    """For an op without list inputs: (type attr, index of the first input it types) pairs;
    None for an op with list inputs (their lengths decide the indices) or none known."""
    plan = _plan(op_type)
    if plan is None or any(is_list for *_, is_list in plan):
        return None
    firsts = {}
    for i, (type_attr, _, _) in enumerate(plan):
        if type_attr:
            firsts.setdefault(type_attr, i)
    return tuple(firsts.items())


def declares_attr(op_type, name):
    """Whether TF's OpDef of ``op_type`` has the attr ``name`` (True for an op TF lacks: devlab's own)."""
    op_def = OP_DEFS.get(op_type)
    return op_def is None or any(a["name"] == name for a in op_def.get("attrs", ()))


def type_attrs(op_type, inputs, attrs):
    """{type attr: the dtype of the input it types} for an op of ``op_type`` with these inputs;
    None when TF has no such op."""
    firsts = _firsts(op_type)
    if firsts is not None:  # the common case, worked out once per op type
        return {attr: inputs[i].dtype.base_dtype for attr, i in firsts if i < len(inputs)}
    plan = _plan(op_type)
    if plan is None:
        return None
    lists = sum(is_list for *_, is_list in plan)
    per_list = (len(inputs) - (len(plan) - lists)) // lists if lists else 0
    found, i = {}, 0
    for type_attr, number_attr, is_list in plan:
        count = attrs.get(number_attr, per_list) if is_list else 1
        if type_attr and i < len(inputs) and count:
            found.setdefault(type_attr, inputs[i].dtype.base_dtype)
        i += count
    return found


def check_input_type(op_type, arg_name, dtype):
    """TF's TypeError when ``dtype`` is not one TF's OpDef allows for input ``arg_name`` of
    ``op_type`` (``Elu`` of int32, ``InTopKV2`` targets of float32): a fixed type must match, a
    type attr must be in its allowed list. Builders call this before they make the op."""
    op_def = OP_DEFS.get(op_type) or {}
    arg = next((a for a in op_def.get("inputs", ()) if a["name"] == arg_name), None)
    if arg is None:
        return
    name = dtype.base_dtype.name
    if "type" in arg and arg["type"] != name:
        raise TypeError(f"Input '{arg_name}' of '{op_type}' Op has type {name} that does not match expected type "
                        f"of {arg['type']}.")
    attr = next((a for a in op_def.get("attrs", ()) if a["name"] == arg.get("type_attr")), None)
    if attr is not None and "allowed" in attr and name not in attr["allowed"]:
        raise TypeError(f"Value passed to parameter '{arg_name}' has DataType {name} not in list of allowed values: "
                        + ", ".join(attr["allowed"]))
