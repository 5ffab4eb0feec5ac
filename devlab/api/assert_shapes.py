"""``tf.debugging.assert_shapes``: several tensors' shapes checked against symbolic shapes at once.

``assert_shapes([(x, ("N", "Q")), (y, ("N", "D")), (z, (2,))])`` checks each tensor's rank, then
that every dimension named by a number has that size and every dimension named by the same symbol
has the same size in all tensors. ``None`` or ``"."`` is any size; a leading ``...`` or ``"*"``
lets any number of outer dimensions come first (the symbols name the innermost ones). As TF's
graph-mode version: what the static shapes decide raises a ValueError while building; the rest
becomes rank checks and ``Assert`` ops, grouped in one NoOp that runs after the rank checks.
"""
from ..framework.scopes import control_dependencies, name_scope
from ..ops.build import convert_to_tensor
from ..ops.sparse_tensor import SparseTensor
from . import array_ops
from .asserts import Assert
from .check_ops import _message_prefix
from .check_ranks import assert_rank, assert_rank_at_least, assert_rank_in
from .control_flow import cond
from .control_flow_ops import group
from .math_ops import equal
from .array_ops import constant  # noqa: I100 - the scalar's [1]


def _any_size(symbol):
    return symbol is None or symbol == "."


def _known(size):
    """Whether ``size`` is a number (an int, or a string of one), not a symbol or a tensor."""
    if size is None:
        return False
    try:
        int(size)
    except (TypeError, ValueError):
        return False
    return True


def _actual_sizes(x):
    """Each dimension's size of ``x``: an int where static, else its entry of ``shape(x)``; a
    scalar counts as one dimension of size 1 (as TF's, so a scalar matches ``[]`` or ``[1]``)."""
    dynamic = array_ops.shape(x)
    rank = x.get_shape().ndims
    if rank == 0:
        return (1,)
    if rank is not None:
        return [int(d) if d is not None else dynamic[i] for i, d in enumerate(x.get_shape().as_list())]
    return cond(equal(array_ops.rank(x), 0), lambda: constant([1]), lambda: dynamic)


class _Spec:
    """One tensor with what is asked of it: its symbols (innermost, after a leading ``...``)."""

    def __init__(self, x, symbols, innermost):
        self.x, self.innermost = x, innermost
        self.symbols = symbols or (1,)  # no dimensions asked: a scalar, or one dimension of size 1
        self.actual = _actual_sizes(x)

    def dim(self, i):
        """The tensor dimension the i-th symbol names (negative when counted from the inside)."""
        return i - len(self.symbols) if self.innermost else i


def assert_shapes(shapes, data=None, summarize=None, message=None, name=None):
    """An op that checks ``shapes`` ((tensor, symbolic shape) pairs, or a dict) at run time; what
    the static shapes already contradict is a ValueError at once. Returns a NoOp (the group)."""
    if isinstance(shapes, dict):
        shapes = shapes.items()
    prefix = _message_prefix(message)
    with name_scope(name, "assert_shapes", [shapes, data]):
        pairs = [(x if isinstance(x, SparseTensor) else convert_to_tensor(x), s) for x, s in shapes if s is not None]

        def tensor_name(x):
            if isinstance(x, SparseTensor):
                return f"shape={x.get_shape()} dtype={x.dtype.name}"
            return x.name

        specs = []
        for x, symbolic in pairs:
            if not (hasattr(symbolic, "__iter__") or hasattr(symbolic, "__getitem__")):
                raise ValueError(f"{prefix}Tensor {tensor_name(x)}.  Specified shape must be an iterable.  An iterable "
                                 f"has the attribute `__iter__` or `__getitem__`.  Received specified shape: {symbolic}")
            symbols = tuple(symbolic)
            innermost = False
            for i, symbol in enumerate(symbols):
                if symbol is Ellipsis or symbol == "*":
                    if i != 0:
                        raise ValueError(f"{prefix}Tensor {tensor_name(x)} specified shape index {i}.  Symbol `...` or "
                                         "`*` for a variable number of unspecified dimensions is only allowed as the "
                                         "first entry")
                    innermost = True
            specs.append(_Spec(x, symbols[1:] if innermost else symbols, innermost))

        rank_checks = []
        for spec in specs:
            rank = len(spec.symbols)
            if spec.innermost:
                if rank in (0, 1):
                    continue
                check = assert_rank_at_least(spec.x, rank, data=data, summarize=summarize, message=message, name=name)
            elif rank in (0, 1):  # a scalar and a vector of one are both size-1 shapes here
                check = assert_rank_in(spec.x, [0, 1], data=data, summarize=summarize, message=message, name=name)
            else:
                check = assert_rank(spec.x, rank, data=data, summarize=summarize, message=message, name=name)
            rank_checks.append(check)

        size_checks, named = [], {}  # named: symbol -> (size, tensor, its dimension), from its first use
        for spec in specs:
            for i, symbol in enumerate(spec.symbols):
                if _any_size(symbol):
                    continue
                dim = spec.dim(i)
                if not _known(symbol) and symbol not in named:
                    with control_dependencies(rank_checks):
                        named[symbol] = (spec.actual[dim], spec.x, dim)
                    continue
                if _known(symbol):
                    wanted, how = int(symbol), "Specified explicitly"
                else:
                    wanted, by, by_dim = named[symbol]
                    how = f"Specified by tensor {tensor_name(by)} dimension {by_dim}"
                with control_dependencies(rank_checks):
                    actual = spec.actual[dim]
                if _known(actual) and _known(wanted):
                    if int(actual) != int(wanted):
                        raise ValueError(f"{prefix}{how}.  Tensor {tensor_name(spec.x)} dimension {dim} must have size "
                                         f"{int(wanted)}.  Received size {int(actual)}, shape {spec.x.get_shape()}")
                    continue
                condition = equal(convert_to_tensor(actual), convert_to_tensor(wanted))
                message_data = data if data is not None else [
                    prefix, how, f"Tensor {tensor_name(spec.x)} dimension", dim, "must have size", wanted,
                    "Received shape: ", array_ops.shape(spec.x)]
                size_checks.append(Assert(condition, message_data, summarize=summarize))
    with control_dependencies(rank_checks):
        return group(*size_checks)
