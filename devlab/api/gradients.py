"""``tf.gradients``: reverse-mode differentiation of the graph, by building more graph.

Follows TensorFlow's ``_GradientsHelper``. The ops between ``xs`` and ``ys`` are visited from
the ys backwards through a FIFO queue: an op is ready once every consumer on the way to the
ys has handed it its gradients, and ready ops are queued in the order of their consumer's
inputs (for ``z = wx + wy``, MatMul's gradient is built before MatMul_1's). For each op the
gradients arriving at its outputs are summed (``AddN``, one per device, each colocated with
its first gradient, then one across devices) and its rule from ``grad_table`` is applied in
the name scope ``gradients/<op>_grad``. With ``colocate_gradients_with_ops=True`` all of this
is built under ``colocate_with(op)``, so a gradient runs where its forward op runs: no copies
back and forth between devices. The xs themselves are visited too, but not differentiated:
their gradients are summed there, under ``colocate_with(x's op)``.
"""
import collections
import contextlib
import enum

from ..framework import dtypes
from ..framework.indexed_slices import IndexedSlices
from ..framework.graph import get_default_graph
from ..framework.tensor import Tensor
from ..unimplemented import argument
from ..framework.scopes import colocate_with, device, name_scope
from .array_ops import concat, constant, identity, zeros_like
from .array_ops import shape as shape_of
from ..ops.build import apply_op_output, convert_to_tensor
from .control_flow_ops import tuple_
from .control_flow_state import maybe_create_control_flow_state, zeros_like_output
from .control_flow_util import is_loop_exit, is_loop_switch
from .grad_table import NOT_DIFFERENTIABLE, gradient_function, gradient_op_type
from .math_ops import add_n


class AggregationMethod:
    """How the gradients reaching one tensor are added up (TF's constants). devlab builds ADD_N, the
    default: one AddN; the experimental tree and accumulate methods build other graphs."""
    ADD_N = 0
    DEFAULT = ADD_N
    EXPERIMENTAL_TREE = 1
    EXPERIMENTAL_ACCUMULATE_N = 2


def check_aggregation_method(aggregation_method):
    """None, ADD_N or an experimental one (pairwise sums); TF's ValueError for an unknown method."""
    if aggregation_method is None or aggregation_method == AggregationMethod.ADD_N:
        return
    if aggregation_method not in (AggregationMethod.EXPERIMENTAL_TREE, AggregationMethod.EXPERIMENTAL_ACCUMULATE_N):
        raise ValueError(f"Invalid aggregation_method specified {aggregation_method}.")


def _is_resource_variable(x):
    return hasattr(x, "handle") and hasattr(x, "_graph_element") and getattr(x.handle, "dtype", None) == dtypes.resource


class UnconnectedGradients(enum.Enum):
    """``tf.UnconnectedGradients``: the gradient of an x the ys do not depend on: None, or zeros."""
    NONE = "none"
    ZERO = "zero"


def gradients(ys, xs, grad_ys=None, name="gradients", colocate_gradients_with_ops=False,
              gate_gradients=False, aggregation_method=None, stop_gradients=None,
              unconnected_gradients=UnconnectedGradients.NONE):
    """d(sum of ys)/d(x) for each x in xs (None, or zeros with ``unconnected_gradients="zero"``,
    where an x does not affect ys)."""
    return _GradientsHelper(ys, xs, grad_ys, name, colocate_gradients_with_ops, gate_gradients, aggregation_method,
                            stop_gradients, unconnected_gradients)


def _GradientsHelper(ys, xs, grad_ys=None, name="gradients", colocate_gradients_with_ops=False,  # noqa: N802
                     gate_gradients=False, aggregation_method=None, stop_gradients=None,
                     unconnected_gradients=UnconnectedGradients.NONE, src_graph=None, optimize_identity_n=False):
    """``gradients``, as TF's helper of that name: ``optimize_identity_n`` passes an IdentityN's
    missing output gradients on as None (no zeros), so an output the ys do not use gives its
    input no gradient. ``src_graph`` (the graph of a function's body) only as the default graph.
    A call that fails (a second-order gradient of a while loop) leaves the graph in the
    control-flow context it found, so later ops are built as before."""
    if src_graph is not None and src_graph is not get_default_graph():
        raise argument("src_graph", "gradients_util._GradientsHelper (a graph other than the default)")
    graph = get_default_graph()
    context = graph._get_control_flow_context()
    try:
        return _gradients(ys, xs, grad_ys, name, colocate_gradients_with_ops, gate_gradients, aggregation_method,
                          stop_gradients, unconnected_gradients, optimize_identity_n)
    finally:
        graph._set_control_flow_context(context)


