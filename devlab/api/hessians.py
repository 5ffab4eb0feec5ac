"""Second derivatives built from ``tf.gradients``: ``tf.hessians`` (one while loop per ``x`` that
differentiates each element of the first gradient again) and the Hessian-vector product TF's
tests call (``gradients_impl._hessian_vector_product``), both as TF 1.x builds them."""
from ..framework import dtypes
from . import array_ops, math_ops
from .control_flow import while_loop
from .gradients import gradients
from .tensor_array_ops import TensorArray


def hessians(ys, xs, name="hessians", colocate_gradients_with_ops=False, gate_gradients=False,
             aggregation_method=None):
    """The Hessian of ``sum(ys)`` with respect to each ``x`` in ``xs``, shaped ``x.shape + x.shape``.

    TF ignores ``name`` here too (its ops go under ``gradients``, ``while`` and ``Reshape``)."""
    del name
    xs = list(xs) if isinstance(xs, (list, tuple)) else [xs]
    kwargs = {"colocate_gradients_with_ops": colocate_gradients_with_ops, "gate_gradients": gate_gradients,
              "aggregation_method": aggregation_method}
    result = []
    for gradient, x in zip(gradients(ys, xs, **kwargs), xs):
        gradient = array_ops.reshape(gradient, [-1])  # one row of the Hessian per element of x
        n = array_ops.size(x)
        loop_vars = [array_ops.constant(0, dtypes.int32), TensorArray(x.dtype, n)]
        _, hessian = while_loop(lambda j, _: j < n,
                                lambda j, rows: (j + 1, rows.write(j, gradients(gradient[j], x)[0])),
                                loop_vars)
        shape = array_ops.shape(x)
        result.append(array_ops.reshape(hessian.stack(), array_ops.concat((shape, shape), 0)))
    return result


def _hessian_vector_product(ys, xs, v):
    """The Hessian of ``sum(ys)`` with respect to ``xs`` times ``v``, without building the Hessian:
    the gradient of ``<grad(ys, xs), v>`` (``v`` held constant) with respect to ``xs``."""
    if len(v) != len(xs):
        raise ValueError("xs and v must have the same length.")
    grads = gradients(ys, xs)
    products = [math_ops.multiply(g, array_ops.stop_gradient(v_elem)) for g, v_elem in zip(grads, v)
                if g is not None]
    return gradients(products, xs)
