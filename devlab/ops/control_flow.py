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
``ControlFlowContext.AddOp`` does; the runtime gives DEAD values and frames their meaning.
"""
from ..framework.graph import get_default_graph
from ..framework.scopes import colocate_with, control_dependencies, name_scope
from ..framework.tensor import Tensor
from ..framework.tensor_shape import TensorShape, as_shape
from . import math_ops
from .array_ops import constant, identity
from .build import apply_op, convert_to_tensor


# -- the primitive ops ---------------------------------------------------------------------------
def switch(data, pred, name=None):
    """(output_false, output_true): ``data`` comes out on the side ``pred`` selects."""
    with name_scope(name, "Switch", [data, pred]) as scope:
        data = convert_to_tensor(data, name="data", as_ref=True)
        pred = convert_to_tensor(pred, name="pred")
        op_type = "RefSwitch" if data.dtype.is_ref else "Switch"
        return tuple(apply_op(op_type, [data, pred], None, scope).outputs)


def merge(inputs, name=None):
    """(the first input that is alive, its index)."""
    with name_scope(name, "Merge", inputs) as scope:
        inputs = [convert_to_tensor(x) for x in inputs]
        return tuple(apply_op("Merge", inputs, {"N": len(inputs)}, scope).outputs)


def _switch_ref_or_tensor(data, pred, name="Switch"):
    """A Switch colocated with its data (whatever device scopes are open)."""
    data = convert_to_tensor(data, name="data", as_ref=True)
    with colocate_with(data, ignore_existing=True):
        return switch(data, pred, name=name)


def _enter(data, frame_name, is_constant=False, parallel_iterations=10, name=None):
    data = convert_to_tensor(data, as_ref=True)
    attrs = {"frame_name": frame_name, "is_constant": is_constant, "parallel_iterations": parallel_iterations}
    op_type = "RefEnter" if data.dtype.is_ref else "Enter"
    return apply_op(op_type, [data], attrs, name or "Enter").outputs[0]


def _unary(op_type, data, name):
    return apply_op(op_type, [convert_to_tensor(data)], None, name or op_type).outputs[0]


def loop_cond(pred, name=None):
    return _unary("LoopCond", pred, name)


def exit(data, name=None):  # noqa: A001 - TF's name
    return _unary("Exit", data, name)


def next_iteration(data, name=None):
    return _unary("NextIteration", data, name)


# -- contexts --------------------------------------------------------------------------------------
class ControlFlowContext:
    """A branch or loop being built: the tensors known inside it and what outer ones became."""

    def __init__(self):
        self.graph = get_default_graph()
        self.outer = self.graph._get_control_flow_context()
        self.values = set()  # tensors that live in this context
        self.external = {}  # an outer tensor -> the Switch or Enter output that stands for it

    def enter(self):
        self.graph._set_control_flow_context(self)

    def exit(self):
        self.graph._set_control_flow_context(self.outer)

    def while_context(self):
        """The innermost while loop this context is in (itself, if it is one), or None."""
        ctx = self
        while ctx is not None and not isinstance(ctx, WhileContext):
            ctx = ctx.outer
        return ctx

    def outer_value(self, value):
        """``value`` as the enclosing context sees it; ops that makes are built in that context."""
        if self.outer is None:
            return value
        self.graph._set_control_flow_context(self.outer)
        try:
            return self.outer.add_value(value)
        finally:
            self.graph._set_control_flow_context(self)

    def exit_result(self, tensors):
        """Makes ``tensors`` (the context's outputs) known to the enclosing context."""
        if self.outer is not None:
            self.outer.values.update(tensors)

    def _inside(self, op):
        """Whether ``op`` was built in this context or one inside it."""
        ctx = op.control_flow_context
        while ctx is not None:
            if ctx is self:
                return True
            ctx = ctx.outer
        return False

    def _prevent_fetching(self, op):
        op.graph._prevent_fetching(op)


class CondContext(ControlFlowContext):
    def __init__(self, pred, pivot, branch):
        super().__init__()
        self.pred, self.pivot, self.branch = pred, pivot, branch
        self.values.update([pred, pivot])

    def add_value(self, value):
        """The tensor that stands for ``value`` inside this branch (a Switch of it, if outer)."""
        if value in self.values:
            return self.external.get(value, value)
        self.values.add(value)
        result = self.outer_value(value)
        self.values.add(result)  # known here, so the Switch made next does not switch it again
        with control_dependencies(None):
            result = _switch_ref_or_tensor(result, self.pred)[self.branch]
        result.op.control_flow_context = self
        self.values.add(result)
        self.external[value] = result
        return result

    def add_op(self, op):
        if not op.inputs:
            op._add_control_input(self.pivot.op)  # an op without inputs runs only on this branch
        else:
            for i, x in enumerate(op.inputs):
                real = self.add_value(x)
                if real is not x:
                    op._update_input(i, real)
        self.values.update(op.outputs)
        self._prevent_fetching(op)

    def build_branch(self, fn):
        """Calls ``fn`` inside the branch; returns (its results, the tensors leaving the branch)."""
        original = fn()
        if original is None:
            raise ValueError("true_fn and false_fn must have a return value.")
        return original, [self._output(v) for v in _flatten(original)]

    def _output(self, v):
        if not isinstance(v, Tensor) and hasattr(v, "type") and hasattr(v, "graph"):  # an Operation
            from .control_flow_ops import with_dependencies
            return with_dependencies([v], self.pivot)
        v = convert_to_tensor(v)
        if v not in self.values:  # ``lambda: x``: the branch returns an outer tensor as it is
            self.values.add(v)
            real = self.outer_value(v)
            self.values.add(real)
            real = _switch_ref_or_tensor(real, self.pred)[self.branch]
            self.external[v] = real
            return real
        return self.external.get(v, v)


class WhileContext(ControlFlowContext):
    def __init__(self, parallel_iterations=10, maximum_iterations=None):
        super().__init__()
        self.name = self.graph.unique_name("while_context")  # the frame's name, e.g. while/while_context
        self.parallel_iterations = parallel_iterations
        self.maximum_iterations = maximum_iterations
        self.pivot_for_pred = self.pivot_for_body = self.pivot = None

    def control_pivot(self):
        return self.pivot_for_body if self.pivot_for_body is not None else self.pivot_for_pred

    def add_value(self, value):
        """The tensor that stands for ``value`` inside the loop (an Enter of it, if outer)."""
        if value in self.values or self._inside(value.op):
            return self.external.get(value, value)
        self.values.add(value)
        result = self.outer_value(value)
        self.values.add(result)  # known here, so the Enter made next does not enter it again
        with control_dependencies(None):
            enter = _enter(result, self.name, is_constant=True, parallel_iterations=self.parallel_iterations)
        enter.op.control_flow_context = self
        self.values.add(enter)
        self.external[value] = enter
        return enter

    def add_op(self, op):
        if not op.inputs:
            if not op.control_inputs:  # TF: an op with no inputs runs once per iteration
                op._add_control_input(self.control_pivot().op)
        else:
            for i, x in enumerate(op.inputs):
                real = self.add_value(x)
                if real is not x:
                    op._update_input(i, real)
            if not op.control_inputs and all(_is_loop_constant_enter(x.op) for x in op.inputs):
                op._add_control_input(self.control_pivot().op)  # only reads loop invariants
        self.values.update(op.outputs)
        if self.outer is not None or op.type != "Exit":
            self._prevent_fetching(op)

    def build_loop(self, cond, body, loop_vars, shape_invariants):
        flat = [convert_to_tensor(v) for v in _flatten(loop_vars)]
        self.values.update(flat)
        self.enter()
        try:
            with control_dependencies(None):
                enters = [_enter(x, self.name, is_constant=False, parallel_iterations=self.parallel_iterations)
                          for x in flat]
            for x in enters:
                x.graph._prevent_feeding(x)
            if shape_invariants is not None:
                for x, enter, shape in zip(flat, enters, _flatten(shape_invariants)):
                    shape = as_shape(shape)
                    if not shape.is_compatible_with(x.shape):
                        raise ValueError(f"The shape invariant specified for {x.name} is not compatible with the "
                                         f"initial shape of the loop variable. It enters the loop with shape "
                                         f"{x.shape}, but the specified shape invariant is {shape}.")
                    enter._shape = TensorShape(shape)
            self.values = set(enters)
            merges = [merge([x, x])[0] for x in enters]
            for m, x in zip(merges, enters):
                m._shape = x.shape  # the Merge's shape is the loop variable's invariant shape
            self.pivot_for_pred = merges[0]
            c = convert_to_tensor(cond(*_pack(loop_vars, merges)))
            self.pivot = loop_cond(c, name="LoopCond")
            switches = [_switch_ref_or_tensor(m, self.pivot) for m in merges]
            body_vars = [identity(s[1]) for s in switches]
            self.pivot_for_body = body_vars[0]
            result = body(*_pack(loop_vars, body_vars))
            original = result if isinstance(result, (list, tuple)) else [result]
            result = [convert_to_tensor(v) for v in _flatten(original)]
            if len(result) != len(merges):
                raise ValueError(f"Number of inputs and outputs of body must match loop_vars: "
                                 f"{len(merges)}, {len(result)}")
            for m, v in zip(merges, result):
                nxt = next_iteration(v)
                _enforce_shape_invariant(m, nxt)
                m.op._update_input(1, nxt)
            exits = [exit(s[0]) for s in switches]
            self.exit_result(exits)
        finally:
            self.exit()
        return original, exits


def _is_loop_constant_enter(op):
    return op.type in ("Enter", "RefEnter") and op.get_attr("is_constant")


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
                original, flat = context.build_branch(fn)
                context.exit_result(flat)
            finally:
                context.exit()
            results.append((original, flat))
        (orig_t, res_t), (orig_f, res_f) = results
        if len(res_t) != len(res_f):
            raise ValueError("true_fn and false_fn must return the same number of values: "
                             f"{len(res_t)} and {len(res_f)}")
        for t, f in zip(res_t, res_f):
            if t.dtype.base_dtype != f.dtype.base_dtype:
                raise ValueError(f"Outputs of true_fn and false_fn must have the same type: "
                                 f"{t.dtype.base_dtype.name}, {f.dtype.base_dtype.name}")
        merges = [merge([f, t])[0] for f, t in zip(res_f, res_t)]
        packed = _pack(orig_t, merges)
        if not strict and isinstance(packed, (list, tuple)) and len(packed) == 1:
            return packed[0]
        return packed


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
            try_to_pack = False
        context = WhileContext(parallel_iterations, maximum_iterations)
        original, exits = context.build_loop(cond, body, loop_vars, shape_invariants)
        packed = _pack(original, exits)
        if maximum_iterations is not None:
            return packed[1]
        if return_same_structure:
            return packed
        return packed[0] if len(exits) == 1 else packed


# -- nested structures of tensors (lists, tuples, dicts), as TF's nest handles them --------------
def _flatten(structure):
    if isinstance(structure, dict):
        return [leaf for k in sorted(structure) for leaf in _flatten(structure[k])]
    if isinstance(structure, (list, tuple)):
        return [leaf for item in structure for leaf in _flatten(item)]
    return [structure]


def _pack(structure, flat):
    it = iter(flat)

    def build(s):
        if isinstance(s, dict):
            return type(s)((k, build(s[k])) for k in sorted(s))
        if isinstance(s, tuple) and hasattr(s, "_fields"):
            return type(s)(*[build(x) for x in s])
        if isinstance(s, (list, tuple)):
            return type(s)(build(x) for x in s)
        return next(it)

    return build(structure)
