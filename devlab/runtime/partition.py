"""TensorFlow's partition graphs of a plan: one GraphDef per device holding that device's ops,
plus a ``_Send`` on the producer's device and a ``_Recv`` on the consumer's for each transfer.

Built only when a run asks for them (``RunOptions(output_partition_graphs=True)``); devlab's
executor never needs them.
"""
from ..framework.operation import NodeDef
from .protos import GraphDef
from .steps import OpStep


def partition_graphs(plan):
    """Each device's ops in execution order, then the _Send/_Recv nodes of its transfers."""
    graphs = {}
    for step in plan.flat_steps():
        if isinstance(step, OpStep):
            op, device = step.op, step.device
            nd = op.node_def
            graphs.setdefault(device.name, GraphDef()).node.append(
                NodeDef(op.name, op.type, nd.input, device.name, nd.attr))
    for step in plan.transfers:
        src, dst, t = step.src, step.device, step.tensor
        attrs = {"tensor_name": f"edge_{t.op.id}_{t.op.name}", "send_device": src.name, "recv_device": dst.name,
                 "client_terminated": False}
        graphs.setdefault(src.name, GraphDef()).node.append(
            NodeDef(step.send_name, "_Send", [t.name if t.value_index else t.op.name], src.name, attrs))
        graphs.setdefault(dst.name, GraphDef()).node.append(NodeDef(step.recv_name, "_Recv", [], dst.name, attrs))
    return [graphs[k] for k in sorted(graphs)]
