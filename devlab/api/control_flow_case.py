"""``tf.case``: the first branch whose predicate holds, built as TF 1.x builds it, a chain of
``tf.cond``s nested from the last pair inwards (``case/cond``, ``case/cond/cond``...). With
``exclusive=True`` an ``Assert`` (at most one predicate true) runs before any branch; without a
``default`` the last pair becomes the default, guarded by Asserts that it really holds.
``tf.train.piecewise_constant`` is a case over the intervals of the step.
"""
import collections
import functools

from ..framework import dtypes
from ..framework.scopes import control_dependencies, name_scope
from ..framework.tensor import Tensor
from . import array_ops, math_ops
from .control_flow import cond
from .asserts import Assert


def _assert_at_most_n_true(predicates, n, msg):
    """An Assert that at most ``n`` of the bool scalars are true (their sum, as int32)."""
    preds_c = array_ops.stack(predicates, name="preds_c")
    num_true_conditions = math_ops.reduce_sum(array_ops.cast(preds_c, dtypes.int32), name="num_true_conds")
    condition = math_ops.less_equal(num_true_conditions, array_ops.constant(n, name="n_true_conds"))
    preds_names = ", ".join(getattr(p, "name", "?") for p in predicates)
    error_msg = ["%s: more than %d conditions (%s) evaluated as True:" % (msg, n, preds_names), preds_c]
    return Assert(condition, data=error_msg, summarize=len(predicates))


def _default_action(predicates, actions):
    """The last pair as the default: it runs only when no other predicate held, and asserts its own."""
    k = len(predicates) - 1
    predicate, action = predicates[k], actions[k]
    other_predicates, other_actions = predicates[:k], actions[:k]

    def default_action():
        others_msg = ("Implementation error: selected default action #%d was called, but some of other "
                      "predicates are True: " % k)
        default_msg = ("Input error: None of conditions evaluated as True:",
                       array_ops.stack(predicates, name="preds_c"))
        with control_dependencies([_assert_at_most_n_true(other_predicates, n=0, msg=others_msg),
                                   Assert(predicate, data=default_msg)]):
            return action()
    return default_action, other_predicates, other_actions


def _pairs(pred_fn_pairs):
    """TF's checks: (bool tensor, callable) pairs, from a list, a tuple or a dict (sorted by name)."""
    if not isinstance(pred_fn_pairs, (list, tuple, dict)):
        raise TypeError(f"'pred_fn_pairs' must be a list, tuple, or dict. Received: {type(pred_fn_pairs)}")
    if isinstance(pred_fn_pairs, collections.OrderedDict):
        pred_fn_pairs = list(pred_fn_pairs.items())
    elif isinstance(pred_fn_pairs, dict):
        pred_fn_pairs = sorted(pred_fn_pairs.items(), key=lambda item: item[0].name)
    for pair in pred_fn_pairs:
        if not isinstance(pair, tuple) or len(pair) != 2:
            raise TypeError(f"Each entry in 'pred_fn_pairs' must be a 2-tuple. Received {pair}.")
        pred, fn = pair
        if not isinstance(pred, Tensor):
            raise TypeError("pred must be a Tensor, got: %s" % pred)
        if pred.dtype.base_dtype != dtypes.bool:
            raise TypeError("pred must be Tensor of type bool: %s" % pred.name)
        if not callable(fn):
            raise TypeError("fn for pred %s must be callable." % pred.name)
    predicates, actions = zip(*pred_fn_pairs)
    return list(predicates), list(actions)


def case(pred_fn_pairs, default=None, exclusive=False, strict=False, name="case"):
    """The result of the first ``fn`` whose ``pred`` is true (else of ``default``)."""
    predicates, actions = _pairs(pred_fn_pairs)
    with name_scope(name, "case", [predicates]):
        if default is None:
            default, predicates, actions = _default_action(predicates, actions)
        fn = default
        for predicate, action in reversed(list(zip(predicates, actions))):
            fn = functools.partial(cond, predicate, true_fn=action, false_fn=fn, strict=strict)
        if exclusive:
            with control_dependencies([_assert_at_most_n_true(predicates, n=1, msg="Input error: exclusive=True")]):
                return fn()
        return fn()
