"""TF's rank and type checks (``tf.assert_rank``, ``assert_rank_at_least``, ``assert_rank_in``,
``assert_type``, ``assert_integer``, ``assert_scalar``) and ``ensure_shape``, built as TF 2.21's graph-mode check_ops:
what the static shape decides is decided while building (a ValueError or TypeError naming the
tensor, or a NoOp ``static_checks_determined_all_ok``); otherwise an ``Assert`` on the run-time rank."""
from ..framework import dtypes
from ..framework.scopes import name_scope
from ..framework.tensor_shape import TensorShape
from ..ops.build import convert_to_tensor, op_output
from ..ops.sparse_tensor import SparseTensor
from ..ops.tensor_util import constant_value
from . import array_ops
from .asserts import Assert
from .check_ops import _message_prefix
from .control_flow_ops import no_op, with_dependencies
from .math_ops import equal, greater_equal, logical_or


def _dtype_str(dtype):
    """``str(dtype)`` as TF prints it (``<dtype: 'float32'>``), for messages TF formats with ``%s``."""
    return f"<dtype: '{dtype.name}'>"


class _StaticRankFailed(Exception):
    """The static rank contradicts the check: (actual rank, the rank or ranks asked for)."""


def _rank_condition(x, ranks, static_condition, dynamic_condition, data, summarize):
    """TF's ``_assert_ranks_condition``: a NoOp when the static rank satisfies the check, else an
    Assert on the run-time rank (each rank not known while building checked to be a scalar)."""
    for rank in ranks:
        assert_type(rank, dtypes.int32)
    ranks_static = tuple(constant_value(rank) for rank in ranks)
    if not any(r is None for r in ranks_static):
        if any(r.ndim != 0 for r in ranks_static):
            raise ValueError("Rank must be a scalar.")
        x_rank_static = x.get_shape().ndims
        if x_rank_static is not None:
            if not static_condition(x_rank_static, ranks_static):
                raise _StaticRankFailed(x_rank_static, ranks_static)
            return no_op(name="static_checks_determined_all_ok")
    condition = dynamic_condition(array_ops.rank(x), ranks)
    for rank, rank_static in zip(ranks, ranks_static):
        if rank_static is None:  # assert_rank(x, [n]) instead of assert_rank(x, n) fails at run time
            rank_check = assert_rank(rank, 0, data=["Rank must be a scalar. Received rank: ", rank])
            condition = with_dependencies([rank_check], condition)
    return Assert(condition, data, summarize=summarize)


def _checked_rank(api, describe, x, ranks, static_condition, dynamic_condition, data, summarize, message, name):
    """The rank check ``api`` of ``x``; ``describe(ranks)`` words the ranks in its ValueError."""
    with name_scope(name, api, [x] + list(ranks) + list(data or [])):
        if not isinstance(x, SparseTensor):
            x = convert_to_tensor(x, name="x")
        ranks = [convert_to_tensor(rank, name="rank") for rank in ranks]
        message = _message_prefix(message)
        tensor_name = "" if isinstance(x, SparseTensor) else x.name
        if data is None:
            data = [message, f"Tensor {tensor_name} must have {api[len('assert_'):].replace('_', ' ')}"] + ranks + [
                "Received shape: ", array_ops.shape(x)]
        try:
            return _rank_condition(x, ranks, static_condition, dynamic_condition, data, summarize)
        except _StaticRankFailed as failed:
            actual, wanted = failed.args
            raise ValueError(f"{message}Tensor {tensor_name} must have {describe(wanted)}.  Received rank {actual}, "
                             f"shape {x.get_shape()}") from None


def assert_rank(x, rank, data=None, summarize=None, message=None, name=None):
    """Checks that ``x`` has rank ``rank``: at once when its static rank is known, else when run."""
    return _checked_rank("assert_rank", lambda r: f"rank {int(r[0])}", x, [rank],
                         lambda actual, given: actual == given[0],
                         lambda actual, given: equal(actual, given[0]), data, summarize, message, name)


def assert_rank_at_least(x, rank, data=None, summarize=None, message=None, name=None):
    """Checks that ``x`` has rank ``rank`` or more."""
    return _checked_rank("assert_rank_at_least", lambda r: f"rank at least {int(r[0])}", x, [rank],
                         lambda actual, given: actual >= given[0],
                         lambda actual, given: greater_equal(actual, given[0]), data, summarize, message, name)


