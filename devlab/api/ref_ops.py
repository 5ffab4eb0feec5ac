"""TF1's reference-forwarding ops: ``RefIdentity`` and ``RefSelect`` hand on a variable's
reference itself (not its value), so an op after them still writes the variable, as
``gen_array_ops.ref_identity`` and ``control_flow_ops.ref_select`` do in TF."""
from ..framework.scopes import name_scope
from ..ops.build import apply_op, convert_to_tensor


def ref_identity(input, name=None):  # noqa: A002 - TF's name
    """The reference ``input`` (a variable's ref tensor), passed on as a reference."""
    with name_scope(name, "RefIdentity", [input]) as scope:
        ref = convert_to_tensor(input, name="input", as_ref=True)
        if not ref.dtype.is_ref:
            raise TypeError(f"'RefIdentity' Op requires that input 'input' be a mutable tensor (e.g.: a tf.Variable)")
        return apply_op("RefIdentity", [ref], None, scope).outputs[0]


def ref_select(index, inputs, name=None):
    """The reference ``inputs[index]``: one of several variables, chosen when the graph runs."""
    with name_scope(name, "RefSelect", [index] + list(inputs)) as scope:
        index = convert_to_tensor(index, name="index")
        refs = [convert_to_tensor(x, as_ref=True) for x in inputs]
        for r in refs:
            if not r.dtype.is_ref:
                raise TypeError("'RefSelect' Op requires that input 'inputs' be a mutable tensor (e.g.: a tf.Variable)")
        return apply_op("RefSelect", [index] + refs, {"N": len(refs)}, scope).outputs[0]


def ref_switch(data, pred, name=None):
    """(output_false, output_true): the reference ``data`` on the side ``pred`` selects."""
    with name_scope(name, "RefSwitch", [data, pred]) as scope:
        ref = convert_to_tensor(data, name="data", as_ref=True)
        return tuple(apply_op("RefSwitch", [ref, convert_to_tensor(pred, name="pred")], None, scope).outputs)
