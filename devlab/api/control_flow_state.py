"""The gradient loop of a ``tf.while_loop`` (TF's ``control_flow_state.py``), built by ``tf.gradients``.

For each forward loop the gradient passes through, a ``GradLoopState`` adds

* to the forward loop, a counter of its iterations (``f_count``);
* a gradient loop (a ``WhileContext`` named like the forward one, under ``gradients/``) that
  runs as many iterations, counting down (``b_count``);
* for each forward value a gradient needs, a stack (``f_acc``, a ``StackV2`` colocated with the
  value) that the forward loop pushes the value onto in every iteration (``StackPushV2``) and the
  gradient loop pops it from, last iteration first (``StackPopV2``). A ``ControlTrigger``
  (``b_sync``) keeps the pops of one gradient iteration before the next.

Loops nested in loops get a state each, linked through ``outer_grad_state``: the inner loop's
iteration counts are themselves kept on a stack of the outer loop.
"""
from ..framework import dtypes
from ..framework.scopes import colocate_with, control_dependencies
from . import control_flow_util as util
from .array_ops import constant, identity, zeros, zeros_like
from ..ops.build import apply_op
from .gen_resource_variable_ops import variable_shape_op
from .control_flow import (WhileContext, _shape_internal, _switch_ref_or_tensor, control_trigger, next_iteration,
                           switch)
from ..ops.tensor_util import constant_value


def _stack(max_size, elem_type, name):
    return apply_op("StackV2", [max_size], {"elem_type": elem_type, "stack_name": ""}, name).outputs[0]


def _stack_push(handle, elem, swap_memory=False):
    return apply_op("StackPushV2", [handle, elem], {"swap_memory": swap_memory}, "StackPushV2").outputs[0]


def _stack_pop(handle, elem_type):
    return apply_op("StackPopV2", [handle], {"elem_type": elem_type}, "StackPopV2").outputs[0]