def _gradients(ys, xs, grad_ys, name, colocate_gradients_with_ops, gate_gradients, aggregation_method,
               stop_gradients, unconnected_gradients, optimize_identity_n):
    check_aggregation_method(aggregation_method)
    try:
        unconnected_gradients = UnconnectedGradients(unconnected_gradients)
    except ValueError:
        raise ValueError(f"Unknown value for unconnected_gradients: {unconnected_gradients!r}") from None
    ys = [convert_to_tensor(y) for y in _as_list(ys)]
    # a variable's own output, as TF; a resource variable's handle (its reads pass the gradient to it)
    xs = [x.handle if _is_resource_variable(x) else convert_to_tensor(x, as_ref=True) for x in _as_list(xs)]
    grad_ys = _as_list(grad_ys) if grad_ys is not None else [None] * len(ys)
    stop_gradient_ops = [convert_to_tensor(s).op for s in _as_list(stop_gradients or [])]

    def maybe_colocate(op):
        return colocate_with(op) if colocate_gradients_with_ops else contextlib.nullcontext()

    with name_scope(name, "gradients", ys + xs):
        # TF's _DefaultGradYs: given grad_ys become tensors (grad_y_i), then an Identity each
        # (grad_ys_i); missing ones are ones shaped like y. Each beside its y when colocating.
        grad_ys = [gy if gy is None or isinstance(gy, IndexedSlices) else convert_to_tensor(gy, name=f"grad_y_{i}")
                   for i, gy in enumerate(grad_ys)]
        for i, (y, gy) in enumerate(zip(ys, grad_ys)):
            with maybe_colocate(y.op):
                if gy is None:
                    if y.dtype.is_complex:  # TF's rule: the seed of a complex gradient is the user's choice
                        raise TypeError(f"Gradients of complex tensors ({y}) must set grad_ys "
                                        f"(y.dtype = {y.dtype.base_dtype.name})")
                    grad_ys[i] = _ones_like_y(y, f"grad_ys_{i}")
                elif isinstance(gy, IndexedSlices):  # each tensor part through its own Identity, as TF does
                    indices, values, shape = (identity(t, name=f"grad_ys_{i}_{part}") if isinstance(t, Tensor) else t
                                              for t, part in ((gy.indices, "indices"), (gy.values, "values"),
                                                              (gy.dense_shape, "shape")))
                    grad_ys[i] = IndexedSlices(values, indices, shape)
                else:
                    grad_ys[i] = identity(gy, name=f"grad_ys_{i}")
        to_ops, from_ops = [y.op for y in ys], [x.op for x in xs]
        reachable_to_ops, pending_count, loop_state = _pending_count(to_ops, from_ops, colocate_gradients_with_ops)
        grads = {}  # op -> one list of gradients per output
        for y, gy in zip(ys, grad_ys):
            _set_grad(grads, y, gy)
        queue, to_ops_set = collections.deque(), set()
        for op in to_ops:
            if pending_count[op] == 0 and op not in to_ops_set and op in reachable_to_ops:
                to_ops_set.add(op)
                queue.append(op)
        if loop_state is not None:
            # Loop outputs no y depends on still need a gradient loop (zeros, if any exit has one).
            for y in loop_state.process_unused_loop_exits(pending_count, to_ops_set):
                if _backpropagatable(y):
                    _set_grad(grads, y, loop_state.zeros_like_for_exit(y))
                    queue.append(y.op)
        stop_ops = _stop_ops(from_ops, stop_gradient_ops, pending_count)
        while queue:
            op = queue.popleft()
            with maybe_colocate(op):
                if loop_state is not None:
                    loop_state.enter_grad_while_context(op, before=True)
                out_grads = _aggregated_grads(grads, op, aggregation_method)
                if loop_state is not None:
                    loop_state.exit_grad_while_context(op, before=True)
                has_out_grads = any(g is not None for g in out_grads)
                grad_fn = None
                grad_type = gradient_op_type(op)
                if has_out_grads and op not in stop_ops and grad_type not in NOT_DIFFERENTIABLE:
                    grad_fn = gradient_function(grad_type)
                    if grad_fn is None:
                        raise LookupError(f"No gradient defined for operation '{op.name}' (op type: {grad_type})")
                if loop_state is not None:
                    loop_state.enter_grad_while_context(op, before=False)
                if (op.type in ("Switch", "RefSwitch") and op.control_flow_context is not None
                        and op.control_flow_context.is_while
                        and op.control_flow_context is op.graph._get_control_flow_context()):
                    _raise_no_grad_wrt_initial_loop_val(op, from_ops)
                if grad_fn is not None:
                    # An output the ys do not depend on has gradient zero: TF makes it here, in
                    # the gradients scope, for every floating output (its rule may ignore it).
                    for i, (t, g) in enumerate(zip(op.outputs, out_grads)):
                        if g is None and _backpropagatable(t) and not (optimize_identity_n and op.type == "IdentityN") \
                                and (loop_state is None
                                                                   or t.dtype.base_dtype != dtypes.resource):
                            out_grads[i] = (loop_state.zeros_like_v1_while_loop(op, i) if loop_state is not None
                                            else zeros_like_output(op, i))
                    with name_scope(op.name + "_grad"), op.graph._original_op(op):
                        in_grads = list(grad_fn(op, *out_grads))
                        if gate_gradients and sum(g is not None for g in in_grads) > 1:
                            # GATE_OP: no gradient of this op is used before all of them are computed
                            with device(None), colocate_with(None, ignore_existing=True):
                                in_grads = tuple_(in_grads)
                else:
                    in_grads = [None] * len(op.inputs)
                for i, (t_in, in_grad) in enumerate(zip(op.inputs, in_grads)):
                    if in_grad is not None:
                        if t_in.dtype.base_dtype != dtypes.resource and not isinstance(in_grad, IndexedSlices):
                            _set_shape_of_input(op, i, t_in, in_grad)
                        _set_grad(grads, t_in, in_grad)
                if loop_state is not None:
                    loop_state.exit_grad_while_context(op, before=False)
            _update_pending_and_enqueue_ready(grads, op, queue, pending_count, loop_state)
        if loop_state is not None:
            loop_state.post_processing()
        found = [_get_grad(grads, x) for x in xs]
    if unconnected_gradients is UnconnectedGradients.ZERO:  # TF makes these zeros outside the gradients scope
        found = [zeros_like(x) if g is None else g for x, g in zip(xs, found)]
    return found


