"""Gradient rules of the control-flow ops (TF's ``control_flow_grad.py``): each builds the mirror
image of its op in the gradient graph.

In a ``tf.cond``: a Merge's gradient is a Switch on the same predicate (the gradient flows back
into the branch that ran), a Switch's is a Merge of its two gradients. In a ``tf.while_loop``,
built inside the gradient loop (``control_flow_state.py``): an Exit's gradient is an Enter of
the gradient loop (``b_exit``), a loop variable's Enter's is an Exit, a loop Switch's is a Merge
(``b_switch``) whose back edge is added when the Switch is reached a second time, from the body,
and a loop invariant's Enter gets the sum over all iterations (``b_acc``).
"""
from ..framework import dtypes
from ..framework.indexed_slices import IndexedSlices
from ..framework.graph import get_default_graph
from . import control_flow_util as util
from .control_flow import (_add_next_and_back_edge, _enter, _switch_ref_or_tensor, add_backprop_indexed_slices_accumulator,
                           exit, merge, switch)
from .math_ops import equal


def _switch_grad(op, *grad):
    graph = get_default_graph()
    op_ctxt = op.control_flow_context
    grad_ctxt = graph._get_control_flow_context()
    if op_ctxt is not None and op_ctxt.is_while:
        merge_grad = grad_ctxt.grad_state.switch_map.get(op)
        if merge_grad is not None:
            # The second visit, from the body: the gradient of the next iteration comes back in.
            if grad[1] is not None:
                _add_next_and_back_edge(merge_grad, grad[1], enforce_shape_invariant=False)
            return None, None
        if grad[0] is not None:
            # The first visit, from the Exit: a Merge that takes it (its back edge comes later).
            merge_grad = merge([grad[0], grad[0]], name="b_switch")[0]
            grad_ctxt.grad_state.switch_map[op] = merge_grad
            return merge_grad, None
        return None, None
    if op_ctxt is not None and op_ctxt.is_cond:
        zero_grad = grad[1 - op_ctxt.branch]
        if zero_grad is None:
            if op.inputs[0].dtype == dtypes.resource:  # a resource handle's other branch never has one (TF)
                return merge([grad[op_ctxt.branch]] * 2, name="cond_resource_grad")[0], None
            return None, None
        return merge(list(grad), name="cond_grad")[0], None
    false_grad = switch(grad[0], op.inputs[1])[0]
    true_grad = switch(grad[1], op.inputs[1])[1]
    return merge([false_grad, true_grad])[0], None


def _merge_grad(op, grad, _=None):
    input_op = op.inputs[0].op
    graph = get_default_graph()
    op_ctxt = util.output_context(input_op)
    grad_ctxt = graph._get_control_flow_context()
    if op_ctxt is not None and op_ctxt.is_while:
        return _switch_ref_or_tensor(grad, grad_ctxt.pivot)
    if op_ctxt is not None and op_ctxt.is_cond:
        pred = op_ctxt.pred
        if grad_ctxt is not None and grad_ctxt.grad_state is not None:
            # A cond inside a loop: the predicate of every iteration is kept for the gradient.
            grad_state = grad_ctxt.grad_state
            real_pred = grad_state.history_map.get(pred)
            if real_pred is None:
                grad_ctxt = grad_state.grad_context
                grad_ctxt.exit()
                history_pred = grad_state.add_forward_accumulator(pred)
                grad_ctxt.enter()
                real_pred = grad_state.add_backprop_accumulated_value(history_pred, pred)
                grad_state.history_map[pred] = real_pred
            pred = real_pred
        return _switch_ref_or_tensor(grad, pred, name="cond_grad")
    conds = [equal(op.outputs[1], i) for i in range(len(op.inputs))]
    return [_switch_ref_or_tensor(grad, c)[1] for c in conds]


def _exit_grad(op, grad):
    graph = get_default_graph()
    op_ctxt = op.control_flow_context
    grad_ctxt = graph._get_control_flow_context()
    if not grad_ctxt.back_prop:  # tf.while_loop(back_prop=False): no gradient
        return [None]
    if op_ctxt.grad_state is not None:
        raise TypeError("Second-order gradient for while loops not supported.")
    grad_ctxt.values.add(grad)
    grad_ctxt.enter()
    result = _enter(grad, grad_ctxt.name, is_constant=False, parallel_iterations=grad_ctxt.parallel_iterations,
                    name="b_exit")
    grad_ctxt.loop_enters.append(result)
    grad_ctxt.exit()
    return [result]


def _enter_grad(op, grad):
    grad_ctxt = get_default_graph()._get_control_flow_context()
    if grad_ctxt is None or not grad_ctxt.back_prop or grad_ctxt.grad_state is None:
        return [grad]
    if op.get_attr("is_constant"):  # a loop invariant: summed over iterations
        if isinstance(grad, IndexedSlices):
            return [add_backprop_indexed_slices_accumulator(grad_ctxt, op, grad)]
        return [grad_ctxt.add_backprop_accumulator(op, grad)]
    result = exit(grad)
    grad_ctxt.loop_exits.append(result)
    grad_ctxt.exit_result([result])
    return [result]


GRADIENTS = {
    "Switch": _switch_grad,
    "RefSwitch": _switch_grad,
    "Merge": _merge_grad,
    "RefMerge": _merge_grad,
    "Exit": _exit_grad,
    "RefExit": _exit_grad,
    "NextIteration": lambda op, grad: [grad],  # its mirror NextIteration is added by the Switch's gradient
    "RefNextIteration": lambda op, grad: [grad],
    "Enter": _enter_grad,
    "RefEnter": _enter_grad,
    "LoopCond": lambda op, grad=None: [None],
}