class GradLoopState:
    """One forward loop and its gradient loop, and the values passed from one to the other."""

    def __init__(self, forward_ctxt, outer_grad_state):
        self.outer_grad_state = outer_grad_state
        self.forward_context = forward_ctxt
        self.history_map = {}  # forward tensor -> what stands for it in the gradient loop
        self.switch_map = {}  # forward loop Switch -> the Merge its gradient built (b_switch)
        self.unused_exits, self.deferred_exits = [], []
        self.forward_loop_exits = list(forward_ctxt.loop_exits)
        self.pending_exits_count = len(forward_ctxt.loop_exits)
        self._forward_sync = self._grad_sync = None
        outer_forward_ctxt = outer_grad_state.forward_context if outer_grad_state else forward_ctxt.outer

        if outer_forward_ctxt is not None:
            outer_forward_ctxt.enter()
        cnt, self.forward_index = forward_ctxt.add_forward_loop_counter(outer_grad_state)
        if outer_forward_ctxt is not None:
            outer_forward_ctxt.exit()

        if outer_grad_state is not None:
            # A nested loop: how many iterations each of its runs took is kept for the gradient.
            outer_forward_ctxt.values.add(cnt)
            history_cnt = outer_grad_state.add_forward_accumulator(cnt)
            outer_grad_ctxt = outer_grad_state.grad_context
            outer_grad_ctxt.enter()
            self.grad_context = self._new_grad_context(forward_ctxt)
            real_cnt = outer_grad_state.add_backprop_accumulated_value(history_cnt, cnt)
            self.grad_index = self.grad_context.add_backprop_loop_counter(real_cnt, outer_grad_state)
            outer_grad_ctxt.exit()
        else:
            if outer_forward_ctxt is not None:
                outer_forward_ctxt.enter()
            self.grad_context = self._new_grad_context(forward_ctxt)
            self.grad_index = self.grad_context.add_backprop_loop_counter(cnt, outer_grad_state)
            if outer_forward_ctxt is not None:
                outer_forward_ctxt.exit()

    def _new_grad_context(self, forward_ctxt):
        return WhileContext(forward_ctxt.maximum_iterations, forward_ctxt.parallel_iterations, forward_ctxt.back_prop,
                            forward_ctxt.swap_memory, forward_ctxt.name, grad_state=self)

    @property
    def forward_sync(self):
        """A ControlTrigger in the forward loop that pushes made inside a cond wait for."""
        if self._forward_sync is None:
            with control_dependencies(None):
                self._forward_sync = control_trigger(name="f_sync")
            self._forward_sync.control_flow_context = self.forward_context
            self.forward_index.op._add_control_input(self._forward_sync)
        return self._forward_sync

    @property
    def grad_sync(self):
        """A ControlTrigger in the gradient loop that runs after every pop of an iteration."""
        if self._grad_sync is None:
            with control_dependencies(None):
                self._grad_sync = control_trigger(name="b_sync")
            self._grad_sync.control_flow_context = self.grad_context
            self.grad_index.op._add_control_input(self._grad_sync)
            if self.grad_context.outer is not None:
                self.grad_context.outer.add_inner_op(self._grad_sync)
        return self._grad_sync

    def add_forward_accumulator(self, value, dead_branch=False):
        """A stack the forward loop pushes ``value`` onto in every iteration (made in the
        context ``tf.gradients`` was called in, beside ``value``); returns the stack."""
        graph = self.forward_index.graph
        curr_ctxt = graph._get_control_flow_context()
        with control_dependencies(None):
            if curr_ctxt is not None:
                curr_ctxt.enter()
            with colocate_with(value):
                max_size = constant(-1, dtype=dtypes.int32)
                acc = _stack(max_size, value.dtype.base_dtype, "f_acc")
            if curr_ctxt is not None:
                curr_ctxt.exit()
            enter_acc = self.forward_context.add_value(acc)  # the stack, inside the forward loop
            swap = self.forward_context.swap_memory
            value_ctxt = util.output_context(value.op)
            if value_ctxt is self.forward_context:
                self.forward_context.enter()
                push = _stack_push(enter_acc, value, swap)
                self.forward_context.exit()
                self.forward_index.op._add_control_input(push.op)  # pushed before the next iteration
            else:  # value is inside a cond in the loop: push on its branch
                if not value_ctxt.is_cond:
                    raise TypeError(f"value_ctxt is not a CondContext: {value_ctxt}")
                if dead_branch:
                    value_ctxt.outer.enter()
                    push = _stack_push(enter_acc, value, swap)
                    value_ctxt.outer.exit()
                    push.op.control_flow_context = value_ctxt
                else:
                    value_ctxt.enter()
                    push = _stack_push(enter_acc, value, swap)
                    value_ctxt.exit()
                self.forward_sync._add_control_input(push.op)
            push.op._add_control_input(self.forward_index.op.inputs[0].op)  # after this iteration's count
        return acc

    def add_backprop_accumulated_value(self, history_value, value, dead_branch=False):
        """The value ``history_value`` (a stack) holds for the current gradient iteration: a pop,
        guarded by the cond's predicate when the value was pushed inside a cond."""
        history_ctxt = history_value.op.control_flow_context
        cond_ctxt, value_ctxt = None, value.op.control_flow_context
        while value_ctxt is not None and value_ctxt is not history_ctxt:
            if value_ctxt.is_cond:
                cond_ctxt = value_ctxt
                break
            value_ctxt = value_ctxt.outer
        with control_dependencies(None):
            self.grad_context.enter()
            if cond_ctxt is not None:
                grad_state, pred = self, None
                while pred is None and grad_state is not None:
                    pred = grad_state.history_map.get(cond_ctxt.pred)
                    grad_state = grad_state.outer_grad_state
                if pred is None:
                    pred = cond_ctxt.pred
                branch = (1 - cond_ctxt.branch) if dead_branch else cond_ctxt.branch
                history_value = _switch_ref_or_tensor(history_value, pred)[branch]
            pop = _stack_pop(history_value, value.dtype.base_dtype)
            pop.set_shape(value.shape)
            self.grad_context.exit()
        if self.grad_context.parallel_iterations > 1:
            self.grad_sync._add_control_input(pop.op)  # every pop of an iteration before the next
        return pop

    def get_real_value(self, value):
        """What stands for the forward tensor ``value`` in the gradient loop: a loop invariant
        enters it again, a constant is copied, anything else comes from a stack. Called in the
        gradient loop."""
        real_value = self.history_map.get(value)
        if real_value is not None:
            return real_value
        cur_value, cur_grad_state = value, self
        while True:
            enter_op = util.get_loop_constant_enter(cur_value)
            if enter_op is not None:  # a loop invariant: look one loop further out
                cur_value = enter_op.inputs[0]
                cur_grad_state = cur_grad_state.outer_grad_state
                if cur_grad_state is None:
                    real_value = self.grad_context.add_value(cur_value)
                    break
            elif cur_value.op.type == "Const":
                real_value = constant(constant_value(cur_value), dtype=cur_value.dtype.base_dtype)
                break
            else:
                self.grad_context.exit()
                history_value = cur_grad_state.add_forward_accumulator(cur_value)
                self.grad_context.enter()
                break
        if real_value is None:
            real_value = cur_grad_state.add_backprop_accumulated_value(history_value, cur_value)
            if cur_grad_state is not self:
                real_value = self.grad_context.add_value(real_value)
        self.history_map[value] = real_value
        return real_value


