"""A cost model for simulated GPUs: how long an op or a copy *would* take on real hardware.

Measured times on a numpy-backed GPU say nothing about a GPU, so each op and transfer on a
simulated device also gets a modelled duration:

    op       = launch_latency + max(flops / flop_rate, bytes / memory_bandwidth)
    transfer = transfer_latency + bytes / bandwidth(src, dst)

where the bandwidth is host<->device over PCIe, or device<->device over NVLink. The defaults
describe a current data-centre GPU (H100 SXM: ~60 TFLOP/s fp32, ~3 TB/s HBM, PCIe 5, NVLink 4)
and its host; change them with ``CostModel(...)`` or ``devlab.timeline.set_cost_model``.
"""
from dataclasses import dataclass


@dataclass(frozen=True)
class CostModel:
    launch_latency_s: float = 5e-6  # one kernel launch
    gpu_flop_rate: float = 60e12  # fp32 FLOP/s
    gpu_memory_bandwidth: float = 3.0e12  # bytes/s
    cpu_flop_rate: float = 100e9  # a few cores, vectorised
    cpu_memory_bandwidth: float = 20e9
    cpu_op_overhead_s: float = 1e-6
    transfer_latency_s: float = 10e-6
    host_device_bandwidth: float = 25e9  # PCIe 5 x16, achieved
    peer_bandwidth: float = 300e9  # NVLink 4, achieved per direction

    def op_seconds(self, device_type, flops, nbytes):
        """Modelled time of one op on a device of ``device_type``."""
        if device_type == "GPU":
            return self.launch_latency_s + max(flops / self.gpu_flop_rate, nbytes / self.gpu_memory_bandwidth)
        return self.cpu_op_overhead_s + max(flops / self.cpu_flop_rate, nbytes / self.cpu_memory_bandwidth)

    def transfer_seconds(self, src_type, dst_type, nbytes):
        """Modelled time to copy ``nbytes`` from a ``src_type`` device to a ``dst_type`` one."""
        if src_type == "GPU" and dst_type == "GPU":
            bandwidth = self.peer_bandwidth
        elif "GPU" in (src_type, dst_type):
            bandwidth = self.host_device_bandwidth
        else:
            bandwidth = self.cpu_memory_bandwidth
        return self.transfer_latency_s + nbytes / bandwidth


def op_flops(op_type, input_shapes, output_shapes):
    """Floating-point operations of one op: 2mnk for MatMul, 2 x output x window for a
    convolution (and its two gradients), else one per element touched."""
    if op_type == "MatMul" and len(input_shapes) == 2 and len(input_shapes[0]) == 2:
        (m, k), n = input_shapes[0], input_shapes[1][-1]
        return 2 * m * n * k
    if op_type in _CONVOLUTIONS and len(input_shapes) >= 2:
        # 2 * (output positions) * (window size) * (input channels), forward and backward alike
        window = input_shapes[1] if op_type != "Conv2DBackpropFilter" else output_shapes[0] if output_shapes else ()
        grad = input_shapes[-1] if op_type != "Conv2D" else output_shapes[0] if output_shapes else ()
        if len(window) == 4 and len(grad) == 4:
            return 2 * _size(grad) * window[0] * window[1] * window[2]
    elements = [_size(s) for s in list(input_shapes) + list(output_shapes)]
    return max(elements) if elements else 0


_CONVOLUTIONS = ("Conv2D", "Conv2DBackpropInput", "Conv2DBackpropFilter")


def _size(shape):
    n = 1
    for d in shape:
        n *= d
    return n


DEFAULT = CostModel()
