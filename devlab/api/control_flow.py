"""``tf.cond`` and ``tf.while_loop`` as TF 1.x builds them (control flow v1), op for op.

``cond`` builds a ``Switch`` of the predicate, two pivots (``switch_t``, ``switch_f``) and
``pred_id``, then each branch inside a ``CondContext``: every tensor from outside that an op of
the branch reads goes through a ``Switch`` on ``pred_id`` (so the branch not taken sees DEAD
values and does not run), and ops without inputs get a control input on the branch's pivot.
The results meet in ``Merge`` ops.

``while_loop`` builds a frame: each loop variable goes ``Enter`` -> ``Merge`` (which later also
takes the ``NextIteration`` of the body's result) -> ``Switch`` on ``LoopCond`` -> ``Identity``
for the body, or ``Exit`` when the condition is false. A tensor from outside that the loop
reads comes in through an ``Enter`` with ``is_constant=True``.

The contexts hook into op creation (``Graph.create_op`` calls ``context.add_op``), as TF's
``ControlFlowContext.AddOp`` does; the runtime gives DEAD values and frames their meaning. A
``WhileContext`` with a ``grad_state`` is the gradient loop of a forward loop
(``control_flow_state.py``): a forward value its ops read is fetched from a stack, iteration by
iteration, instead of being entered as a constant.
"""
import collections

from ..framework import dtypes
from ..framework.graph import get_default_graph
from ..framework.indexed_slices import IndexedSlices
from ..framework.scopes import colocate_with, control_dependencies, name_scope
from ..framework.tensor import Tensor
from ..framework.tensor_shape import TensorShape, as_shape
from . import control_flow_util as util
from . import nest
from . import array_ops, math_ops
from .array_ops import constant, identity, zeros
from ..ops.build import apply_op, convert_to_tensor
from .tensor_array_ops import TensorArray
from ..ops.sparse_tensor import SparseTensor


# -- the primitive ops ---------------------------------------------------------------------------
# TF's raw wrappers return their outputs as namedtuples: ``merge(...).output``, ``.value_index``
_SwitchOutputs = collections.namedtuple("Switch", ["output_false", "output_true"])
_MergeOutputs = collections.namedtuple("Merge", ["output", "value_index"])


def switch(data, pred, name=None):
    """(output_false, output_true): ``data`` comes out on the side ``pred`` selects."""
    with name_scope(name, "Switch", [data, pred]) as scope:
        if not nest.is_composite(data):
            data = convert_to_tensor(data, name="data", as_ref=True)
        pred = convert_to_tensor(pred, name="pred")
        if nest.is_composite(data):  # an IndexedSlices or SparseTensor: one Switch per component
            mapped = [apply_op("Switch", [t, pred], None, "Switch").outputs for t in nest.components(data)]
            return tuple(nest.from_components(data, [m[side] for m in mapped]) for side in (0, 1))
        # always Switch, as TF's control_flow_ops.switch: a variable's ref goes in and is read
        return _SwitchOutputs(*apply_op("Switch", [data, pred], None, scope).outputs)


def merge(inputs, name=None):
    """(the first input that is alive, its index)."""
    if any(x is None for x in inputs):
        raise ValueError(f"At least one of the merge inputs is None: {inputs}")
    with name_scope(name, "Merge", inputs) as scope:
        if any(nest.is_composite(x) for x in inputs):
            if all(isinstance(x, (IndexedSlices, Tensor)) for x in inputs):  # TF: tensors become IndexedSlices
                inputs = [x if isinstance(x, IndexedSlices) else _as_indexed_slices(x) for x in inputs]
            for x in inputs:
                if not nest.is_composite(x):
                    raise TypeError(f"Type {type(x)} not supported")
            for x in inputs[1:]:
                nest.assert_same_structure(inputs[0], x, expand_composites=True)
            # TF merges each component (values, indices, dense shape) with a Merge of its own
            merged = [apply_op("Merge", list(component), {"N": len(inputs)}, "Merge").outputs
                      for component in zip(*[nest.components(x) for x in inputs])]
            return nest.from_components(inputs[0], [m[0] for m in merged]), merged[0][1]
        inputs = [convert_to_tensor(x) for x in inputs]
        return _MergeOutputs(*apply_op("Merge", inputs, {"N": len(inputs)}, scope).outputs)


def _as_indexed_slices(x):
    """A dense gradient as IndexedSlices of all its rows (TF's ``_as_indexed_slices``)."""
    x = convert_to_tensor(x)
    x_shape = _shape_internal(x)  # an op, never folded: it must die with x on a cond's untaken side
    return IndexedSlices(x, array_ops.range(0, x_shape[0]), x_shape)


