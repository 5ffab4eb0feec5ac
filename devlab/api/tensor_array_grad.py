"""Gradient rules of the TensorArray ops (TF's ``tensor_array_grad.py``).

The gradient of a TensorArray is another TensorArray of the same size (``TensorArrayGradV3``,
one per ``tf.gradients`` call: its *source*, the ``gradients`` scope name). What was read from the
forward array is written to the gradient array, and what was written is read back: a read's
gradient is a write, a gather's a scatter, and the other way round. The flows order them: a
write's gradient waits (``write_barrier``) for the flow its forward write produced.
"""
from .array_ops import identity
from ..framework.scopes import control_dependencies
from .tensor_array_ops import TensorArray


def _grad_source(t):
    """Which ``tf.gradients`` call made ``t``: its name up to the last component starting with
    'gradients' (so two gradient computations get two gradient arrays)."""
    tokens = t.name.split("/")
    positions = [i for i, x in enumerate(tokens) if x.startswith("gradients")]
    if not positions:
        raise ValueError(f"Expected op/tensor name to start with gradients (excluding scope), got: {t.name}. This "
                         f"means that a tf.gradients op with this op in its dependency path has a custom name that "
                         f"does not start with 'gradients'. Please make sure all calls to tf.gradients that have "
                         f"non-empty `name` arguments use names that start with 'gradients'.")
    return "/".join(tokens[:positions[-1] + 1])


def _gradient_array(op, flow, dtype, source):
    return TensorArray(dtype, handle=op.inputs[0], flow=flow, colocate_with_first_write_call=False).grad(
        source=source, flow=flow)


def _read_grad(op, grad):
    handle, index, flow = op.inputs
    g = _gradient_array(op, flow, op.get_attr("dtype"), _grad_source(grad))
    return [None, None, g.write(index, grad).flow]


def _gather_grad(op, grad):
    handle, indices, flow = op.inputs
    g = _gradient_array(op, flow, op.get_attr("dtype"), _grad_source(grad))
    return [None, None, g.scatter(indices, grad).flow]


def _barrier(op, flow):
    """The incoming flow, only once the forward write's own flow exists."""
    flow_out = identity(op.outputs[0], "flow_out")
    with control_dependencies([flow_out]):
        return identity(flow, "write_barrier")


def _write_grad(op, flow):
    index = op.inputs[1]
    source = _grad_source(flow)
    flow = _barrier(op, flow)
    g = _gradient_array(op, flow, op.get_attr("T"), source)
    return [None, None, g.read(index), flow]


def _scatter_grad(op, flow):
    indices = op.inputs[1]
    source = _grad_source(flow)
    flow = _barrier(op, flow)
    g = _gradient_array(op, flow, op.get_attr("T"), source)
    return [None, None, g.gather(indices), flow]


GRADIENTS = {
    "TensorArrayReadV3": _read_grad,
    "TensorArrayGatherV3": _gather_grad,
    "TensorArrayWriteV3": _write_grad,
    "TensorArrayScatterV3": _scatter_grad,
}
NOT_DIFFERENTIABLE = {"TensorArrayV3", "TensorArrayGradV3", "TensorArraySizeV3"}
