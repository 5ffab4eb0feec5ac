"""A real GPU's kernels read their shape-like inputs from host memory, as TF's GPU kernels do
(their ``HostMemory`` args in TF's kernel registry): the plan moves those values to the task's CPU.
CuPy refuses to turn a device array into a numpy one implicitly, so without this every Fill,
Reshape, Tile or Range on a real GPU failed. The plans are checked here without a GPU."""
import numpy as np
import pytest

import devlab as tf
from devlab.devices.device import Device
from devlab.ops.kernel_registry import host_memory_inputs
from devlab.placer.placer import Placement
from devlab.runtime.plan import compile_plan


def _plan(fetch, gpu):
    cpu = Device("localhost", 0, 0, "CPU", 0, np)
    devices = [cpu, gpu]
    g = fetch.graph
    placement = Placement(devices, assigned={op.name: gpu for op in g.get_operations()})
    return compile_plan([fetch], [], placement, {})


def _build():
    with tf.device("/gpu:0"):
        dims = tf.constant([2, 3], name="dims")
        x = tf.fill(dims, tf.constant(1.5, name="value"), name="fill")
        y = tf.reshape(tf.tile(x, tf.constant([1, 2], name="multiples")), tf.constant([4, 3], name="shape"))
        return tf.reduce_sum(y * 2.0, axis=tf.constant(1, name="axis"))


def test_a_real_gpus_host_memory_inputs_are_moved_to_the_tasks_cpu():
    total = _build()
    gpu = Device("localhost", 0, 0, "GPU", 0, np, physical_id=0)  # not simulated: a CuPy device
    assert gpu.backend == "cupy"
    plan = _plan(total, gpu)
    moved = sorted((t.tensor.op.name, t.src.device_type, t.device.device_type) for t in plan.transfers)
    # the dims, multiples, shape and axis go to the CPU; the filled value and the data stay on the GPU
    assert moved == [("axis", "GPU", "CPU"), ("dims", "GPU", "CPU"), ("multiples", "GPU", "CPU"),
                     ("shape", "GPU", "CPU")]
    fill = next(s for s in plan.flat_steps() if getattr(s, "op", None) is not None and s.op.name == "fill"
                and not hasattr(s, "alias"))
    slots_on_cpu = {t.output for t in plan.transfers}
    assert fill.inputs[0] in slots_on_cpu and fill.inputs[1] not in slots_on_cpu


def test_a_simulated_gpu_keeps_every_input_where_it_is_and_computes_the_same():
    total = _build()
    gpu = Device("localhost", 0, 0, "GPU", 0, np, simulated=True)
    assert _plan(total, gpu).transfers == []
    with tf.Session(config=tf.ConfigProto(device_count={"GPU": 1})) as s:
        assert s.run(total).tolist() == [9.0] * 4


@pytest.mark.parametrize("build, expected", [
    (lambda: tf.fill([2], 1.0), (0,)),
    (lambda: tf.range(0, 4, 2), (0, 1, 2)),
    (lambda: tf.concat([tf.ones([2]), tf.ones([2]), tf.ones([1])], 0), (3,)),  # the axis after N values
    (lambda: tf.ones([2]) + 1.0, ()),
])
def test_host_memory_inputs_follow_tfs_gpu_kernel_registry(build, expected):
    assert host_memory_inputs(build().op) == expected
