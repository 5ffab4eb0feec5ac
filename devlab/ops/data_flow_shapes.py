"""Static shape and dtype rules of the stack and TensorArray ops (see ``data_flow_kernels.py``)."""
from ..framework import dtypes


def stack(inputs, attrs):
    """StackV2: one scalar handle."""
    return [(dtypes.resource, ())]


def stack_push(inputs, attrs):
    """StackPushV2: the element pushed."""
    elem = inputs[1]
    return [(elem.dtype.base_dtype, elem.shape.sizes)]


def stack_pop(inputs, attrs):
    """StackPopV2: an element of the stack's type, shape unknown until the builder sets it."""
    return [(attrs["elem_type"], None)]


def tensor_array(inputs, attrs):
    """TensorArrayV3: a handle and the first flow."""
    return [(dtypes.resource, ()), (dtypes.float32, ())]


def flow(inputs, attrs):
    """A write or scatter: the next flow."""
    return [(dtypes.float32, ())]


def tensor_array_read(inputs, attrs):
    """TensorArrayReadV3: an element (its shape is set by the builder)."""
    return [(attrs["dtype"], None)]


def tensor_array_gather(inputs, attrs):
    """TensorArrayGatherV3: the elements stacked (the builder sets their shape)."""
    return [(attrs["dtype"], None)]


def tensor_array_grad(inputs, attrs):
    return [(dtypes.resource, ()), (dtypes.float32, ())]


def tensor_array_size(inputs, attrs):
    return [(dtypes.int32, ())]
