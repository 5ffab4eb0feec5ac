"""Kernels of the ops that keep values for the rest of a run: stacks (``StackV2``, pushed by a
while loop and popped by its gradient loop, last in first out).

A stack lives in one run only: ``StackV2`` makes a fresh one each time it runs, and the handle
(a ``resource`` tensor) is what the other ops receive. The placer keeps every op that takes a
handle on the device of the op that made it, as TensorFlow does for resource edges.
"""
from ..framework import errors


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
    return Stack(k.attrs.get("stack_name") or k.op_name, k.attrs["elem_type"], int(max_size))


def stack_push(k, handle, elem):
    """Pushes ``elem``; returns it, as TF's StackPushV2 does."""
    if 0 <= handle.max_size <= len(handle.items):
        raise errors.InvalidArgumentError(None, None, f"Stack[{handle.name}] overflowed its max_size "
                                                      f"({handle.max_size})")
    handle.items.append(elem)
    return elem


def stack_pop(k, handle):
    if not handle.items:
        raise errors.InvalidArgumentError(None, None, f"Stack[{handle.name}] is empty.")
    return handle.items.pop()


def control_trigger(k):
    """Nothing: the op only orders others (and runs even when what it waits for was DEAD)."""
    return None


control_trigger.live_controls = True