def _switch_ref_or_tensor(data, pred, name="Switch"):
    """A Switch colocated with its data (whatever device scopes are open); a RefSwitch only for
    a ref tensor itself (a Variable is converted to its value first, as TF's)."""
    if nest.is_composite(data):
        with colocate_with(data.values if isinstance(data, IndexedSlices) else data.indices, ignore_existing=True):
            return switch(data, pred, name=name)
    data = convert_to_tensor(data, name="data")
    with colocate_with(data, ignore_existing=True):
        if data.dtype.is_ref:
            with name_scope(name, "RefSwitch", [data, pred]) as scope:
                return tuple(apply_op("RefSwitch", [data, convert_to_tensor(pred, name="pred")], None,
                                      scope).outputs)
        return switch(data, pred, name=name)


def _enter(data, frame_name, is_constant=False, parallel_iterations=10, use_ref=True, use_input_shape=True,
           name=None):
    """``data`` into the loop frame ``frame_name``: a RefEnter for a ref tensor (``use_ref``), else an
    Enter, with ``data``'s shape unless ``use_input_shape`` is False (TF's ``_Enter``); a composite
    enters component by component."""
    if nest.is_composite(data):
        return nest.map_structure(lambda t: _enter(t, frame_name, is_constant, parallel_iterations, use_ref,
                                                   use_input_shape), data, expand_composites=True)
    data = convert_to_tensor(data, as_ref=use_ref)
    attrs = {"frame_name": frame_name, "is_constant": is_constant, "parallel_iterations": parallel_iterations}
    op_type = "RefEnter" if data.dtype.is_ref else "Enter"
    result = apply_op(op_type, [data], attrs, name or op_type).outputs[0]
    if use_input_shape:
        result.set_shape(data.shape)
    return result


_Enter = _enter  # noqa: N816 - TF's name (control_flow_ops._Enter)
_SwitchRefOrTensor = _switch_ref_or_tensor  # noqa: N816 - TF's name


def _unary(op_type, data, name):
    if nest.is_composite(data):  # TF maps a composite's components, each op with its default name
        return nest.map_structure(lambda t: _unary(op_type, t, None), data, expand_composites=True)
    return apply_op(op_type, [convert_to_tensor(data)], None, name or op_type).outputs[0]


def loop_cond(pred, name=None):
    return _unary("LoopCond", pred, name)


def exit(data, name=None):  # noqa: A001 - TF's name
    return _unary("Exit", data, name)


def next_iteration(data, name=None):
    return _unary("NextIteration", data, name)


def control_trigger(name=None):
    """An op that only orders others; it runs even when the ops it waits for were DEAD."""
    return apply_op("ControlTrigger", [], None, name or "ControlTrigger")


def _add_next_and_back_edge(m, v, enforce_shape_invariant=True):
    """Closes a loop: ``v`` goes through a NextIteration into the Merge ``m``."""
    v = next_iteration(convert_to_tensor(v))
    if enforce_shape_invariant:
        _enforce_shape_invariant(m, v)
    m.op._update_input(1, v)
    return v


# -- contexts --------------------------------------------------------------------------------------
class ControlFlowContext:
    """A branch or loop being built: the tensors known inside it and what outer ones became.

    ``enter``/``exit`` make it the graph's current context (and restore the one before), as TF's
    ``Enter``/``Exit`` do; the gradient code enters and leaves contexts out of nesting order.
    """
    is_cond = is_while = False

    def __init__(self):
        self.graph = get_default_graph()
        self.outer = self.graph._get_control_flow_context()
        self.values = set()  # tensors that live in this context
        self.external = {}  # an outer tensor -> the Switch or Enter output that stands for it
        self._context_stack = []

    def enter(self):
        self._context_stack.append(self.graph._get_control_flow_context())
        self.graph._set_control_flow_context(self)

    def exit(self):
        self.graph._set_control_flow_context(self._context_stack.pop())

    def while_context(self):
        """The innermost while loop this context is in (itself, if it is one), or None."""
        return self.outer.while_context() if self.outer is not None else None

    def control_pivot(self):
        return None

    def exit_result(self, tensors):
        """Makes ``tensors`` (the context's outputs) known to the enclosing context."""
        if self.outer is not None:
            self.outer.values.update(tensors)

    def add_inner_op(self, op):
        """Tells the enclosing contexts about an op made in a context inside them."""
        if self.outer is not None:
            self.outer.add_inner_op(op)

    def check_consumer(self, op, input_op):
        """TF's check, at op creation, that ``op`` may read ``input_op``'s output."""
        util.check_input_from_valid_context(op, input_op)

    def _remove_external_control_edges(self, op):
        """Drops ``op``'s control inputs from outside its while loop; returns (kept, dropped)."""
        while_ctxt = self.while_context()
        if while_ctxt is None:
            return list(op.control_inputs), []
        internal, external = [], []
        for x in op.control_inputs:
            ctxt = util.output_context(x)
            (internal if ctxt is not None and ctxt.while_context() is while_ctxt else external).append(x)
        if external:
            op._remove_control_inputs(external)
        return internal, external

    def _mark_seen(self, tensors):
        """``tensors`` are known here and in every enclosing context."""
        ctxt = self
        while ctxt is not None:
            ctxt.values.update(tensors)
            ctxt = ctxt.outer


