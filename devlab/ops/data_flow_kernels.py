"""Kernels of the ops that keep values for the rest of a run: stacks (``StackV2``, pushed by a
while loop and popped by its gradient loop, last in first out) and TensorArrays (``TensorArrayV3``,
one tensor per index, written and read by the steps of ``tf.nn.dynamic_rnn``).

Both live in one run only: ``StackV2`` or ``TensorArrayV3`` makes a fresh one each time it runs,
and the handle (a ``resource`` tensor) is what the other ops receive. The placer keeps every op
that takes a handle on the device of the op that made it, as TensorFlow does for resource edges.
A TensorArray op also takes and gives a ``flow`` scalar: it carries no data, only the order of
the writes and reads (a read waits for the write whose flow it takes).
"""
import itertools

import numpy as np

from ..framework import errors
from .kernels import to_host

_IDS = itertools.count()  # TF names each stack or array it makes in a process: <name>_<n>


def _resource_name(k, attr):
    return f"{k.attrs.get(attr) or k.op_name}_{next(_IDS)}"


class Stack:
    """A stack of tensors (TF's ``Stack`` resource): what one ``StackV2`` made in one run."""

    __slots__ = ("name", "elem_type", "max_size", "items")

    def __init__(self, name, elem_type, max_size):
        self.name, self.elem_type, self.max_size = name, elem_type, max_size
        self.items = []

    def __repr__(self):
        return f"<Stack {self.name}: {len(self.items)} elements>"


def stack(k, max_size):
    """A new, empty stack (``max_size`` < 0: no limit)."""
    return Stack(_resource_name(k, "stack_name"), k.attrs["elem_type"], int(max_size))


def stack_push(k, handle, elem):
    """Pushes ``elem``; returns it, as TF's StackPushV2 does."""
    if 0 <= handle.max_size <= len(handle.items):
        raise errors.InvalidArgumentError(None, None, f"Stack[{handle.name}] overflowed its max_size "
                                                      f"({handle.max_size})")
    handle.items.append(elem)
    return elem


def stack_pop(k, handle):
    if not handle.items:
        raise errors.InvalidArgumentError(None, None, f"Stack[{handle.name}] is empty when calling Pop().")
    return handle.items.pop()


def control_trigger(k):
    """Nothing: the op only orders others (and runs even when what it waits for was DEAD)."""
    return None



# -- TensorArrays ------------------------------------------------------------------------------------
class TensorArray:
    """TF's ``TensorArray`` resource: ``size`` slots of tensors of one dtype. A slot never written
    reads as zeros when the element shape is fully known (a gradient array's slots that nothing
    flowed back to). A gradient array (``TensorArrayGradV3``) sums what is written to one slot;
    its forward array keeps it, one per gradient computation (``source``)."""

    __slots__ = ("name", "dtype", "element_shape", "dynamic_size", "values", "is_grad", "grads")

    def __init__(self, name, dtype, size, element_shape, dynamic_size, is_grad=False):
        self.name, self.dtype, self.element_shape = name, dtype, element_shape
        self.dynamic_size, self.is_grad = dynamic_size, is_grad
        self.values = [None] * size
        self.grads = {}

    def __repr__(self):
        return f"<TensorArray {self.name}: {sum(v is not None for v in self.values)}/{len(self.values)} written>"

    def _error(self, text):
        return errors.InvalidArgumentError(None, None, f"TensorArray {self.name}: {text}")

    def write(self, index, value):
        index = int(index)
        if index < 0:
            raise self._error(f"Tried to write to index {index} but array size is: {len(self.values)}")
        if index >= len(self.values):
            if not self.dynamic_size:
                raise self._error(f"Tried to write to index {index} but array is not resizeable and size is: "
                                  f"{len(self.values)}")
            self.values.extend([None] * (index + 1 - len(self.values)))
        old = self.values[index]
        if old is not None and not self.is_grad:
            raise self._error(f"Could not write to TensorArray index {index} because it has already been written to.")
        self.values[index] = value if old is None else old + value

    def read(self, k, index):
        index = int(index)
        if not 0 <= index < len(self.values):
            raise self._error(f"Tried to read from index {index} but array size is: {len(self.values)}")
        value = self.values[index]
        if value is None:
            shape = self.element_shape
            if shape is not None and None not in shape:
                return k.xp.zeros(shape, dtype=self.dtype.as_numpy_dtype)
            shown = "<unknown>" if shape is None else "[" + ",".join("?" if d is None else str(d) for d in shape) + "]"
            raise self._error(f"Could not read from TensorArray index {index}.  Furthermore, the element shape is "
                              f"not fully defined: {shown}.  It is possible you are working with a resizeable "
                              f"TensorArray and stop_gradients is not allowing the gradients to be written.  If you "
                              f"set the full element_shape property on the forward TensorArray, the proper "
                              f"all-zeros tensor will be returned instead of incurring this error.")
        return value


def _flow(flow_in):
    return np.float32(float(flow_in))  # float(): a real GPU's 0-d array is read explicitly


def tensor_array(k, size):
    """A new TensorArray of ``size`` slots, and its first flow."""
    attrs = k.attrs
    shape = attrs.get("element_shape")
    shape = tuple(shape) if shape is not None else None
    ta = TensorArray(_resource_name(k, "tensor_array_name"), attrs["dtype"], int(size), shape,
                     bool(attrs.get("dynamic_size")))
    return ta, np.float32(0)


def tensor_array_write(k, handle, index, value, flow_in):
    handle.write(index, value)
    return _flow(flow_in)


def tensor_array_read(k, handle, index, flow_in):
    return handle.read(k, index)


def tensor_array_scatter(k, handle, indices, value, flow_in):
    """Writes ``value[i]`` to slot ``indices[i]``."""
    indices = to_host(indices).reshape(-1)
    if len(indices) != len(value):
        raise errors.InvalidArgumentError(None, None, f"Expected len(indices) == values.shape[0], but saw: "
                                                      f"{len(indices)} vs. {len(value)}")
    for i, index in enumerate(indices):
        handle.write(index, value[i])
    return _flow(flow_in)


def tensor_array_gather(k, handle, indices, flow_in):
    """The slots ``indices``, stacked along a new first axis."""
    return k.xp.stack([handle.read(k, i) for i in to_host(indices).reshape(-1)])


def tensor_array_grad(k, handle, flow_in):
    """The gradient array of ``handle`` for this ``source`` (made on first use: same size and shape)."""
    source = k.attrs.get("source", "")
    grad = handle.grads.get(source)
    if grad is None:
        grad = handle.grads[source] = TensorArray(f"{handle.name}@{source}", handle.dtype, len(handle.values),
                                                  handle.element_shape, False, is_grad=True)
        if handle.element_shape is None:  # the forward writes tell the shape of the zeros
            written = next((v for v in handle.values if v is not None), None)
            grad.element_shape = tuple(written.shape) if written is not None else None
    return grad, _flow(flow_in)


def tensor_array_size(k, handle, flow_in):
    return np.int32(len(handle.values))
