"""``tf.recompute_grad``: gradient checkpointing, as TF builds it in graph mode. The forward pass is
a ``custom_gradient`` whose ops no tape records; its gradient function builds the function again
(after the incoming gradient exists, so the recomputation waits for it) and differentiates that
copy on a ``GradientTape``."""
import functools

from ..framework import dtypes
from . import array_ops, gradient_tape, math_ops
from .array_ops import identity
from .custom_gradient import _flatten, _map, custom_gradient
from .variable_scope import get_variable_scope, variable_scope


def recompute_grad(f):
    """``f`` whose intermediate values are not kept for its gradient but computed again when the
    gradient is asked for (TF's ``tf.recompute_grad``, gradient checkpointing): the forward pass
    is built unrecorded by any tape, and the gradient function builds ``f`` again, after the
    incoming gradient exists, on copies of its inputs, and differentiates that copy. A gradient
    of that gradient is TF's NotImplementedError."""

    @custom_gradient
    def inner(*args):
        current_var_scope = get_variable_scope()
        with gradient_tape.stop_recording():
            result = f(*args)

        def grad_wrapper(*wrapper_args, variables=None):
            @custom_gradient
            def inner_recompute_grad(*dresult):
                with gradient_tape.GradientTape() as tape:
                    id_args = _map(identity, args)
                    # the recomputation waits for the incoming gradient (a data dependency, as TF's)
                    elem = math_ops.reduce_max(array_ops.reshape(dresult[0], [-1])[:1])
                    elem_bool = math_ops.cast(elem, dtypes.bool)
                    dresult_dep = array_ops.where_v2(math_ops.equal(elem_bool, elem_bool), 0.0, float("nan"))
                    id_args = _map(lambda x: x + math_ops.cast(dresult_dep, x.dtype), id_args)
                    tape.watch(id_args)
                    if variables is not None:
                        tape.watch(variables)
                    with variable_scope(current_var_scope):
                        recomputed_result = f(*id_args)
                kw_vars = list(variables) if variables is not None else []
                flat_args = _flatten(id_args)
                grads = tape.gradient(recomputed_result, flat_args + kw_vars, output_gradients=list(dresult),
                                      unconnected_gradients="zero")

                def transpose(*t_args, **t_kwargs):
                    raise NotImplementedError(f"recompute_grad tried to transpose grad of {f.__name__}. Consider not "
                                              "using recompute_grad in forward mode autodiff")
                return (grads[:len(flat_args)], grads[len(flat_args):]), transpose

            return inner_recompute_grad(*wrapper_args)

        return result, grad_wrapper

    return functools.wraps(f)(inner)