def _any_rank_equal(actual, given):
    result = equal(given[0], actual)
    for rank in given[1:]:
        result = logical_or(result, equal(rank, actual))
    return result


def assert_rank_in(x, ranks, data=None, summarize=None, message=None, name=None):
    """Checks that the rank of ``x`` is one of ``ranks``."""
    return _checked_rank("assert_rank_in", lambda r: f"rank in {tuple(int(v) for v in r)}", x, list(ranks),
                         lambda actual, given: actual in given,
                         lambda actual, given: _any_rank_equal(actual, given) if given else convert_to_tensor(False),
                         data, summarize, message, name)


def assert_type(tensor, tf_type, message=None, name=None):
    """TypeError unless ``tensor`` has dtype ``tf_type`` (a NoOp otherwise: decided while building)."""
    tf_type = dtypes.as_dtype(tf_type)
    with name_scope(name, "assert_type", [tensor]):
        if not isinstance(tensor, SparseTensor):
            tensor = convert_to_tensor(tensor, name="tensor")
        if tensor.dtype != tf_type:
            raise TypeError(f"{_message_prefix(message)}{getattr(tensor, 'name', 'tensor')} must be of type "
                            f"{tf_type!r}; got {tensor.dtype!r}")
        return no_op("statically_determined_correct_type")


def assert_integer(x, message=None, name=None):
    """TypeError unless ``x`` has an integer dtype (a NoOp otherwise)."""
    with name_scope(name, "assert_integer", [x]):
        x = convert_to_tensor(x, name="x")
        if not x.dtype.is_integer:
            raise TypeError(f'{_message_prefix(message)}Expected "x" to be integer type.  Found: {x.name} of dtype '
                            f"{_dtype_str(x.dtype)}")
        return no_op("statically_determined_was_integer")


def assert_scalar(tensor, name=None, message=None):
    """``tensor`` itself, when its static shape is a scalar's; ValueError otherwise."""
    with name_scope(name, "assert_scalar", [tensor]) as scope:
        tensor = convert_to_tensor(tensor, name=scope)
        shape = tensor.get_shape()
        if shape.ndims != 0:
            raise ValueError(f"{_message_prefix(message)}Expected scalar shape for {tensor.name}, saw shape: {shape}.")
        return tensor


def _assert_same_base_type(items, expected_type=None):
    """The base dtype shared by ``items`` (Nones skipped) and ``expected_type``; TF's ValueError
    naming the first item that differs."""
    first_name = None
    for item in items:
        if item is None:
            continue
        if not hasattr(item, "dtype"):  # TF fails on ``item.dtype`` (AttributeError); devlab says what it got
            raise TypeError(f"assert_same_float_dtype takes tensors, got {item!r}")
        item_type = item.dtype.base_dtype
        if not expected_type:
            expected_type = item_type
            first_name = getattr(item, "name", str(item))
        elif expected_type != item_type:
            as_first = f" as {first_name}" if first_name else ""
            raise ValueError(f"{getattr(item, 'name', str(item))}, type={_dtype_str(item_type)}, must be of the same "
                             f"type ({_dtype_str(expected_type)}){as_first}.")
    return expected_type


def assert_same_float_dtype(tensors=None, dtype=None):
    """The floating dtype ``tensors`` (and ``dtype``, if given) share: float32 when nothing says;
    ValueError when they differ or it is not a floating type."""
    dtype = None if dtype is None else dtypes.as_dtype(dtype)  # a DType, or TF's TypeError
    if tensors:
        dtype = _assert_same_base_type(tensors, dtype)
    if not dtype:
        return dtypes.float32
    if not dtype.is_floating:
        raise ValueError(f"Expected floating point type, got {_dtype_str(dtype)}.")
    return dtype


def ensure_shape(x, shape, name=None):
    """``x`` through an ``EnsureShape`` op: its static shape merged with ``shape`` (a contradiction
    is a ValueError now), its actual shape checked when run (InvalidArgumentError)."""
    shape = shape if isinstance(shape, TensorShape) else TensorShape(shape)
    attr = None if shape.ndims is None else tuple(shape.as_list())
    return op_output("EnsureShape", name, [("input", x, None)], {"shape": attr})
