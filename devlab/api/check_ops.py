"""TF's element-wise checks (``tf.assert_less``, ``assert_equal``, ``assert_near``, ``assert_positive``...):
an ``Assert`` on ``reduce_all(compare(x, y))``, built as TF 2.21's graph-mode check_ops builds them
(scope ``assert_positive/assert_less``, the data strings naming the tensors). When both sides are
known while building, a false condition is raised at once as InvalidArgumentError, as TF's
``_assert_static`` does. Also ``is_non_decreasing``/``is_strictly_increasing`` and
``assert_proper_iterable``."""
import numpy as np

from ..framework import dtypes, errors
from ..framework.scopes import name_scope
from ..framework.tensor import Tensor
from ..ops.build import convert_to_tensor
from ..ops.sparse_tensor import SparseTensor
from ..ops.tensor_util import constant_value
from . import array_ops, math_ops
from .asserts import Assert
from .control_flow import cond
from .control_flow_ops import no_op
from .math_ops import equal, greater, greater_equal, less, less_equal, not_equal, reduce_all


def _tf_str(x):
    """``str(x)`` as TF prints a graph tensor (``Tensor("x:0", shape=(?, 3), dtype=float32)``), for
    messages TF formats with ``%s``; anything else as ``str``."""
    if not isinstance(x, Tensor):
        return str(x)
    shape = "" if x.shape.ndims is None else f", shape={x.shape}"
    return f'Tensor("{x.name}"{shape}, dtype={x.dtype.name})'


def _message_prefix(message):
    return f"{message}.  " if message else ""


def _static_text(x):
    """A data item as _assert_static shows it: strings and known values as they are."""
    value = constant_value(x) if hasattr(x, "op") else x
    if value is None:
        return str(x)
    if isinstance(value, bytes):
        return value.decode()
    if isinstance(value, np.ndarray) and value.dtype.kind in "SO" and value.ndim == 0:
        value = value.item()
        return value.decode() if isinstance(value, bytes) else str(value)
    return str(value)


def _binary_assert(sym, opname, op_func, static_func, x, y, data, summarize, message, name):
    """An ``Assert`` that ``op_func(x, y)`` holds element-wise (TF's graph-mode ``_binary_assert``):
    raised at once, as InvalidArgumentError, when both sides are known and it does not."""
    with name_scope(name, opname, [x, y]):
        x = convert_to_tensor(x, name="x")
        y = convert_to_tensor(y, name="y")
        if data is None:
            data = [f"Condition x {sym} y did not hold element-wise:", f"x ({x.name}) = ", x, f"y ({y.name}) = ", y]
        if message is not None:
            data = [message] + list(data)
        condition = reduce_all(op_func(x, y))
        x_static, y_static = constant_value(x), constant_value(y)
        if x_static is not None and y_static is not None and not np.all(static_func(x_static, y_static)):
            raise errors.InvalidArgumentError(None, None, "\n".join(_static_text(d) for d in data))
        return Assert(condition, data, summarize=summarize)


def assert_less(x, y, data=None, summarize=None, message=None, name=None):
    """An op that fails the run unless ``x < y`` element-wise."""
    return _binary_assert("<", "assert_less", less, np.less, x, y, data, summarize, message, name)


def assert_less_equal(x, y, data=None, summarize=None, message=None, name=None):
    """An op that fails the run unless ``x <= y`` element-wise."""
    return _binary_assert("<=", "assert_less_equal", less_equal, np.less_equal, x, y, data, summarize, message, name)


def assert_greater(x, y, data=None, summarize=None, message=None, name=None):
    """An op that fails the run unless ``x > y`` element-wise."""
    return _binary_assert(">", "assert_greater", greater, np.greater, x, y, data, summarize, message, name)


def assert_greater_equal(x, y, data=None, summarize=None, message=None, name=None):
    """An op that fails the run unless ``x >= y`` element-wise."""
    return _binary_assert(">=", "assert_greater_equal", greater_equal, np.greater_equal, x, y, data, summarize,
                          message, name)


def assert_equal(x, y, data=None, summarize=None, message=None, name=None):
    """An op that fails the run unless ``x == y`` element-wise (a NoOp when ``x`` is ``y``). As TF's,
    the scope is opened once to look, then again for the ops: they go in ``assert_equal_1``."""
    with name_scope(name, "assert_equal", [x, y]):
        if x is y:
            return no_op()
    return _binary_assert("==", "assert_equal", equal, np.equal, x, y, data, summarize, message, name)


def assert_none_equal(x, y, data=None, summarize=None, message=None, name=None):
    """An op that fails the run unless ``x != y`` element-wise."""
    return _binary_assert("!=", "assert_none_equal", not_equal, np.not_equal, x, y, data, summarize, message, name)