class ControlFlowState:
    """The gradient loop states of one ``tf.gradients`` call, one per forward loop."""

    def __init__(self):
        self._map = {}  # forward WhileContext -> GradLoopState

    def get_grad_state(self, op, before):
        """The state of the loop ``op`` is in (an Exit's, before its gradient, is its outer loop's)."""
        if before and util.is_loop_exit(op):
            forward_ctxt = op.control_flow_context.outer
            forward_ctxt = forward_ctxt.while_context() if forward_ctxt is not None else None
        else:
            forward_ctxt = util.while_context_of(op)
        return self._map.get(forward_ctxt) if forward_ctxt is not None else None

    def process_unused_loop_exits(self, pending_count, to_ops_set):
        """The loop exits no y depends on (``v1, _ = while_loop(...)``), which the gradient loop
        still needs: with zeros when another exit of their loop has a gradient."""
        loop_exits = []
        for grad_state in self._map.values():
            for y in grad_state.forward_loop_exits:
                if pending_count[y.op] == 0:
                    grad_state.pending_exits_count -= 1
                    if y.op not in to_ops_set:
                        grad_state.unused_exits.append(y)
                    if grad_state.pending_exits_count == 0:
                        loop_exits.extend(grad_state.unused_exits)
            for y in grad_state.forward_context.loop_enters:
                if pending_count[y.op] == 0:
                    pending_count[y.op] = 1
        return loop_exits

    def enter_grad_while_context(self, op, before):
        grad_state = self.get_grad_state(op, before)
        if grad_state is not None:
            grad_state.grad_context.enter()

    def exit_grad_while_context(self, op, before):
        grad_state = self.get_grad_state(op, before)
        if grad_state is not None:
            grad_state.grad_context.exit()

    def add_while_context(self, op, between_op_list, between_ops):
        """A state for the loop of the Exit ``op`` (once per loop); every exit of that loop joins
        the ops between the xs and the ys."""
        forward_ctxt = util.while_context_of(op)
        grad_state = self._map.get(forward_ctxt)
        if grad_state is None:
            outer_forward_ctxt = forward_ctxt.outer
            if outer_forward_ctxt is not None:
                outer_forward_ctxt = outer_forward_ctxt.while_context()
            outer_grad_state = self._map.get(outer_forward_ctxt) if outer_forward_ctxt is not None else None
            grad_state = GradLoopState(forward_ctxt, outer_grad_state)
            self._map[forward_ctxt] = grad_state
            for loop_exit in grad_state.forward_loop_exits:
                if loop_exit.op not in between_ops:
                    between_ops.add(loop_exit.op)
                    between_op_list.append(loop_exit.op)

    def zeros_like_for_exit(self, val):
        """A zero gradient for the Exit output ``val`` that no y depends on."""
        val_shape = val.shape
        forward_ctxt = val.op.control_flow_context
        outer_forward_ctxt = forward_ctxt.outer
        if outer_forward_ctxt is not None:
            outer_forward_ctxt = outer_forward_ctxt.while_context()
        outer_grad_state = self._map.get(outer_forward_ctxt) if outer_forward_ctxt is not None else None
        if outer_grad_state is None:
            if val_shape.is_fully_defined():
                return zeros(list(val_shape.sizes), val.dtype.base_dtype)
            return zeros_like(val, optimize=False)
        if val_shape.is_fully_defined():
            outer_grad_state.grad_context.enter()
            result = zeros(list(val_shape.sizes), val.dtype.base_dtype)
            outer_grad_state.grad_context.exit()
            return result
        forward_ctxt.outer.enter()
        shape = _shape_internal(val)
        forward_ctxt.outer.exit()
        history_shape = outer_grad_state.add_forward_accumulator(shape)
        outer_grad_state.grad_context.enter()
        real_shape = outer_grad_state.add_backprop_accumulated_value(history_shape, shape)
        result = zeros(real_shape, val.dtype.base_dtype)
        outer_grad_state.grad_context.exit()
        return result

    def zeros_like_v1_while_loop(self, op, index):
        """A zero gradient for output ``index`` of ``op``, made in the gradient loop (called there)."""
        if util.is_loop_switch(op):
            return None
        dead_branch = util.is_switch(op)
        forward_ctxt = util.while_context_of(op)
        grad_state = self._map.get(forward_ctxt) if forward_ctxt is not None else None
        if grad_state is None:
            return zeros_like_output(op, index)
        op_ctxt = op.control_flow_context
        val = op.outputs[index]
        shape = val.shape
        if shape.is_fully_defined():
            result = constant(0, shape=list(shape.sizes), dtype=val.dtype.base_dtype)
            if dead_branch:  # a cond's Switch: the zeros only on the branch not taken
                pred = grad_state.history_map.get(op_ctxt.pred)
                result = _switch_ref_or_tensor(result, pred)[1 - op_ctxt.branch]
            return result
        if dead_branch:
            op_ctxt.outer.enter()
            val = _switch_ref_or_tensor(op.inputs[0], op_ctxt.pred)[1 - op_ctxt.branch]
            zeros_shape = _shape_internal(val)
            op_ctxt.outer.exit()
            val.op.control_flow_context = op_ctxt
            zeros_shape.op.control_flow_context = op_ctxt
        else:
            op_ctxt.enter()
            zeros_shape = _shape_internal(val)
            op_ctxt.exit()
        grad_state.grad_context.exit()
        history_zeros_shape = grad_state.add_forward_accumulator(zeros_shape, dead_branch=dead_branch)
        grad_state.grad_context.enter()
        shape = grad_state.add_backprop_accumulated_value(history_zeros_shape, zeros_shape, dead_branch)
        return zeros(shape, val.dtype.base_dtype)

    def post_processing(self):
        """A loop variable whose next value does not depend on its current one gets zeros as its
        gradient for every iteration after the first."""
        for grad_state in self._map.values():
            for b_merge in grad_state.switch_map.values():
                if b_merge.op.inputs[0] is b_merge.op.inputs[1]:
                    dtype, shape = b_merge.op.inputs[0].dtype.base_dtype, b_merge.op.inputs[0].shape
                    if shape.is_fully_defined():
                        grad_state.grad_context.enter()
                        grad_val = constant(0, dtype=dtype, shape=list(shape.sizes))
                        next_grad_val = next_iteration(grad_val)
                        grad_state.grad_context.exit()
                    else:
                        outer_grad_ctxt = grad_state.grad_context.outer
                        if outer_grad_ctxt is not None:
                            outer_grad_ctxt.enter()
                        enter_grad = b_merge.op.inputs[0].op.inputs[0]
                        grad_val = zeros(_shape_internal(enter_grad))
                        if outer_grad_ctxt is not None:
                            outer_grad_ctxt.exit()
                        grad_state.grad_context.enter()
                        next_grad_val = next_iteration(grad_val)
                        grad_state.grad_context.exit()
                    b_merge.op._update_input(1, next_grad_val)


