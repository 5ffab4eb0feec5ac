"""TF's raw stack wrappers (``gen_data_flow_ops.stack_v2``, ``stack_push_v2``, ``stack_pop_v2``):
a stack resource that ops push tensors onto and pop them from, the store a while loop's gradient
keeps its forward values in (``control_flow_state.py``), offered to programs that build one."""
from ..framework import dtypes
from ..ops.build import op


def stack_v2(max_size, elem_type, stack_name="", name=None):
    """A new stack of ``elem_type`` tensors (``max_size`` -1: no bound); its handle."""
    return op("StackV2", name, [("max_size", max_size, dtypes.int32)],
              {"elem_type": dtypes.as_dtype(elem_type), "stack_name": stack_name}).outputs[0]


def stack_push_v2(handle, elem, swap_memory=False, name=None):
    """Pushes ``elem``; its value is the tensor pushed."""
    return op("StackPushV2", name, [("handle", handle, None), ("elem", elem, None)],
              {"swap_memory": bool(swap_memory)}).outputs[0]


def stack_pop_v2(handle, elem_type, name=None):
    """The tensor on top, removed from the stack."""
    return op("StackPopV2", name, [("handle", handle, None)], {"elem_type": dtypes.as_dtype(elem_type)}).outputs[0]
