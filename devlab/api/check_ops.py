"""``tf.assert_less`` and ``tf.assert_positive``: an ``Assert`` on ``reduce_all(less(x, y))``,
built as TF 2.21's graph-mode check_ops builds them (scope ``assert_positive/assert_less``, the
data strings naming the tensors). When both sides are known while building, a false condition
is raised at once as InvalidArgumentError, as TF's ``_assert_static`` does."""
import numpy as np

from ..framework import errors
from ..framework.scopes import name_scope
from ..ops.build import convert_to_tensor
from ..ops.tensor_util import constant_value
from .asserts import Assert
from .math_ops import less, reduce_all


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


def assert_less(x, y, data=None, summarize=None, message=None, name=None):
    """An op that fails the run unless ``x < y`` element-wise."""
    with name_scope(name, "assert_less", [x, y]):
        x = convert_to_tensor(x, name="x")
        y = convert_to_tensor(y, name="y")
        if data is None:
            data = ["Condition x < y did not hold element-wise:", f"x ({x.name}) = ", x, f"y ({y.name}) = ", y]
        if message is not None:
            data = [message] + list(data)
        condition = reduce_all(less(x, y))
        x_static, y_static = constant_value(x), constant_value(y)
        if x_static is not None and y_static is not None and not np.all(np.less(x_static, y_static)):
            raise errors.InvalidArgumentError(None, None, "\n".join(_static_text(d) for d in data))
        return Assert(condition, data, summarize=summarize)


def assert_positive(x, data=None, summarize=None, message=None, name=None):
    """An op that fails the run unless every element of ``x`` is > 0."""
    message = _message_prefix(message)
    with name_scope(name, "assert_positive", [x]):
        x = convert_to_tensor(x, name="x")
        if data is None:
            data = [message, "Condition x > 0 did not hold element-wise:", f"x ({x.name}) = ", x]
        zero = convert_to_tensor(0, dtype=x.dtype)
        return assert_less(zero, x, data=data, summarize=summarize)