def maybe_create_control_flow_state(between_op_list, between_ops, colocate_gradients_with_ops):
    """A ControlFlowState when a while loop lies between the xs and the ys, else None."""
    loop_state = None
    for op in between_op_list:  # add_while_context appends to the list; TF's loop sees those too
        if util.is_loop_exit(op):
            if loop_state is None:
                loop_state = ControlFlowState()
            if colocate_gradients_with_ops:
                with colocate_with(op):
                    loop_state.add_while_context(op, between_op_list, between_ops)
            else:
                loop_state.add_while_context(op, between_op_list, between_ops)
    return loop_state


def zeros_like_output(op, index):
    """The zero gradient of output ``index`` of ``op`` outside gradient loops. A cond's Switch
    output gets zeros only on the branch not taken (a Switch, an Identity pivot, then zeros)."""
    val = op.outputs[index]
    resource = val.dtype.base_dtype == dtypes.resource  # a variable's handle: zeros shaped like the variable
    if not util.is_switch(op) or op.control_flow_context is None:
        if resource:
            return zeros(variable_shape_op(val), dtype=_variable_dtype(val))
        return zeros_like(val, optimize=False)
    op_ctxt = op.control_flow_context
    switch_val = switch(op.inputs[0], op_ctxt.pred)[1 - op_ctxt.branch]
    pivot = identity(switch_val)
    if resource:
        with control_dependencies([pivot]):
            return zeros(variable_shape_op(switch_val), dtype=_variable_dtype(switch_val))
    zeros_shape = _shape_internal(switch_val)
    with control_dependencies([pivot]):
        return zeros(zeros_shape, dtype=val.dtype.base_dtype)


def _variable_dtype(handle):
    """The dtype of the variable behind ``handle`` (its VarHandleOp's), through the ops passing it on."""
    t = handle
    while t.op.type != "VarHandleOp" and t.op.inputs:
        t = t.op.inputs[0]
    return t.op.get_attr("dtype")
