"""Recording a run: the measured time of each step and, for every device, a modelled time.

The executor runs steps one after another, so measured times never overlap. The *modelled*
schedule says what a real machine would do: each device computes its ops in order, each
transfer runs on a copy lane of its own, and a step starts once its inputs are ready. On
simulated GPUs this is the timeline worth reading (towers overlap, copies show their cost).
"""
from dataclasses import dataclass

import numpy as np

from ..devices.cost_model import DEFAULT, op_flops
from ..devices.transfer import nbytes
from .protos import DeviceStepStats, NodeExecStats, StepStats
from .variable_store import VarRef


@dataclass
class StepRecord:
    """What one step did: the step, its measured start/end (seconds) and bytes produced."""
    step: object
    start: float
    end: float
    nbytes: int
    flops: int


class Tracer:
    """Collects a StepRecord per executed step (pass ``tracer.record`` to ``run_step``)."""

    def __init__(self):
        self.records = []
        self.origin = None

    def record(self, step, start, end, values):
        if self.origin is None:
            self.origin = start
        outs = [values[s] for s in step.outputs]
        out_bytes = sum(nbytes(v) for v in outs if not isinstance(v, VarRef))
        flops = 0
        if step.kind == "op":
            ins = [values[s] for s in step.inputs]
            flops = op_flops(step.op.type, [np.shape(v) for v in ins if not isinstance(v, VarRef)],
                             [np.shape(v) for v in outs if v is not None and not isinstance(v, VarRef)])
            out_bytes += sum(nbytes(v) for v in ins if not isinstance(v, VarRef))
        self.records.append(StepRecord(step, start, end, out_bytes, flops))

    def step_stats(self, cost_model=DEFAULT):
        """TF's StepStats, with devlab's modelled times beside the measured ones."""
        modelled = schedule(self.records, cost_model)
        by_device = {}
        for rec, (m_start, m_dur) in zip(self.records, modelled):
            step = rec.step
            if step.kind == "transfer":
                node, op_type = step.recv_name, "_Recv"
                label = f"{node} = _Recv({step.tensor.name}) from {step.src_device.name}"
            else:
                node, op_type = step.op.name, step.op.type
                label = f"{node} = {op_type}({', '.join(t.op.name for t in step.op.inputs)})"
            stats = NodeExecStats(node, op_type, (rec.start - self.origin) * 1e6, (rec.end - rec.start) * 1e6, label,
                                  m_start * 1e6, m_dur * 1e6, rec.nbytes,
                                  step.src_device.name if step.kind == "transfer" else "",
                                  step.tensor.name if step.kind == "transfer" else "")
            dev = by_device.setdefault(step.device.name, DeviceStepStats(step.device.name, [], step.device.simulated))
            dev.node_stats.append(stats)
        return StepStats([by_device[k] for k in sorted(by_device)])


def schedule(records, cost_model=DEFAULT):
    """Modelled (start, duration) in seconds for each record, honouring data dependencies."""
    ready = {}  # value slot -> time its value exists
    lane_free = {}
    out = []
    for rec in records:
        step = rec.step
        if step.kind == "transfer":
            lane = ("copy", step.src_device.name, step.device.name)
            dur = cost_model.transfer_seconds(step.src_device.device_type, step.device.device_type, rec.nbytes)
        else:
            lane = ("compute", step.device.name)
            dur = cost_model.op_seconds(step.device.device_type, rec.flops, rec.nbytes)
        start = max([lane_free.get(lane, 0.0)] + [ready.get(s, 0.0) for s in step.inputs])
        if step.kind == "op":  # control edges: wait for the control inputs' outputs too
            start = max([start] + [ready.get(("op", c.name), 0.0) for c in step.op.control_inputs])
            ready[("op", step.op.name)] = start + dur
        lane_free[lane] = start + dur
        for s in step.outputs:
            ready[s] = start + dur
        out.append((start, dur))
    return out
