"""``tf.custom_gradient``: a function whose gradient is the one it returns, in graph mode.

As TF's ``_graph_mode_decorator`` builds it: the function's results, its inputs and the variables
it reads pass together through one ``IdentityN`` op built under ``gradient_override_map``, so
``tf.gradients`` reaching that op calls the returned gradient function (registered under a
fresh name, ``CustomGradient-N``) instead of differentiating the ops inside.
"""
import functools
import inspect
import itertools

from ..framework.graph import get_default_graph
from ..framework.graph_keys import GraphKeys
from ..framework.tensor import Tensor
from ..ops.build import convert_to_tensor
from .array_ops import identity, identity_n
from .grad_table import RegisterGradient, is_differentiable

_uids = itertools.count(1)
VAR_OP_TYPES = ("VariableV2", "VarHandleOp")  # the ops a variable's value comes from


def custom_gradient(f=None):
    """Decorator: ``f(*x)`` returns ``(y, grad_fn)``; the result computes ``y``, and its gradient
    is ``grad_fn(dy)`` (``grad_fn(dy, variables=...)`` returning also one per variable f reads)."""
    if f is None:
        return lambda f: custom_gradient(f=f)
    return _Bind(f)


class _Bind:
    """``f`` decorated, bound like a method when it is one (TF's ``Bind``)."""

    def __init__(self, f):
        self._f = f
        functools.update_wrapper(self, f)

    def __get__(self, instance, owner):
        return self if instance is None else _Bind(self._f.__get__(instance, owner))

    def __call__(self, *args, **kwargs):
        return _graph_mode_decorator(self._f, args, kwargs)


def _flatten(structure):
    """The leaves of nested lists, tuples and dicts (dicts by sorted key, as TF's nest)."""
    if isinstance(structure, (list, tuple)):
        return [leaf for item in structure for leaf in _flatten(item)]
    if isinstance(structure, dict):
        return [leaf for key in sorted(structure) for leaf in _flatten(structure[key])]
    return [structure]


def _pack(structure, leaves):
    """``structure`` with its leaves replaced, in order, by ``leaves`` (an iterator)."""
    if isinstance(structure, (list, tuple)):
        items = [_pack(item, leaves) for item in structure]
        return type(structure)(*items) if hasattr(structure, "_fields") else type(structure)(items)
    if isinstance(structure, dict):
        return {key: _pack(structure[key], leaves) for key in sorted(structure)}
    return next(leaves)


def _map(fn, structure):
    return _pack(structure, iter([fn(leaf) for leaf in _flatten(structure)]))


def get_variable_by_name(var_name):
    """The trainable global variable whose op is named ``var_name`` (None when it is not
    trainable; TF's ValueError when there is none or several)."""
    candidates = [v for v in get_default_graph().get_collection(GraphKeys.GLOBAL_VARIABLES)
                  if getattr(getattr(v, "op", None), "name", None) == var_name]
    if not candidates:
        raise ValueError(f"Unsuccessful at finding variable {var_name}.")
    candidates = [v for v in candidates if v.trainable]
    if len(candidates) > 1:
        raise ValueError(f"Unsuccessful at finding trainable variable {var_name}. Number of candidates: "
                         f"{len(candidates)}. Candidates: {candidates}")
    return candidates[0] if candidates else None


def _backward_walk_ops(seed_ops, stop_at_ts):
    """The ops behind ``seed_ops`` (not themselves), walking back through the inputs of
    differentiable ops only and stopping at ``stop_at_ts`` (TF's ``get_backward_walk_ops``)."""
    stop = {id(t) for t in stop_at_ts}
    result, seen, wave = [], set(seed_ops), list(seed_ops)
    while wave:
        new_wave = []
        for op in wave:
            for t in (op.inputs if is_differentiable(op) else ()):
                if id(t) not in stop and t.op not in seen:
                    seen.add(t.op)
                    new_wave.append(t.op)
                    result.append(t.op)
        wave = new_wave
    return result


def _get_dependent_variables(input_ops, output_ops):
    """The trainable variables read between the inputs and the outputs (TF's helper of the same
    name: their ops found by a backward walk, then looked up by name)."""
    output_ops = [identity(t) for t in _flatten(output_ops)]  # the walk never starts at an input
    between = _backward_walk_ops([t.op for t in output_ops], _flatten(input_ops))
    variables = (get_variable_by_name(op.name) for op in between if op.type in VAR_OP_TYPES)
    return [v for v in variables if v is not None]


def _is_resource_variable(v):
    handle = getattr(v, "handle", None)
    return isinstance(handle, Tensor) and handle.dtype.base_dtype.name == "resource"


def _scope_variables():
    from .variable_scope import get_variable_scope
    scope = get_variable_scope()
    return scope.global_variables() + scope.local_variables()


def _graph_mode_decorator(f, args, kwargs):
    if kwargs:
        raise ValueError("The custom_gradient decorator currently supports keywords arguments only when eager "
                         "execution is enabled.")
    name = f"CustomGradient-{next(_uids)}"
    args = _map(convert_to_tensor, args)
    before = {id(v) for v in _scope_variables()}
    result, grad_fn = f(*args)
    flat_args, flat_result = _flatten(args), _flatten(result)
    for v in _scope_variables():
        if id(v) not in before and not _is_resource_variable(v):
            raise TypeError("All variables used by a function wrapped with @custom_gradient must be "
                            "`ResourceVariable`s. Ensure that no `variable_scope` is created with "
                            "`use_resource=False`.")
    graphs = {t.graph for t in flat_result if isinstance(t, Tensor)}
    if len(graphs) > 1:
        raise ValueError("All custom_gradient outputs should be from the same graph")
    inputs = [t for t in flat_args if not graphs or t.graph in graphs]
    variables = sorted(_get_dependent_variables(inputs, flat_result), key=lambda v: v.name)
    spec = inspect.getfullargspec(grad_fn)
    takes_variables = "variables" in spec.args or "variables" in spec.kwonlyargs or spec.varkw
    if variables and not takes_variables:
        raise TypeError("@tf.custom_gradient grad_fn must accept keyword argument 'variables', since function "
                        f"uses variables: {variables}")
    n_result = len(flat_result)

    @RegisterGradient(name)
    def _grad(unused_op, *grads):
        result_grads = list(grads[:n_result])
        if variables:
            input_grads, variable_grads = grad_fn(*result_grads, variables=variables)
            if len(variable_grads) != len(variables):
                raise ValueError("Must return gradient for each variable from @custom_gradient grad_fn.")
        else:
            input_grads, variable_grads = grad_fn(*result_grads), []
        return [None] * n_result + _flatten(input_grads) + list(variable_grads)

    with get_default_graph().gradient_override_map({"IdentityN": name}):
        outputs = identity_n(flat_result + flat_args + variables)
    return _pack(result, iter(outputs[:n_result]))


def grad_pass_through(f):
    """``f`` whose gradient is the identity: the upstream gradient flows to ``f``'s inputs as if
    ``f`` were ``tf.identity`` (TF's ``tf.grad_pass_through``: e.g. through an assign), and the
    variables ``f`` reads get none."""
    @custom_gradient
    def _grad_pass_through_op(*args, **kwargs):
        def grad(*args, **kwargs):
            variables = kwargs.get("variables")
            if variables is not None:
                return args, [None] * len(variables)
            return args
        return f(*args, **kwargs), grad
    return functools.wraps(f)(_grad_pass_through_op)