def _set_shape_of_input(op, i, t_in, in_grad):
    """A gradient has its input's static shape (TF sets it, and says so when they differ)."""
    try:
        in_grad.set_shape(t_in.shape)
    except ValueError:
        raise ValueError(f"Incompatible shapes between op input and calculated input gradient. Forward operation: "
                         f"{op.name}. Input index: {i}. Original input shape: {t_in.shape}. Calculated input "
                         f"gradient shape: {in_grad.shape}") from None


def _ones_like_y(y, name):
    """TF's default ``grad_ys``: ones shaped like y (a Shape Const and a Fill when y's shape is static)."""
    if not y.shape.is_fully_defined():  # TF's: ones(shape(y)), the Shape op outside the grad_ys scope
        shape = shape_of(y, name="Shape")
        with name_scope(name) as scope:
            one = constant(1, dtype=y.dtype.base_dtype, name="Const")
            return apply_op_output("Fill", [shape, one], None, scope)
    shape = constant(list(y.shape.sizes), dtype=dtypes.int32, name="Shape")
    with name_scope(name) as scope:
        one = constant(1, dtype=y.dtype.base_dtype, name="Const")
        return apply_op_output("Fill", [shape, one], {"shape": tuple(y.shape.sizes)}, scope)


def _as_list(x):
    return list(x) if isinstance(x, (list, tuple)) else [x]