class CondContext(ControlFlowContext):
    is_cond = True

    def __init__(self, pred, pivot, branch):
        super().__init__()
        self.name = self.graph.unique_name("cond_text")
        self.pred, self.pivot, self.branch = pred, pivot, branch
        self.values.add(pred)
        self.external[pred] = pred
        self.values.add(pivot)
        pivot.op.control_flow_context = self

    @property
    def grad_state(self):
        while_ctxt = self.while_context()
        return while_ctxt.grad_state if while_ctxt is not None else None

    @property
    def back_prop(self):
        while_ctxt = self.while_context()
        return while_ctxt.back_prop if while_ctxt is not None else False

    def control_pivot(self):
        return self.pivot

    def add_value(self, val):
        """The tensor that stands for ``val`` inside this branch (a Switch of it, if outer)."""
        if val in self.values:
            result = self.external.get(val)
            return val if result is None else result
        result = val
        self.values.add(val)
        if self.outer is not None:
            result = self.outer.add_value(val)
            self.values.add(result)
            self.external[result] = result
        with control_dependencies(None):
            result = _switch_ref_or_tensor(result, self.pred)[self.branch]
            if self.outer is not None:
                self.outer.add_inner_op(result.op)
        self.graph._prevent_fetching(result.op)
        result.op.control_flow_context = self
        self._mark_seen([result])
        self.external[val] = result
        return result

    def add_op(self, op):
        if not op.inputs:
            self._remove_external_control_edges(op)
            if not any(util.op_in_context(c, self) for c in op.control_inputs):
                op._add_control_input(self.pivot.op)  # an op without inputs runs only on this branch
        else:
            for i, x in enumerate(op.inputs):
                real = x if op.type == "Merge" and x.op.type == "NextIteration" else self.add_value(x)
                if real is not x:
                    op._update_input(i, real)
            self._remove_external_control_edges(op)
        self._mark_seen(op.outputs)
        if self.outer is not None or not util.is_loop_exit(op):
            self.graph._prevent_fetching(op)
        if self.outer is not None:
            self.outer.add_inner_op(op)

    _add_op_internal = add_op  # TF's CondContext.AddOp is its _AddOpInternal (a gradient's Shape comes here)

    def build_branch(self, fn):
        """Calls ``fn`` inside the branch; returns (its results, the same structure of the tensors
        leaving the branch: each composite's components each go out through a Switch)."""
        original = fn()
        if original is None:
            raise ValueError("true_fn and false_fn must have a return value.")
        result = nest.map_structure(self._output, original, expand_composites=True)
        return original, result if isinstance(result, (list, tuple)) else [result]

    def _output(self, v):
        if not isinstance(v, Tensor) and hasattr(v, "type") and hasattr(v, "graph"):  # an Operation
            from .control_flow_ops import with_dependencies
            return with_dependencies([v], self.pivot)
        v = convert_to_tensor(v)
        if v not in self.values:  # ``lambda: x``: the branch returns an outer tensor as it is
            self.values.add(v)
            real = v
            if self.outer is not None:
                real = self.outer.add_value(v)
                self.values.add(real)
                self.external[real] = real
            real = _switch_ref_or_tensor(real, self.pred)[self.branch]
            self.external[v] = real
            return real
        return self.external.get(v, v)


