"""Static shape and dtype rules of the data-flow ops: stacks and TensorArrays (``data_flow_kernels.py``),
queues and gradient accumulators (``fifo_queue.py``, ``conditional_accumulator.py``). A handle is a
scalar resource (an accumulator's a 2-vector, as TF's shape function says); what comes out of a queue
or an accumulator is only known to the Python object that made it, which sets it on the outputs."""
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


def queue_handle(inputs, attrs):
    return [(dtypes.resource, ())]


def accumulator_handle(inputs, attrs):
    return [(dtypes.resource, (2,))]


def components(inputs, attrs):
    """A dequeue: one output per component type, shapes set by the queue's Python object."""
    return [(t.base_dtype, None) for t in attrs["component_types"]]


def of_dtype(inputs, attrs):
    return [(attrs["dtype"].base_dtype, None)]