_COMPLEX_RULES = frozenset({
    "Identity", "Reshape", "Transpose", "ExpandDims", "Squeeze", "Pack", "Unpack", "ConcatV2", "Tile", "GatherV2",
    "StridedSlice", "Slice", "Split", "SplitV", "AddV2", "Sub", "Neg", "AddN", "Sum", "Mean", "Cumsum", "Cumprod", "Mul", "Prod",
    "ComplexAbs", "Conj", "Real", "Imag"})


def _backpropagatable(t):
    """Whether a gradient can flow through ``t`` (TF's ``IsTrainable``: floating and complex dtypes,
    and resource handles, whose reads pass their gradient on to the variable's handle)."""
    return t.dtype.base_dtype.is_floating or t.dtype.base_dtype.is_complex or t.dtype.base_dtype == dtypes.resource


def _pending_count(to_ops, from_ops, colocate_gradients_with_ops=False):
    """The ys' ops reachable from the xs, for each op between xs and ys how many of its
    consumers between them still have to hand it a gradient (TF's ``_PendingCount``), and the
    state of the while loops between them (None when there is none)."""
    consumers = {}
    for op in to_ops[0].graph.get_operations():
        for t in op.inputs:
            consumers.setdefault(t, []).append(op)
    reached, queue = set(), collections.deque(from_ops)
    while queue:
        op = queue.popleft()
        if op not in reached:
            reached.add(op)
            for t in op.outputs:
                if _backpropagatable(t) or t.dtype.base_dtype.is_complex:
                    queue.extend(consumers.get(t, ()))
    reachable_to_ops = {op for op in to_ops if op in reached}
    between, between_list, queue = set(), [], collections.deque(to_ops)
    while queue:
        op = queue.popleft()
        if op in reached:
            between.add(op)
            between_list.append(op)
            reached.discard(op)
            queue.extend(t.op for t in op.inputs)
    for op in between_list:  # TF differentiates complex values (conjugates in its rules): devlab only where
        for t in op.inputs:  # its rule is written for them (linear ones, and those that conjugate)
            if t.dtype.base_dtype.is_complex and t.op in between and op.type not in _COMPLEX_RULES:
                raise NotImplementedError(
                    f"tf.gradients through the complex tensor '{t.name}' ({t.dtype.base_dtype.name}): "
                    "devlab differentiates real floating values only")
    loop_state = maybe_create_control_flow_state(between_list, between, colocate_gradients_with_ops)
    pending_count = collections.defaultdict(int)
    for op in between_list:
        for t in op.inputs:
            if t.op in between:
                pending_count[t.op] += 1
    return reachable_to_ops, pending_count, loop_state


def _stop_ops(from_ops, stop_gradient_ops, pending_count):
    """Ops not differentiated: the xs' ops that no other x leads to, and ``stop_gradients``."""
    stop_ops = {op for op in from_ops if all(pending_count[t.op] == 0 for t in op.inputs)}
    return stop_ops | set(stop_gradient_ops)


def _set_grad(grads, t, grad):
    op_grads = grads.setdefault(t.op, [[] for _ in t.op.outputs])
    if isinstance(op_grads[t.value_index], list):
        op_grads[t.value_index].append(grad)
    else:  # a loop Switch visited a second time: its gradient was already summed
        op_grads[t.value_index] = grad


def _get_grad(grads, t):
    op_grads = grads.get(t.op)
    return op_grads[t.value_index] if op_grads else None