class WhileContext(ControlFlowContext):
    """A while loop's frame; with ``grad_state``, the gradient loop of another loop."""
    is_while = True

    def __init__(self, maximum_iterations=None, parallel_iterations=10, back_prop=True, swap_memory=False,
                 name="while_context", grad_state=None):
        super().__init__()
        if not isinstance(parallel_iterations, int) or parallel_iterations <= 0:
            raise ValueError(f"'parallel_iterations' must be a positive integer: {parallel_iterations}")
        self.name = self.graph.unique_name(name)  # the frame's name, e.g. while/while_context
        self.maximum_iterations = maximum_iterations
        self.parallel_iterations = parallel_iterations
        self.back_prop, self.swap_memory = back_prop, swap_memory
        self.grad_state = grad_state
        self.pivot_for_pred = self.pivot_for_body = self.pivot = None
        self.loop_enters, self.loop_exits = [], []

    def while_context(self):
        return self

    def control_pivot(self):
        return self.pivot_for_body if self.pivot_for_body is not None else self.pivot_for_pred

    def add_value(self, val):
        """The tensor that stands for ``val`` inside the loop: an Enter of it if it comes from
        outside; in a gradient loop, a forward value comes from its history (a stack pop)."""
        if val in self.values or val.op.control_flow_context is self:
            actual = self.external.get(val)
            return val if actual is None else actual
        self.values.add(val)
        grad_ctxt = self.graph._get_control_flow_context()
        grad_ctxt = grad_ctxt.while_context() if grad_ctxt is not None else None
        if grad_ctxt is not None and grad_ctxt.grad_state is not None:
            forward_ctxt = util.while_context_of(val.op)
            if util.is_loop_exit(val.op):
                forward_ctxt = forward_ctxt.outer
                forward_ctxt = forward_ctxt.while_context() if forward_ctxt is not None else None
            if forward_ctxt is grad_ctxt.grad_state.forward_context:
                real_val = grad_ctxt.grad_state.get_real_value(val)
                self.external[val] = real_val
                return real_val
        result = self.outer.add_value(val) if self.outer is not None else val
        with control_dependencies(None):
            enter = _enter(result, self.name, is_constant=True, parallel_iterations=self.parallel_iterations)
            self.graph._prevent_feeding(enter)
            if self.outer is not None:
                self.outer.add_inner_op(enter.op)
        self._fix_control_inputs_and_context([enter])
        self.values.add(enter)
        self.external[val] = enter
        return enter

    def add_op(self, op):
        # A Shape, Size or Rank of a forward value, built for a gradient, runs in the forward loop
        # (so the small result is kept in a stack, not the tensor it describes).
        if op.type in ("Shape", "Size", "Rank"):
            grad_ctxt = self.graph._get_control_flow_context()
            grad_ctxt = grad_ctxt.while_context() if grad_ctxt is not None else None
            if grad_ctxt is not None and grad_ctxt.grad_state is not None:
                if util.while_context_of(op.inputs[0].op) is grad_ctxt.grad_state.forward_context:
                    input_ctxt = op.inputs[0].op.control_flow_context
                    op.control_flow_context = input_ctxt
                    input_ctxt._add_op_internal(op)
                    return
        self._add_op_internal(op)

    def _add_op_internal(self, op):
        if not op.inputs:
            control_inputs, external_inputs = self._remove_external_control_edges(op)
            if not control_inputs:  # an op with no inputs runs once per iteration
                op._add_control_input(self.control_pivot().op)
        else:
            for i, x in enumerate(op.inputs):
                real = self.add_value(x)
                if real is not x:
                    op._update_input(i, real)
            _, external_inputs = self._remove_external_control_edges(op)
            if not op.control_inputs and all(util.is_loop_constant_enter(x.op) for x in op.inputs):
                op._add_control_input(self.control_pivot().op)  # only reads loop invariants
        self.values.update(op.outputs)
        if external_inputs:
            # A control input from outside the loop comes in as the data of an Identity.
            with control_dependencies(None):
                self.enter()
                external_inputs = [identity(x.outputs[0]).op for x in external_inputs if x.outputs]
                self.exit()
            op._add_control_inputs(external_inputs)
        if self.outer is not None or not util.is_loop_exit(op):
            self.graph._prevent_fetching(op)
            for x in op.outputs:
                self.graph._prevent_feeding(x)
        if self.outer is not None:
            self.outer.add_inner_op(op)

    def _fix_control_inputs_and_context(self, enters):
        """Each Enter belongs to this loop and keeps the open control dependencies that come
        from the contexts around it (not from an enclosing loop)."""
        graph = self.graph
        for x in enters:
            inp_op = x.op.inputs[0].op
            keep = []
            for op in graph._control_inputs_for([inp_op]):
                op_ctxt = util.output_context(op)
                outer_ctxt = self.outer
                outer_while = outer_ctxt.while_context() if outer_ctxt is not None else None
                ok = True
                while outer_ctxt is not op_ctxt:
                    if outer_ctxt is None or outer_ctxt is outer_while:
                        ok = False
                        break
                    outer_ctxt = outer_ctxt.outer
                if ok:
                    keep.append(op)
            x.op.control_flow_context = self
            x.op._add_control_inputs(keep)
            graph._record_op_seen_by_control_dependencies(x.op)

    def build_loop(self, cond, body, loop_vars, shape_invariants):
        """Builds the loop; returns (the body's result, the Exits: a TensorArray for each
        TensorArray loop variable, which goes around the loop as its flow)."""
        flat_orig = _flatten(loop_vars)
        flat = [convert_to_tensor(_flow_of(v)) for v in flat_orig]

        def with_arrays(tensors):  # loop variables as the body sees them: TensorArrays rebuilt
            return _pack(loop_vars, [o._with_flow(t) if isinstance(o, TensorArray) else t
                                     for o, t in zip(flat_orig, tensors)])
        invariants = _component_invariants(loop_vars, shape_invariants)
        self.enter()
        try:
            self.values = set(flat)
            real_vars = [self.outer.add_value(x) for x in flat] if self.outer is not None else flat
            enters = []
            with control_dependencies(None):
                for x, real, shape in zip(flat, real_vars, invariants):
                    enter = _enter(real, self.name, is_constant=False, parallel_iterations=self.parallel_iterations)
                    if shape is not None:
                        if not _shape_less_than_or_equal(real.shape, shape):
                            raise ValueError(f"The shape invariant specified for {real.name} is not compatible "
                                             f"with the initial shape of the loop variable. It enters the loop "
                                             f"with shape {real.shape}, but the specified shape invariant is "
                                             f"{shape}.")
                        enter._shape = TensorShape(shape)
                    self.graph._prevent_feeding(enter)
                    if self.outer is not None:
                        self.outer.add_inner_op(enter.op)
                    enters.append(enter)
            control_pivot, outer = None, self.outer
            while outer is not None and control_pivot is None:  # the closest enclosing pivot
                control_pivot, outer = outer.control_pivot(), outer.outer
            if control_pivot is not None:
                for var in enters:
                    if util.is_loop_constant_enter(var.op.inputs[0].op):
                        var.op._add_control_input(control_pivot.op)
            self._fix_control_inputs_and_context(enters)
            self.values = set(enters)
            self.loop_enters = enters
            merges = [merge([x, x])[0] for x in enters]
            for m, x in zip(merges, enters):
                m._shape = x.shape  # the Merge's shape is the loop variable's invariant shape
            self.pivot_for_pred = merges[0]
            c = convert_to_tensor(cond(*with_arrays(merges)))
            self.pivot = loop_cond(c, name="LoopCond")
            switches = [_switch_ref_or_tensor(m, self.pivot) for m in merges]
            body_vars = [identity(s[1]) for s in switches]
            self.pivot_for_body = body_vars[0]
            packed_body_vars = with_arrays(body_vars)
            result = body(*packed_body_vars)
            original = result if nest.is_nested(result) else [result]
            # the first level as lists: loop variables are usually a list, a body's result a tuple
            nest.assert_same_structure(list(packed_body_vars), list(original), expand_composites=True)
            flat_result = _flatten(original)
            result = [convert_to_tensor(_flow_of(v)) for v in flat_result]
            if len(result) != len(merges):
                raise ValueError("Number of inputs and outputs of 'body' must match 'loop_vars'. Got "
                                 f"{len(merges)} for the number of inputs/outputs, and {len(result)} for 'loop_vars'.")
            for m, v in zip(merges, result):
                _add_next_and_back_edge(m, v)
            exits = [exit(s[0]) for s in switches]
            self.loop_exits = exits
            self.exit_result(exits)
        finally:
            self.exit()
        return original, [r._with_flow(e) if isinstance(r, TensorArray) else e for r, e in zip(flat_result, exits)]

    # -- the loops a gradient adds (TF's WhileContext.AddForwardLoopCounter...) --------------------
    def add_forward_loop_counter(self, outer_grad_state):
        """Counts this (forward) loop's iterations: ``n = 0; while (pivot) n++``. Called in the
        context around the loop; returns (the count at exit, the NextIteration of the count)."""
        n = constant(0, name="f_count")
        if outer_grad_state is not None:
            # An inner loop's pushes in one outer iteration come before those of the next.
            n.op._add_control_input(outer_grad_state.forward_index.op.inputs[0].op)
        self.enter()
        self.values.add(n)
        enter_n = _enter(n, self.name, is_constant=False, parallel_iterations=self.parallel_iterations,
                         name="f_count")
        self.loop_enters.append(enter_n)
        merge_n = merge([enter_n, enter_n])[0]
        switch_n = switch(merge_n, self.pivot)
        index = math_ops.add(switch_n[1], 1)
        next_n = next_iteration(index)
        merge_n.op._update_input(1, next_n)
        total_iterations = exit(switch_n[0], name="f_count")
        self.loop_exits.append(total_iterations)
        self.exit_result([total_iterations])
        self.exit()
        return total_iterations, next_n

    def add_backprop_loop_counter(self, count, outer_grad_state):
        """The gradient loop's own counter, which decides when it ends: ``n = count; while
        (n >= 1) n--``. Sets this loop's pivots; returns the NextIteration of the count."""
        one = constant(1, name="b_count")
        self.enter()
        self.values.add(count)
        enter_count = _enter(count, self.name, is_constant=False, parallel_iterations=self.parallel_iterations,
                             name="b_count")
        self.loop_enters.append(enter_count)
        merge_count = merge([enter_count, enter_count])[0]
        self.pivot_for_pred = merge_count
        pred = math_ops.greater_equal(merge_count, one)
        self.pivot = loop_cond(pred, name="b_count")
        switch_count = switch(merge_count, self.pivot)
        index = math_ops.subtract(switch_count[1], one)
        self.pivot_for_body = index
        next_count = next_iteration(index)
        merge_count.op._update_input(1, next_count)
        final_zero = exit(switch_count[0], name="b_count")
        self.loop_exits.append(final_zero)
        if outer_grad_state is not None:
            # An inner gradient loop's pops in one outer iteration come before those of the next.
            outer_grad_state.grad_sync._add_control_input(final_zero.op)
        self.exit_result([final_zero])
        self.exit()
        return next_count

    def add_backprop_accumulator(self, op, grad):
        """Sums, over the iterations, the gradient of a loop invariant (the constant Enter ``op``):
        ``acc = 0; while (pivot) acc += grad``. Called in this gradient loop; returns the sum."""
        self.exit()
        shape = grad.shape
        if shape.is_fully_defined():
            if self.outer is not None:
                self.outer.enter()
            acc = constant(0, dtype=grad.dtype.base_dtype, shape=list(shape.sizes), name="b_acc")
            if self.outer is not None:
                self.outer.exit()
        else:
            value = op.inputs[0]
            if self.outer is not None and self.outer.is_while and self.outer.grad_state is not None:
                forward_ctxt = self.grad_state.forward_context  # a nested loop: the shape from a stack
                forward_ctxt.outer.enter()
                zeros_shape = _shape_internal(value)
                forward_ctxt.outer.exit()
                outer_grad_state = self.grad_state.outer_grad_state
                history = outer_grad_state.add_forward_accumulator(zeros_shape)
                self.outer.enter()
                real_shape = outer_grad_state.add_backprop_accumulated_value(history, zeros_shape)
                acc = zeros(real_shape, grad.dtype.base_dtype)
                self.outer.exit()
            else:
                if self.outer is not None:
                    self.outer.enter()
                acc = zeros(_shape_internal(value), grad.dtype.base_dtype)
                if self.outer is not None:
                    self.outer.exit()
        self.enter()
        self.values.add(acc)
        enter_acc = _enter(acc, self.name, is_constant=False, parallel_iterations=self.parallel_iterations,
                           name="b_acc")
        self.loop_enters.append(enter_acc)
        merge_acc = merge([enter_acc, enter_acc], name="b_acc")[0]
        switch_acc_false, switch_acc_true = switch(merge_acc, self.pivot)
        add_acc = math_ops.add(switch_acc_true, grad)
        next_acc = next_iteration(add_acc)
        merge_acc.op._update_input(1, next_acc)
        result_acc = exit(switch_acc_false, name="b_acc")
        self.loop_exits.append(result_acc)
        self.exit_result([result_acc])
        return result_acc


