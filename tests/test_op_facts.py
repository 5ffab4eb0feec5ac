"""Every fact about an op lives on its OpDef (devlab/ops/opdef.py), not on its kernel function,
and the facts the runtime relies on hold for the kernels they describe."""
import inspect

import numpy as np
import pytest

from devlab.ops import tensor_util
from devlab.ops.table import OPS


def test_no_kernel_carries_a_hidden_attribute():
    # ``__wrapped__`` is Python's own mark of a wrapper (allocation.guarded checks sizes first)
    marked = {t: sorted(set(vars(d.kernel)) - {"__wrapped__"}) for t, d in OPS.items()
              if set(vars(d.kernel)) - {"__wrapped__"}}
    assert not marked, f"facts set on kernel functions instead of the OpDef: {marked}"


@pytest.mark.parametrize("op_type", sorted(t for t, d in OPS.items() if d.ufunc))
def test_a_ufunc_op_is_exactly_its_ufunc(op_type):
    opdef = OPS[op_type]
    n = getattr(np, opdef.ufunc).nin
    xs = [np.array([[0.5, 2.0], [3.0, 1.5]], np.float32) + i for i in range(n)]
    if op_type.startswith("Logical"):
        xs = [x > 1 for x in xs]

    class K:
        xp, out, attrs = np, None, {}
    np.testing.assert_array_equal(opdef.kernel(K, *xs), getattr(np, opdef.ufunc)(*xs))
    assert opdef.writes_out and opdef.arity == (n, n)


def test_fused_expressions_render_their_inputs():
    assert OPS["AddV2"].expression("a", "b") == "(a + b)"
    assert OPS["AddN"].expression("a", "b", "c") == "(a + b + c)"
    assert OPS["Exp"].expression("x") == "exp(x)"
    assert OPS["Maximum"].expression is None  # NaN rules differ from numexpr's: never fused


def test_the_constant_folds_run_the_table_kernels():
    for op_type, kernel in tensor_util._FOLD.items():
        table = inspect.unwrap(OPS[op_type].kernel)
        assert (kernel.__code__, kernel.__name__) == (table.__code__, table.__name__), op_type


def test_required_attrs_and_arity_come_from_the_opdef():
    assert OPS["Sum"].required_attrs == ("keep_dims",)
    assert OPS["MatMul"].arity == (2, 2)
    assert OPS["AddN"].arity[0] == 1 and OPS["AddN"].arity[1] == float("inf")
    assert OPS["Merge"].reads_dead and not OPS["Identity"].reads_dead
    assert OPS["Reshape"].returns_view and not OPS["MatMul"].returns_view