def _aggregated_grads(grads, op, aggregation_method=None):
    """The gradient of each output of ``op``: the sum of those its consumers handed it (kept, so a
    loop Switch visited twice finds it summed). The experimental methods add them pairwise, an
    AddN of two at a time in ``<op>_gradient_sum`` (TF's "tree")."""
    op_grads = grads.get(op, [[] for _ in op.outputs])
    for i, out_grad in enumerate(op_grads):
        if isinstance(out_grad, list):
            if not out_grad:
                op_grads[i] = None
            elif (len(out_grad) > 1 and aggregation_method not in (None, AggregationMethod.ADD_N)
                  and all(isinstance(g, Tensor) for g in out_grad)):
                with name_scope(op.name + "_gradient_sum"):
                    running_sum = out_grad[0]
                    for g in out_grad[1:]:
                        running_sum = add_n([running_sum, g])
                op_grads[i] = running_sum
            elif len(out_grad) == 1 or not any(isinstance(g, IndexedSlices) for g in out_grad):
                op_grads[i] = _multi_device_add_n(out_grad)
            else:
                op_grads[i] = _aggregate_indexed_slices(out_grad)
    if op in grads:
        grads[op] = op_grads
    return list(op_grads)


def _has_any_not_none_grads(grads, op):
    """Whether any output of ``op`` has received a gradient."""
    return any(bool(g) if isinstance(g, list) else g is not None for g in grads.get(op, ()))


def _update_pending_and_enqueue_ready(grads, op, queue, pending_count, loop_state):
    """Counts ``op``'s gradient as handed to each of its inputs' ops, queueing those now ready. A
    loop Switch is ready at its first visit too; a loop's Exits wait for each other, and those
    without a gradient get zeros when another Exit of their loop has one (TF's rule)."""
    for x in op.inputs:
        pending_count[x.op] -= 1
        ready = pending_count[x.op] == 0
        if loop_state is not None and not ready:
            ready = pending_count[x.op] > 0 and is_loop_switch(x.op)
        if not ready:
            continue
        if not is_loop_exit(x.op):
            queue.append(x.op)
            continue
        grad_state = loop_state.get_grad_state(x.op, before=False)
        grad_state.deferred_exits.append(x)
        grad_state.pending_exits_count -= 1
        if grad_state.pending_exits_count == 0:
            has_not_none_grad = False
            for y in grad_state.deferred_exits:
                if _has_any_not_none_grads(grads, y.op):
                    has_not_none_grad = True
                    queue.append(y.op)
                else:
                    grad_state.unused_exits.append(y)
            for y in grad_state.unused_exits:
                if has_not_none_grad and _backpropagatable(y):
                    _set_grad(grads, y, loop_state.zeros_like_for_exit(y))
                queue.append(y.op)


def _raise_no_grad_wrt_initial_loop_val(op, from_ops):
    """TF's error for a gradient taken inside a loop with respect to a loop variable's initial value."""
    target, queue, visited = None, collections.deque([op]), set()
    while queue:
        cur = queue.popleft()
        if cur in visited:
            continue
        visited.add(cur)
        if cur in from_ops:
            target = cur
            break
        queue.extend(t.op for t in cur.inputs)
    raise ValueError(f"Cannot compute gradient inside while loop with respect to op '{target.name}'. We do not "
                     f"support taking the gradient wrt or through the initial value of a loop variable. Gradients "
                     f"can be computed through loop invariants or wrt the input parameters to the loop body.")


def _aggregate_indexed_slices(grads):
    """The sum of gradients of which some are IndexedSlices (TF's AggregateIndexedSlicesGradients):
    dense if any is dense (one AddN, which makes the slices dense), else one IndexedSlices of
    all the rows: values and indices concatenated (rows listed twice add up where applied)."""
    if any(isinstance(g, Tensor) for g in grads):
        return add_n(grads)
    return IndexedSlices(concat([g.values for g in grads], 0), concat([g.indices for g in grads], 0),
                         grads[0].dense_shape)


def _multi_device_add_n(tensors):
    """Sums the gradients reaching one tensor: one AddN per requested device, colocated with
    its first gradient, then one AddN of those sums (TF's ``_MultiDeviceAddN``)."""
    if len(tensors) == 1:
        return tensors[0]
    by_device = collections.defaultdict(list)
    for g in tensors:
        by_device[g.device].append(g)
    sums = []
    for requested in sorted(by_device):
        group = by_device[requested]
        with colocate_with(group[0].op, ignore_existing=True):
            sums.append(group[0] if len(group) == 1 else add_n(group))
    return sums[0] if len(sums) == 1 else add_n(sums)