def add_backprop_indexed_slices_accumulator(ctxt, op, grad):
    """TF's ``AddBackpropIndexedSlicesAccumulator``: sums, over the iterations, an IndexedSlices
    gradient of a loop invariant (an embedding read in a loop) by concatenating each iteration's
    rows and indices, and keeping the largest dense shape: no dense buffer of the whole table."""
    values, indices, dense_shape = grad.values, grad.indices, grad.dense_shape
    ctxt.exit()
    if ctxt.outer is not None:
        ctxt.outer.enter()
    if values.shape.is_fully_defined():
        values_acc = constant(0, dtype=values.dtype.base_dtype, shape=[1] + list(values.shape.sizes[1:]),
                              name="b_acc")
    else:
        values_acc = zeros(array_ops.concat([[1], _shape_internal(op.inputs[0])[1:]], 0), values.dtype.base_dtype)
    indices_acc = constant([0], dtype=indices.dtype.base_dtype)
    shape_acc = None
    if dense_shape is not None:
        if dense_shape.shape.is_fully_defined():
            shape_acc = constant(0, dtype=dense_shape.dtype.base_dtype, shape=list(dense_shape.shape.sizes))
        else:
            shape_acc = array_ops.zeros_like(_shape_internal(op.inputs[0]))
    if ctxt.outer is not None:
        ctxt.outer.exit()
    ctxt.enter()
    init_acc = [indices_acc, values_acc] + ([shape_acc] if shape_acc is not None else [])
    for x in init_acc:
        ctxt.values.add(x)
    enter_acc = [_enter(x, ctxt.name, is_constant=False, parallel_iterations=ctxt.parallel_iterations, name="b_acc")
                 for x in init_acc]
    # TF makes these Enters without their input's shape: the accumulated rows grow each iteration
    enter_acc[0]._shape = TensorShape([None])
    enter_acc[1]._shape = TensorShape([None] + list(values_acc.shape.sizes[1:]))
    ctxt.loop_enters.extend(enter_acc)
    merge_acc = [merge([x, x], name="b_acc")[0] for x in enter_acc]
    switch_acc = [switch(x, ctxt.pivot) for x in merge_acc]
    acc = [array_ops.concat([xa[1], xv], 0) for xa, xv in zip(switch_acc[:2], [indices, values])]
    if shape_acc is not None:
        acc.append(math_ops.maximum(dense_shape, switch_acc[2][1]))
    next_acc = [next_iteration(x) for x in acc]
    for xm, xn in zip(merge_acc, next_acc):
        xm.op._update_input(1, xn)
    exit_acc = [exit(x[0], name="b_acc") for x in switch_acc]
    ctxt.loop_exits.extend(exit_acc)
    ctxt.exit_result(exit_acc)
    return IndexedSlices(exit_acc[1], exit_acc[0], exit_acc[2] if shape_acc is not None else None)


