"""``tf.Assert``: an op that fails the run when its condition is false, guarded by a ``tf.cond``
where TensorFlow guards it."""
from ..framework import dtypes
from ..framework.scopes import name_scope
from ..ops.build import convert_to_tensor
from .array_ops import op
from .control_flow import cond
from .control_flow_ops import no_op


def Assert(condition, data, summarize=None, name=None):  # noqa: N802 - TF's name
    """An op that fails the run with ``data`` in its message when ``condition`` is false. With
    only strings and int32s to show it is one ``Assert`` op; otherwise TF guards it with a
    ``tf.cond`` (``AssertGuard``), so the data is only read when the assertion fails."""
    with name_scope(name, "Assert", [condition] + list(data)):
        xs = [convert_to_tensor(x) for x in data]  # TF converts once to look at the dtypes...
        attrs = {"summarize": 3 if summarize is None else summarize}

        def assert_op():  # ... and once more in the op's own wrapper
            return op("Assert", "Assert", [("condition", condition, dtypes.bool)] +
                      [(f"data_{i}", x, None) for i, x in enumerate(data)], attrs)
        if all(x.dtype.base_dtype in (dtypes.string, dtypes.int32) for x in xs):
            return assert_op()
        condition = convert_to_tensor(condition, name="Condition")
        return cond(condition, no_op, assert_op, name="AssertGuard").op


def _assert(condition, data, summarize=3, name=None):
    """TF's raw ``gen_logging_ops._assert``: one ``Assert`` op, never guarded by a cond."""
    return op("Assert", name, [("condition", condition, dtypes.bool)] +
              [(f"data_{i}", x, None) for i, x in enumerate(data)], {"summarize": summarize})
