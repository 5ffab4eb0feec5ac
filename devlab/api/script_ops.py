"""``tf.py_func``: a Python function as an op of the graph.

The function is kept in a registry under a token (``pyfunc_0``, ...), as TF's ``FuncRegistry``
does; the op's attrs hold the token. The op has a CPU kernel only. On a cluster, it runs in the
process of the task it is placed on: the function travels to that task's worker.
"""
from ..framework import dtypes
from ..ops import kernels
from ..ops.build import apply_op, convert_to_tensor


def py_func(func, inp, Tout, stateful=True, name=None):  # noqa: N803 - TF's argument name
    """Wraps ``func`` (numpy arrays in, numpy arrays out) as an op: ``PyFunc`` or, with
    ``stateful=False``, ``PyFuncStateless``. Returns a Tensor, or a list when ``Tout`` is a list."""
    single = not isinstance(Tout, (list, tuple))
    touts = [dtypes.as_dtype(t) for t in ([Tout] if single else Tout)]
    xs = [convert_to_tensor(x) for x in inp]
    token = f"pyfunc_{len(kernels.PY_FUNCS)}"
    kernels.PY_FUNCS[token] = func
    op_type = "PyFunc" if stateful else "PyFuncStateless"
    op = apply_op(op_type, xs, {"token": token, "Tin": [x.dtype.base_dtype for x in xs], "Tout": touts},
                  name or op_type)
    return op.outputs[0] if single else list(op.outputs)


def function_of(op):
    """The Python function of a PyFunc op."""
    return kernels.PY_FUNCS[op.get_attr("token")]