def _flow_of(value):
    """A TensorArray goes around a loop (or out of a cond) as its flow."""
    return value.flow if isinstance(value, TensorArray) else value


def _shape_internal(x):
    """``Shape`` of ``x`` as an op, never folded into a Const (TF's ``shape_internal(optimize=False)``)."""
    return apply_op("Shape", [x], {"out_type": dtypes.int32}, "Shape").outputs[0]


def _enforce_shape_invariant(merge_var, next_var):
    m_shape, n_shape = merge_var.shape, next_var.shape
    if not _shape_less_than_or_equal(n_shape, m_shape):
        input_t = merge_var.op.inputs[0].op.inputs[0]
        raise ValueError(f"Input tensor '{input_t.name}' enters the loop with shape {input_t.shape}, but has "
                         f"shape {n_shape} after one iteration. To allow the shape to vary across iterations, use "
                         f"the `shape_invariants` argument of tf.while_loop to specify a less-specific shape.")


def _shape_less_than_or_equal(a, b):
    if b.sizes is None:
        return True
    if a.sizes is None or len(a.sizes) != len(b.sizes):
        return False
    return all(y is None or x == y for x, y in zip(a.sizes, b.sizes))


# -- the user's API --------------------------------------------------------------------------------
def cond(pred, true_fn=None, false_fn=None, strict=False, name=None, fn1=None, fn2=None):
    """``true_fn()`` if ``pred`` else ``false_fn()``: only the branch taken runs."""
    true_fn, false_fn = true_fn or fn1, false_fn or fn2
    if true_fn is None:
        raise TypeError("cond(): true_fn argument required")
    if false_fn is None:
        raise TypeError("cond(): false_fn argument required")
    if not callable(true_fn):
        raise TypeError("true_fn must be callable.")
    if not callable(false_fn):
        raise TypeError("false_fn must be callable.")
    with name_scope(name, "cond", [pred]):
        if isinstance(pred, bool):
            raise TypeError("'pred' must not be a Python bool.")
        p_2, p_1 = switch(pred, pred)
        pivot_1 = identity(p_1, name="switch_t")
        pivot_2 = identity(p_2, name="switch_f")
        pred = identity(pred, name="pred_id")
        graph = pred.graph
        for t in (p_1, p_2, pivot_1, pivot_2, pred):
            graph._prevent_fetching(t.op)
        results = []
        for pivot, branch, fn in ((pivot_1, 1, true_fn), (pivot_2, 0, false_fn)):
            context = CondContext(pred, pivot, branch)
            context.enter()
            try:
                original, result = context.build_branch(fn)
                context.exit_result(nest.flatten(result, expand_composites=True))
            finally:
                context.exit()
            results.append((original, result))
        (orig_t, res_t), (orig_f, res_f) = results
        if not strict:
            orig_t, orig_f = _unpack_if_singleton(orig_t), _unpack_if_singleton(orig_f)
        try:
            _assert_same_composites(orig_t, orig_f)
            nest.assert_same_structure(orig_t, orig_f, expand_composites=True)
        except (TypeError, ValueError):
            # IndexedSlices whose indices differ in type (int32, int64) both take int64 ones
            nest.map_structure(_cast_indexed_slices_indices, orig_t, orig_f)
            nest.map_structure(_cast_indexed_slices_indices, res_t, res_f)
            try:
                _assert_same_composites(orig_t, orig_f)
                nest.assert_same_structure(orig_t, orig_f, expand_composites=True)
            except TypeError as e:
                raise TypeError(f"Incompatible return types of 'true_fn' and 'false_fn': {e}") from None
            except ValueError as e:
                raise ValueError(f"Incompatible return values of 'true_fn' and 'false_fn': {e}") from None
        res_t = nest.flatten(res_t, expand_composites=True)
        res_f = nest.flatten(res_f, expand_composites=True)
        for t, f in zip(res_t, res_f):
            if t.dtype.base_dtype != f.dtype.base_dtype:
                raise ValueError("Outputs of 'true_fn' and 'false_fn' must have the same type(s). Received "
                                 f"{t.dtype.base_dtype.name} from 'true_fn' and {f.dtype.base_dtype.name} from "
                                 "'false_fn'.")
        merges = [merge([f, t])[0] for f, t in zip(res_f, res_t)]
        packed = _pack(orig_t, merges)
        if not strict and isinstance(packed, (list, tuple)) and len(packed) == 1:
            return packed[0]
        return packed


