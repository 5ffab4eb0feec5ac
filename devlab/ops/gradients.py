"""``tf.gradients``: reverse-mode differentiation of the graph, by building more graph.

Walks the ops between ``xs`` and ``ys`` newest first; for each, sums the gradients arriving at
its outputs (``AddN``, one per device, as TF does) and applies its rule from ``grad_table``
inside the name scope ``gradients/<op>_grad``. With ``colocate_gradients_with_ops=True`` each
rule's ops are built under ``colocate_with(op)``, so a gradient runs where its forward op runs:
no copies back and forth between devices.
"""
import contextlib

from ..framework import dtypes
from ..framework.scopes import colocate_with, device, name_scope
from .array_ops import constant, ones_like
from .build import apply_op_output, convert_to_tensor
from .control_flow_ops import tuple_
from .grad_table import GRADIENTS, NOT_DIFFERENTIABLE
from .math_ops import add_n


def gradients(ys, xs, grad_ys=None, name="gradients", colocate_gradients_with_ops=False,
              gate_gradients=False, aggregation_method=None, stop_gradients=None):
    """d(sum of ys)/d(x) for each x in xs (None where an x does not affect ys)."""
    ys = [convert_to_tensor(y) for y in _as_list(ys)]
    xs = [convert_to_tensor(x) for x in _as_list(xs)]
    grad_ys = _as_list(grad_ys) if grad_ys is not None else [None] * len(ys)
    stops = {convert_to_tensor(s).op for s in _as_list(stop_gradients or [])}
    with name_scope(name, "gradients", ys + xs):
        between = _ops_between(xs, ys, stops)
        grads = {}
        for i, (y, gy) in enumerate(zip(ys, grad_ys)):
            if gy is None:
                with colocate_with(y.op) if colocate_gradients_with_ops else contextlib.nullcontext():
                    gy = _ones_like_y(y, f"grad_ys_{i}")
            grads.setdefault(y, []).append(convert_to_tensor(gy))
        x_set = set(xs)
        for op in sorted(between, key=lambda o: o.id, reverse=True):
            colocate = colocate_with(op) if colocate_gradients_with_ops else contextlib.nullcontext()
            with colocate:
                out_grads = [_aggregate(grads.get(t)) for t in op.outputs]
            if all(g is None for g in out_grads) or op in stops:
                continue
            if op.type in NOT_DIFFERENTIABLE:
                continue
            if op.type not in GRADIENTS:
                raise LookupError(f"No gradient defined for operation '{op.name}' (op type: {op.type})")
            with name_scope(op.name + "_grad"):
                with colocate_with(op) if colocate_gradients_with_ops else contextlib.nullcontext():
                    in_grads = GRADIENTS[op.type](op, *out_grads)
                if gate_gradients and sum(g is not None for g in in_grads) > 1:
                    # GATE_OP: no gradient of this op is used before all of them are computed
                    with device(None), colocate_with(None, ignore_existing=True):
                        in_grads = tuple_(list(in_grads))
            for t, g in zip(op.inputs, in_grads):
                if g is not None and (t.op in between or t in x_set):
                    grads.setdefault(t, []).append(g)
        return [_aggregate(grads.get(x)) for x in xs]


def _ones_like_y(y, name):
    """TF's default ``grad_ys``: ones shaped like y (a Shape Const and a Fill when y's shape is static)."""
    if not y.shape.is_fully_defined():
        return ones_like(y, name=name)
    shape = constant(list(y.shape.dims), dtype=dtypes.int32, name="Shape")
    with name_scope(name) as scope:
        one = constant(1, dtype=y.dtype.base_dtype, name="Const")
        return apply_op_output("Fill", [shape, one], {"shape": tuple(y.shape.dims)}, scope)


def _as_list(x):
    return list(x) if isinstance(x, (list, tuple)) else [x]


def _ops_between(xs, ys, stops):
    """Ops on a path from some x to some y (data edges only)."""
    forward, stack = set(), [x.op for x in xs]
    consumers = {}
    graph = ys[0].graph
    for op in graph.get_operations():
        for t in op.inputs:
            consumers.setdefault(t.op, []).append(op)
    while stack:
        op = stack.pop()
        if op in forward:
            continue
        forward.add(op)
        stack.extend(consumers.get(op, []))
    between, stack = set(), [y.op for y in ys]
    while stack:
        op = stack.pop()
        if op in between or op not in forward:
            continue
        between.add(op)
        if op not in stops:
            stack.extend(t.op for t in op.inputs)
    return between


def _aggregate(grads):
    """Sums the gradients reaching one tensor: one AddN per device, then one across devices."""
    if not grads:
        return None
    if len(grads) == 1:
        return grads[0]
    by_device = {}
    for g in grads:
        by_device.setdefault(g.device, []).append(g)
    sums = []
    for requested in sorted(by_device):
        group = by_device[requested]
        with colocate_with(group[0].op, ignore_existing=True):
            sums.append(group[0] if len(group) == 1 else add_n(group))
    return sums[0] if len(sums) == 1 else add_n(sums)


