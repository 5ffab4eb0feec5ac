"""Questions about control-flow ops and contexts (TF's ``control_flow_util.py``): is this op a loop's
Exit, a cond's Switch, a loop invariant? Which while loop is it in? May it read that tensor?

A tensor made inside a while loop may be read only inside that loop (or loops nested in it), or
by the loop's gradient loop; anything else is TF's ValueError "Cannot use 'a' as input to 'b'
because they are in different while loops", raised when the op is created.
"""

# TF's switch between its two builds of tf.cond / tf.while_loop: devlab builds the TF 1.x one
# (Switch/Merge, Enter/Exit), as TF does with v2 behaviour off.
ENABLE_CONTROL_FLOW_V2 = False


def EnableControlFlowV2(graph):  # noqa: N802 - TF's name
    """Whether ``graph`` gets control flow v2: never in devlab."""
    return ENABLE_CONTROL_FLOW_V2


def is_switch(op):
    return op.type in ("Switch", "RefSwitch")


def is_merge(op):
    return op.type in ("Merge", "RefMerge")


def is_loop_enter(op):
    return op.type in ("Enter", "RefEnter")


def is_loop_exit(op):
    return op.type in ("Exit", "RefExit")


def is_loop_constant_enter(op):
    """An Enter of a loop invariant (``is_constant``): its value is the same in every iteration."""
    return is_loop_enter(op) and op.get_attr("is_constant")


def is_cond_switch(op):
    """A Switch of a ``tf.cond`` (every consumer is inside a cond branch), not of a loop."""
    if not is_switch(op):
        return False
    result = True
    for t in op.outputs:
        for consumer in t.consumers():
            ctxt = consumer.control_flow_context
            if is_loop_enter(consumer):
                ctxt = ctxt.outer
            result = result and ctxt is not None and ctxt.is_cond
    return result


def is_loop_switch(op):
    """The Switch of a while loop variable (its context is a loop, and it is no cond's Switch)."""
    if not is_switch(op):
        return False
    ctxt = op.control_flow_context
    return ctxt is not None and ctxt.is_while and not is_cond_switch(op)


def get_loop_constant_enter(value):
    """The constant Enter behind ``value`` (through Identity and Switch ops), or None."""
    op = value.op
    while op.type in ("Switch", "RefSwitch", "Identity", "RefIdentity"):
        op = op.inputs[0].op
    return op if is_loop_constant_enter(op) else None


def output_context(op):
    """The context ``op``'s outputs live in: its own, except that an Exit's go to the outer one."""
    ctxt = op.control_flow_context
    if ctxt is not None and is_loop_exit(op):
        ctxt = ctxt.outer
    return ctxt


def while_context_of(op):
    """The innermost while loop ``op`` was built in, or None."""
    ctxt = op.control_flow_context
    return ctxt.while_context() if ctxt is not None else None


def containing_while_context(ctxt, stop_ctxt=None):
    while ctxt is not None:
        if ctxt.is_while or ctxt is stop_ctxt:
            return ctxt
        ctxt = ctxt.outer
    return None


def is_containing_context(ctxt, maybe_containing):
    """Whether ``maybe_containing`` is ``ctxt`` or one of the contexts around it."""
    while ctxt is not maybe_containing:
        if ctxt is None:
            return False
        ctxt = ctxt.outer
    return True


def op_in_context(op, ctxt):
    return is_containing_context(op.control_flow_context, ctxt)


def check_input_from_valid_context(op, input_op):
    """Raises TF's ValueError when ``op`` may not read ``input_op``'s output: the input is in a
    while loop that neither holds ``op`` nor is the forward loop of ``op``'s gradient loop."""
    op_ctxt = op.control_flow_context
    input_ctxt = output_context(input_op)
    if input_ctxt is None or op_ctxt is input_ctxt:
        return
    while_ctxt = containing_while_context(op_ctxt)
    input_while = containing_while_context(input_ctxt)
    if while_ctxt is None:
        if input_while is None or is_loop_enter(op) or is_switch(op):
            return  # conds only (checked at run time), or the loop's own Enter / a cond's Switch
    elif is_containing_context(while_ctxt, input_while):
        return
    elif while_ctxt.grad_state is not None and (
            is_containing_context(while_ctxt.grad_state.forward_context, input_while)
            or while_ctxt.grad_state.forward_context is input_while.outer):
        return  # a gradient loop reads its forward loop's values
    elif input_while.grad_state is not None and input_while.grad_state.forward_context is while_ctxt:
        return
    if while_ctxt is not None:
        raise ValueError(f"Cannot use '{input_op.name}' as input to '{op.name}' because they are in different "
                         f"while loops. See info log for more details.")
    raise ValueError(f"Cannot use '{input_op.name}' as input to '{op.name}' because '{input_op.name}' is in a "
                     f"while loop. See info log for more details.")
