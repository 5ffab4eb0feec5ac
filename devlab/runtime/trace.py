"""Recording a run from its step events: the measured time of each step and a modelled time.

The executor runs steps one after another, so measured times never overlap. The *modelled*
schedule says what a real machine would do: each device computes its ops in order, each
transfer runs on a copy lane of its own, and a step starts once its inputs are ready. On
simulated GPUs this is the timeline worth reading (towers overlap, copies show their cost).
"""
from dataclasses import dataclass

import numpy as np

from ..devices.cost_model import DEFAULT, op_flops
from ..devices.transfer import nbytes
from .events import StepFinished, Transfer
from .protos import (AllocationDescription, DeviceStepStats, NodeExecStats, NodeOutput, StepStats,
                     TensorDescription)
from .steps import OpStep
from .variable_store import VarRef


@dataclass
class StepRecord:
    """What one step did: the step, its measured start/end (seconds), bytes touched, FLOPs, and
    per array output (slot, dtype, shape, bytes, buffer address)."""
    step: object
    start: float
    end: float
    nbytes: int
    flops: int
    outputs: tuple = ()


def _buffer(value):
    """The address of an array's data (numpy's or CuPy's), or None for other values."""
    interface = getattr(value, "__array_interface__", None) or getattr(value, "__cuda_array_interface__", None)
    return None if interface is None else interface["data"][0]


class Tracer:
    """Subscribes to a run's step events and builds TF's StepStats from them."""

    def __init__(self):
        self.records = []
        self.origin = None

    def __call__(self, event):
        if isinstance(event, StepFinished):
            ins = [v for v in event.inputs if not isinstance(v, VarRef)]
            outs = [v for v in event.outputs if v is not None and not isinstance(v, VarRef)]
            flops = op_flops(event.step.op.type, [np.shape(v) for v in ins], [np.shape(v) for v in outs])
            described = tuple((slot, str(v.dtype), tuple(np.shape(v)), nbytes(v), _buffer(v))
                              for slot, v in enumerate(event.outputs)
                              if v is not None and not isinstance(v, VarRef) and _buffer(v) is not None)
            self._add(StepRecord(event.step, event.start, event.end, sum(map(nbytes, ins + outs)), flops, described))
        elif isinstance(event, Transfer):
            self._add(StepRecord(event.step, event.start, event.end, event.nbytes, 0))

    def _add(self, record):
        if self.origin is None:
            self.origin = record.start
        self.records.append(record)

    def step_stats(self, cost_model=DEFAULT):
        """TF's StepStats, with devlab's modelled times beside the measured ones."""
        modelled = schedule(self.records, cost_model)
        by_device = {}
        for rec, (m_start, m_dur) in zip(self.records, modelled):
            step = rec.step
            if isinstance(step, OpStep):
                node, op_type = step.op.name, step.op.type
                label = f"{node} = {op_type}({', '.join(t.op.name for t in step.op.inputs)})"
                source, tensor = "", ""
            else:
                node, op_type = step.recv_name, "_Recv"
                label = f"{node} = _Recv({step.tensor.name}) from {step.src.name}"
                source, tensor = step.src.name, step.tensor.name
            stats = NodeExecStats(node, op_type, (rec.start - self.origin) * 1e6, (rec.end - rec.start) * 1e6, label,
                                  m_start * 1e6, m_dur * 1e6, rec.nbytes, source, tensor,
                                  [NodeOutput(slot, TensorDescription(dtype, shape, AllocationDescription(
                                      size, size, step.device.device_type.lower() if isinstance(step, OpStep)
                                      else "", ptr))) for slot, dtype, shape, size, ptr in rec.outputs])
            dev = by_device.setdefault(step.device.name, DeviceStepStats(step.device.name, [], step.device.simulated))
            dev.node_stats.append(stats)
        return StepStats([by_device[k] for k in sorted(by_device)])


def schedule(records, cost_model=DEFAULT):
    """Modelled (start, duration) in seconds for each record, honouring data dependencies.

    A value is ready per (slot, device): a copy makes it ready on its destination, even when the
    copy is an alias of the producer's slot.
    """
    ready = {}
    lane_free = {}
    out = []
    for rec in records:
        step = rec.step
        if isinstance(step, OpStep):
            lane = ("compute", step.device.name)
            dur = cost_model.op_seconds(step.device.device_type, rec.flops, rec.nbytes)
            reads = [(s, step.device.name) for s in step.inputs]
            writes = [(s, step.device.name) for s in step.outputs]
        else:
            lane = ("copy", step.src.name, step.device.name)
            dur = cost_model.transfer_seconds(step.src.device_type, step.device.device_type, rec.nbytes)
            reads, writes = [(step.input, step.src.name)], [(step.output, step.device.name)]
        start = max([lane_free.get(lane, 0.0)] + [ready.get(key, 0.0) for key in reads])
        if isinstance(step, OpStep):  # control edges: wait for the control inputs too
            start = max([start] + [ready.get(("op", c.name), 0.0) for c in step.op.control_inputs])
            ready[("op", step.op.name)] = start + dur
        lane_free[lane] = start + dur
        for key in writes:
            ready[key] = start + dur
        out.append((start, dur))
    return out