def _sign_assert(opname, sym, compare, x_first, x, data, summarize, message, name):
    """``x`` compared with zero (``compare(x, 0)`` or ``compare(0, x)``), TF's data naming ``x``."""
    message = _message_prefix(message)
    with name_scope(name, opname, [x]):
        x = convert_to_tensor(x, name="x")
        if data is None:
            head = f"Condition x {sym} 0 did not hold element-wise:"
            # TF's assert_non_positive lacks a comma here: the two strings are one item
            data = ([message, head + f"x ({x.name}) = ", x] if opname == "assert_non_positive"
                    else [message, head, f"x ({x.name}) = ", x])
        zero = convert_to_tensor(0, dtype=x.dtype)
        return compare(x, zero, data=data, summarize=summarize) if x_first else compare(zero, x, data=data,
                                                                                        summarize=summarize)


def assert_positive(x, data=None, summarize=None, message=None, name=None):
    """An op that fails the run unless every element of ``x`` is > 0."""
    return _sign_assert("assert_positive", ">", assert_less, False, x, data, summarize, message, name)


def assert_negative(x, data=None, summarize=None, message=None, name=None):
    """An op that fails the run unless every element of ``x`` is < 0."""
    return _sign_assert("assert_negative", "<", assert_less, True, x, data, summarize, message, name)


def assert_non_negative(x, data=None, summarize=None, message=None, name=None):
    """An op that fails the run unless every element of ``x`` is >= 0."""
    return _sign_assert("assert_non_negative", ">=", assert_less_equal, False, x, data, summarize, message, name)


def assert_non_positive(x, data=None, summarize=None, message=None, name=None):
    """An op that fails the run unless every element of ``x`` is <= 0."""
    return _sign_assert("assert_non_positive", "<=", assert_less_equal, True, x, data, summarize, message, name)


def assert_near(x, y, rtol=None, atol=None, data=None, summarize=None, message=None, name=None):
    """An op that fails the run unless ``|x - y| < atol + rtol * |y|`` element-wise (both
    tolerances 10 machine epsilons of x's dtype unless given). Never checked while building."""
    message = _message_prefix(message)
    with name_scope(name, "assert_near", [x, y, rtol, atol]):
        x = convert_to_tensor(x, name="x")
        y = convert_to_tensor(y, name="y", dtype=x.dtype)
        dtype = x.dtype.real_dtype if x.dtype.is_complex else x.dtype
        eps = np.finfo(dtype.as_numpy_dtype).eps
        rtol = convert_to_tensor(10 * eps if rtol is None else rtol, name="rtol", dtype=dtype)
        atol = convert_to_tensor(10 * eps if atol is None else atol, name="atol", dtype=dtype)
        if data is None:
            data = [message, f"x and y not equal to tolerance rtol = {_tf_str(rtol)}, atol = {_tf_str(atol)}",
                    f"x ({x.name}) = ", x, f"y ({y.name}) = ", y]
        tol = atol + rtol * math_ops.abs(y)
        diff = math_ops.abs(x - y)
        return Assert(reduce_all(less(diff, tol)), data, summarize=summarize)


def assert_proper_iterable(values):
    """TypeError unless ``values`` is an iterable other than a tensor, an array or a string."""
    if isinstance(values, (Tensor, SparseTensor, np.ndarray, bytes, str)):
        raise TypeError(f'Expected argument "values" to be a "proper" iterable.  Found: {type(values)}')
    if not hasattr(values, "__iter__"):
        raise TypeError(f'Expected argument "values" to be iterable.  Found: {type(values)}')


_NUMERIC = ("float16", "float32", "float64", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32",
            "uint64", "qint8", "qint16", "qint32", "quint8", "quint16", "complex64", "complex128", "bfloat16")


def is_numeric_tensor(tensor):
    """Whether ``tensor`` is a Tensor of a numeric dtype."""
    return isinstance(tensor, Tensor) and tensor.dtype.name in _NUMERIC


def _monotonic(x, compare):
    """``compare(x[1:], x[:-1])`` of ``x`` flattened, an empty bool tensor when it has fewer than two elements."""
    x = array_ops.reshape(x, [-1])
    if not is_numeric_tensor(x):
        raise TypeError(f"Expected x to be numeric, instead found: {_tf_str(x)}")
    is_shorter_than_two = less(array_ops.size(x), 2)
    s_len = array_ops.shape(x) - 1
    return cond(is_shorter_than_two, lambda: convert_to_tensor([], dtype=dtypes.bool),
                lambda: compare(array_ops.strided_slice(x, [1], [1] + s_len), array_ops.strided_slice(x, [0], s_len)))


def is_non_decreasing(x, name=None):
    """A bool tensor: ``x[i] <= x[i + 1]`` for every adjacent pair of ``x`` flattened."""
    with name_scope(name, "is_non_decreasing", [x]):
        return reduce_all(_monotonic(x, greater_equal))


def is_strictly_increasing(x, name=None):
    """A bool tensor: ``x[i] < x[i + 1]`` for every adjacent pair of ``x`` flattened."""
    with name_scope(name, "is_strictly_increasing", [x]):
        return reduce_all(_monotonic(x, greater))
