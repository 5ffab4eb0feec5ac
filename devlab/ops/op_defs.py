"""TensorFlow's op definitions, as TensorFlow 2.21 recorded them (``data/tf_op_defs.json``): which
type attrs an op has and which input each comes from (``Reshape``: ``T`` from ``tensor``,
``Tshape`` from ``shape``; ``GatherV2``: ``Tparams``, ``Tindices``, ``Taxis``).

``apply_op`` reads this to give every op the type attrs TF gives it, since TF's kernel registry
(``kernel_registry.py``), and so placement, chooses kernels by them: an ``AvgPoolGrad`` is
placed by the dtype of its gradient (``T``), not of its int32 shape input.
"""
import functools
import json
import os

_DATA = os.path.join(os.path.dirname(__file__), "data", "tf_op_defs.json")


@functools.lru_cache(maxsize=None)
def _defs():
    with open(_DATA) as f:
        return json.load(f)


@functools.lru_cache(maxsize=None)
def _plan(op_type):
    """Per input argument of ``op_type``: (type attr or None, number attr or None, is a list), or
    None when TF has no such op."""
    op_def = _defs().get(op_type)
    if op_def is None or op_type.startswith("_"):
        return None
    return tuple((arg.get("type_attr"), arg.get("number_attr"), "number_attr" in arg or "type_list_attr" in arg)
                 for arg in op_def.get("inputs", ()))


def type_attrs(op_type, inputs, attrs):
    """{type attr: the dtype of the input it types} for an op of ``op_type`` with these inputs;
    None when TF has no such op."""
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
