"""Static shape and dtype rules of the stack ops (see ``data_flow_kernels.py``)."""
from ..framework import dtypes


def stack(inputs, attrs):
    """StackV2: one scalar handle."""
    return [(dtypes.resource, ())]


def stack_push(inputs, attrs):
    """StackPushV2: the element pushed."""
    elem = inputs[1]
    return [(elem.dtype.base_dtype, elem.shape.dims)]


def stack_pop(inputs, attrs):
    """StackPopV2: an element of the stack's type, shape unknown until the builder sets it."""
    return [(attrs["elem_type"], None)]