def _unpack_if_singleton(res):
    return res[0] if isinstance(res, (list, tuple)) and len(res) == 1 else res


def _assert_same_composites(a, b):
    """TF compares composites by type spec: IndexedSlices whose indices differ in dtype differ."""
    for x, y in zip(nest.flatten(a), nest.flatten(b)):
        if isinstance(x, IndexedSlices) and isinstance(y, IndexedSlices) and \
                x.indices.dtype.base_dtype != y.indices.dtype.base_dtype:
            raise TypeError(f"{x} and {y} have different types")


def _cast_indexed_slices_indices(a, b):
    """TF's ``_cast_indexed_slice_indices``: two IndexedSlices whose indices differ in dtype both
    get int64 indices (in place)."""
    if isinstance(a, IndexedSlices) and isinstance(b, IndexedSlices) and \
            a.indices.dtype.base_dtype != b.indices.dtype.base_dtype:
        a._indices = math_ops.cast(a.indices, dtypes.int64)
        b._indices = math_ops.cast(b.indices, dtypes.int64)


def while_loop(cond, body, loop_vars, shape_invariants=None, parallel_iterations=10, back_prop=True,
               swap_memory=False, name=None, maximum_iterations=None, return_same_structure=False):
    """Repeats ``body`` while ``cond`` holds, starting from ``loop_vars``."""
    with name_scope(name, "while", _flatten(loop_vars)):
        if not loop_vars:
            raise ValueError("No loop variables provided")
        if not callable(cond):
            raise TypeError("cond must be callable.")
        if not callable(body):
            raise TypeError("body must be callable.")
        if parallel_iterations < 1:
            raise TypeError("parallel_iterations must be a positive integer.")
        try_to_pack = len(loop_vars) == 1 and not return_same_structure
        limit = None
        if maximum_iterations is not None:
            limit = convert_to_tensor(maximum_iterations, name="maximum_iterations")
            if limit.shape.ndims != 0:
                raise ValueError(f"maximum_iterations must be a scalar, saw shape: {limit.shape}")
            counter = constant(0, dtype=limit.dtype, name="iteration_counter")
            orig_cond, orig_body = cond, body
            if try_to_pack:
                loop_vars = (counter, loop_vars[0])
                cond = lambda i, lv: math_ops.logical_and(i < limit, orig_cond(lv))  # noqa: E731
                body = lambda i, lv: (i + 1, orig_body(lv))  # noqa: E731
            else:
                loop_vars = (counter, loop_vars)
                cond = lambda i, lv: math_ops.logical_and(i < limit, orig_cond(*lv))  # noqa: E731
                body = lambda i, lv: (i + 1, orig_body(*lv))  # noqa: E731
            if shape_invariants is not None:
                shape_invariants = (TensorShape([]), shape_invariants)
            try_to_pack = False
        context = WhileContext(limit, parallel_iterations, back_prop, swap_memory)
        original, exits = context.build_loop(cond, body, loop_vars, shape_invariants)
        packed = _pack(original, exits)
        if maximum_iterations is not None:
            return packed[1]
        if return_same_structure:
            return packed
        return packed[0] if len(exits) == 1 else packed


