"""``tf.gradients``: reverse-mode differentiation of the graph, by building more graph.

Walks the ops between ``xs`` and ``ys`` newest first; for each, sums the gradients arriving at
its outputs (``AddN``, one per device, as TF does) and applies its rule from ``grad_table``
inside the name scope ``gradients/<op>_grad``. With ``colocate_gradients_with_ops=True`` each
rule's ops are built under ``colocate_with(op)``, so a gradient runs where its forward op runs:
no copies back and forth between devices.
"""
import contextlib

from ..framework.scopes import colocate_with, name_scope
from .array_ops import constant, ones_like
from .build import convert_to_tensor
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
                gy = (constant(1.0, dtype=y.dtype.base_dtype, shape=y.shape.dims, name=f"grad_ys_{i}")
                      if y.shape.is_fully_defined() else ones_like(y, name=f"grad_ys_{i}"))
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
            with name_scope(op.name + "_grad"), colocate_with(op) if colocate_gradients_with_ops else contextlib.nullcontext():
                in_grads = GRADIENTS[op.type](op, *out_grads)
            for t, g in zip(op.inputs, in_grads):
                if g is not None and (t.op in between or t in x_set):
                    grads.setdefault(t, []).append(g)
        return [_aggregate(grads.get(x)) for x in xs]


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
    for device in sorted(by_device):
        group = by_device[device]
        with colocate_with(group[0].op, ignore_existing=True):
            sums.append(group[0] if len(group) == 1 else add_n(group))
    return sums[0] if len(sums) == 1 else add_n(sums)


