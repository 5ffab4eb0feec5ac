"""The conditional accumulator resource and the kernels of TF's ``ResourceAccumulator*`` ops.

An accumulator averages (or sums) gradients for one variable until enough have come: it keeps
a *global step* of its own, takes a gradient only if it was computed at that step or later
(``local_step >= global_step``; an older one is stale and silently dropped), and
``take_grad(n)`` waits until ``n`` gradients are in, returns their mean, starts over empty and
moves its step on by one. ``SyncReplicasOptimizer`` puts one beside each variable on the ps, so
a step's update is the mean of the workers' gradients and a straggler's late gradient is
dropped. Like a queue, it changes when its op runs (not when the run commits), and a waiting
``take_grad`` ends early when its run is cancelled. The texts of the errors are TF 2.21's.
"""
import collections
import logging
import threading

import numpy as np

from ..framework import cancellation, errors
from .resource_mgr import resources_of


def _dims(shape):
    return "[" + ",".join("?" if d is None else str(d) for d in shape) + "]"


class ConditionalAccumulator:
    """The accumulator behind a ``ResourceConditionalAccumulator`` handle."""

    def __init__(self, name, dtype, shape, reduction_type="MEAN"):
        self.name = name
        self.dtype = dtype.base_dtype.as_numpy_dtype
        self.shape = None if shape is None else tuple(shape)  # None dims (or None): only partly known
        self.reduction_type = reduction_type
        self.global_step = 0
        self.counter = 0
        self._sum = None
        self._takers = collections.deque()  # the waiting take_grads, in the order they came
        self._cond = threading.Condition()

    def num_accumulated(self):
        with self._cond:
            return self.counter

    def set_global_step(self, step):
        with self._cond:
            if step < self.global_step:
                logging.getLogger("tensorflow").warning(
                    "Attempt to set current_global_step_ to smaller value: current_global_step_ = %d >= %d = "
                    "new_global_step.", self.global_step, step)
            self.global_step = step

    def apply(self, local_step, grad, xp):
        """Adds ``grad`` unless it is stale; a gradient of the wrong shape is TF's error."""
        with self._cond:
            if local_step < self.global_step:
                return  # stale: computed before the last update, so dropped
            shape = tuple(np.shape(grad))
            if self.shape is not None and (len(shape) != len(self.shape) or any(
                    d is not None and d != g for d, g in zip(self.shape, shape))):
                raise errors.InvalidArgumentError(
                    None, None, f"Shape mismatch: expected {_dims(self.shape)}, got {_dims(shape)}")
            if self._sum is not None and shape != tuple(self._sum.shape):
                raise errors.InvalidArgumentError(
                    None, None, f"Shape mismatch: expected {_dims(self._sum.shape)}, got {_dims(shape)}")
            grad = xp.asarray(grad, dtype=self.dtype)
            self._sum = grad.copy() if self._sum is None else self._sum + grad
            self.counter += 1
            self._cond.notify_all()

    def take(self, num_required, xp):
        """Waits for ``num_required`` gradients; returns their mean (or sum) and starts the next step."""
        if num_required < 1:
            raise errors.InvalidArgumentError(
                None, None, f"Argument num_required must be positive, but was {num_required}")
        with self._cond:
            me = object()
            self._takers.append(me)
            try:
                cancellation.wait(self._cond, lambda: self._takers[0] is me and self.counter >= num_required,
                                  _take_cancelled)
                total, count = self._sum, self.counter
                self._sum, self.counter = None, 0
                self.global_step += 1
            finally:
                self._takers.remove(me)
                self._cond.notify_all()
        if self.reduction_type == "SUM":
            return total
        return (total / xp.asarray(count, dtype=self.dtype)).astype(self.dtype, copy=False)


def _take_cancelled():
    return errors.CancelledError(None, None, "TakeGrad operation was cancelled")


# -- kernels ----------------------------------------------------------------------------------------------
def _accumulator(k, handle):
    return resources_of(k).lookup(handle, ConditionalAccumulator)


def resource_conditional_accumulator(k):
    a = k.attrs
    handle, _ = resources_of(k).create(
        a.get("container", ""), a.get("shared_name", ""), k.op_name,
        lambda name: ConditionalAccumulator(name, a["dtype"], a.get("shape"), a.get("reduction_type", "MEAN")))
    return handle


def resource_accumulator_apply_gradient(k, handle, local_step, gradient):
    _accumulator(k, handle).apply(int(local_step), gradient, k.xp)


def resource_accumulator_take_gradient(k, handle, num_required):
    return _accumulator(k, handle).take(int(num_required), k.xp)


def resource_accumulator_set_global_step(k, handle, new_global_step):
    _accumulator(k, handle).set_global_step(int(new_global_step))


def resource_accumulator_num_accumulated(k, handle):
    return np.asarray(_accumulator(k, handle).num_accumulated(), np.int32)