# -- nested structures of tensors (lists, tuples, dicts), as TF's nest handles them --------------
def _flatten(structure):
    """The leaves of ``structure``, each composite's components among them (a TensorArray is a leaf)."""
    return nest.flatten(structure, expand_composites=True)


def _pack(structure, flat):
    return nest.pack_sequence_as(structure, flat, expand_composites=True)


def _component_invariants(loop_vars, shape_invariants):
    """One shape invariant per component of the loop variables (None: the variable's own shape).
    A SparseTensor's invariant is its dense shape's shape, [rank]: its components are
    ([None, rank], [None], [rank]), and so they are by default; an IndexedSlices' is its values'
    shape, its indices' the first dim of it (TF's ``_shape_invariant_to_type_spec``)."""
    if shape_invariants is None:
        return [shape for var in nest.flatten(loop_vars) for shape in _invariants_of(var, None)]
    nest.assert_same_structure(loop_vars, shape_invariants, expand_composites=False)
    return [shape for var, inv in zip(nest.flatten(loop_vars), nest.flatten(shape_invariants))
            for shape in _invariants_of(var, inv)]


def _invariants_of(var, shape):
    if isinstance(var, SparseTensor):
        if shape is None:
            rank = var.dense_shape.shape.sizes[0] if var.dense_shape.shape.sizes else None
        else:
            shape = as_shape(shape)
            if shape.sizes is not None and len(shape.sizes) != 1:
                raise ValueError(f"Expected a shape with 1 dimension. Obtained: {shape} which has "
                                 f"{len(shape.sizes)} dimensions.")
            rank = None if shape.sizes is None else shape.sizes[0]
        return [TensorShape([None, rank]), TensorShape([None]), TensorShape([rank])]
    if isinstance(var, IndexedSlices):
        if shape is None:
            return [None] * len(nest.components(var))
        shape = as_shape(shape)
        rank = None if shape.sizes is None else len(shape.sizes)
        shapes = [shape, TensorShape(None if shape.sizes is None else shape.sizes[:1])]
        return shapes + ([TensorShape([rank])] if var.dense_shape is not None else [])
    return [None if shape is None else as_shape(shape)]
