"""A real GPU's kernels read their shape-like inputs from host memory, as TF's GPU kernels do
(their ``HostMemory`` args in TF's kernel registry): the plan moves those values to the task's CPU.
CuPy refuses to turn a device array into a numpy one implicitly, so without this every Fill,
Reshape, Tile or Range on a real GPU failed. The plans are checked here without a GPU."""
import numpy as np
import pytest

import devlab as tf
from devlab.devices.device import Device
from devlab.ops.kernel_registry import host_memory_args
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
        dims = tf.constant([2, 3], tf.int64, name="dims")  # an int64 constant TF keeps on the GPU
        x = tf.fill(dims, tf.constant(1.5, name="value"), name="fill")
        y = tf.reshape(tf.tile(x, tf.constant([1, 2], name="multiples")), tf.constant([4, 3], name="shape"))
        return tf.reduce_sum(y * 2.0, axis=tf.constant(1, name="axis"))


def test_a_real_gpus_host_memory_inputs_are_moved_to_the_tasks_cpu():
    total = _build()
    gpu = Device("localhost", 0, 0, "GPU", 0, np, physical_id=0)  # not simulated: a CuPy device
    assert gpu.backend == "cupy"
    plan = _plan(total, gpu)
    moved = sorted((t.tensor.op.name, t.src.device_type, t.device.device_type) for t in plan.transfers)
    # the int64 dims go to the CPU; the int32 constants are made there (TF keeps int32 in host
    # memory); the filled value and the data stay on the GPU
    assert moved == [("dims", "GPU", "CPU")]
    made = {s.op.name: s.device.device_type for s in plan.flat_steps() if not hasattr(s, "alias")}
    assert [made[n] for n in ("multiples", "shape", "axis", "value", "fill")] == ["CPU", "CPU", "CPU", "GPU", "GPU"]
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
    (lambda: tf.fill([2], 1.0), ((0,), False)),
    (lambda: tf.range(0, 4, 2), ((0, 1, 2), True)),  # int32: TF's "GPU" kernel runs on the host
    (lambda: tf.range(0.0, 4.0, 2.0), ((0, 1, 2), False)),
    (lambda: tf.concat([tf.ones([2]), tf.ones([2]), tf.ones([1])], 0), ((3,), False)),  # the axis after N values
    (lambda: tf.concat([tf.constant([1]), tf.constant([2])], 0), ((0, 1, 2), True)),
    (lambda: tf.shape(tf.ones([2, 3])), ((), True)),  # the shape is read on the host; the data stays
    (lambda: tf.ones([2]) + 1.0, ((), False)),
])
def test_host_memory_args_follow_tfs_gpu_kernel_registry(build, expected):
    assert host_memory_args(build().op) == expected


def test_int32_ops_on_a_real_gpu_run_on_the_host_and_their_float_readers_get_device_copies():
    with tf.device("/gpu:0"):
        n = tf.constant([3], name="n")
        size = tf.add(n, tf.constant([1], name="one"), name="size")  # int32: lives in host memory
        x = tf.fill(size, 2.0, name="x")
        y = tf.cast(size, tf.float32, name="y") * x  # a float kernel on the GPU reads the int32 sum
    gpu = Device("localhost", 0, 0, "GPU", 0, np, physical_id=0)
    plan = _plan(y, gpu)
    steps = {s.op.name: s for s in plan.flat_steps() if not hasattr(s, "alias")}
    assert steps["size"].device.device_type == "CPU" and steps["x"].device is gpu
    moved = sorted((t.tensor.op.name, t.src.device_type, t.device.device_type) for t in plan.transfers)
    assert moved == [("size", "CPU", "GPU")]  # to Cast; Fill reads its dims where they are


def _written(plan):
    slots = {s for s, v in enumerate(plan.initial) if v is not None}
    for step in plan.flat_steps():
        slots.update(getattr(step, "outputs", ()) if not hasattr(step, "alias") else (step.output,))
    return slots


def test_a_loops_int32_counter_on_a_real_gpu_stays_on_the_host_back_edge_included():
    with tf.device("/gpu:0"):
        _, total = tf.while_loop(lambda i, acc: i < 3, lambda i, acc: (i + 1, acc * 2.0),
                                 [tf.constant(0), tf.constant(1.5)])
    gpu = Device("localhost", 0, 0, "GPU", 0, np, physical_id=0)
    plan = _plan(total, gpu)
    written = _written(plan)
    assert all(t.input in written for t in plan.transfers)  # no copy of a value no step makes
    where = {(s.op.type, s.op.outputs[0].dtype.name): s.device.device_type for s in plan.flat_steps()
             if not hasattr(s, "alias") and s.op.outputs}
    assert where[("NextIteration", "int32")] == where[("Merge", "int32")] == where[("Less", "bool")] == "CPU"
    assert where[("NextIteration", "float32")] == where[("Mul", "float32")] == "GPU"


def test_tensor_array_handles_are_not_moved_to_the_host_as_arrays():
    with tf.device("/gpu:0"):
        ta = tf.TensorArray(tf.float32, size=2).unstack(tf.constant([[1.0, 2.0], [3.0, 4.0]]))
        out = ta.read(1)
    gpu = Device("localhost", 0, 0, "GPU", 0, np, physical_id=0)
    plan = _plan(out, gpu)
    assert not [t for t in plan.transfers if t.tensor.dtype in (tf.resource, tf.variant, tf.string)]


def test_a_loop_gradients_stack_handles_reach_host_kernels_as_they_are():
    """The gradient of a loop with a cond pushes the cond's bool branch on a stack from a kernel TF
    runs on the host: the stack's handle, made on the GPU, is a host object: handed over, never copied."""
    with tf.device("/gpu:0"):
        x = tf.constant([1.0, 2.0], name="x")
        _, y = tf.while_loop(lambda i, v: i < 4, lambda i, v: (i + 1, tf.cond(i < 2, lambda: v * x, lambda: v + x)),
                             [tf.constant(0), x])
        grad = tf.gradients(y, x)[0]
    gpu = Device("localhost", 0, 0, "GPU", 0, np, physical_id=0)
    plan = _plan(grad, gpu)
    handles = [t for t in plan.transfers if t.tensor.dtype in (tf.resource, tf.variant)]
    assert handles and all(t.alias for t in handles)
    assert all(t.input in _written(plan) for t in plan.transfers)


def test_a_kernel_reading_a_variables_reference_stays_beside_the_variable():
    with tf.device("/gpu:0"):
        v = tf.Variable([1.0, 2.0], name="v")
        ready = tf.is_variable_initialized(v)  # its bool output is host memory on a GPU
    gpu = Device("localhost", 0, 0, "GPU", 0, np, physical_id=0)
    plan = _plan(ready, gpu)
    assert not plan.transfers
    assert next(s for s in plan.flat_steps() if s.op is ready.op).device is gpu


class _DeviceScalar:
    """Stands for a real GPU's 0-d array: readable with float(), never converted implicitly."""

    def __float__(self):
        return 3.0

    def __array__(self, *args, **kwargs):
        raise TypeError("Implicit conversion to a NumPy array is not allowed")


def test_a_tensor_arrays_flow_from_a_gpu_is_read_explicitly():
    from devlab.ops.data_flow_kernels import _flow
    assert _flow(_DeviceScalar()) == np.float32(3.0)


def test_a_fed_int32_tensor_on_a_real_gpu_is_fed_where_its_readers_look_for_it():
    with tf.device("/gpu:0"):
        dims = tf.placeholder_with_default(tf.constant([2], name="two"), [1], name="dims")  # int32: host memory
        x = tf.fill(dims, 1.0, name="x")
    cpu = Device("localhost", 0, 0, "CPU", 0, np)
    gpu = Device("localhost", 0, 0, "GPU", 0, np, physical_id=0)
    placement = Placement([cpu, gpu], assigned={op.name: gpu for op in x.graph.get_operations()})
    plan = compile_plan([x], [dims], placement, {})
    (slot, _, device), = plan.feed_slots
    fill = next(s for s in plan.flat_steps() if s.op is x.op)
    assert device is cpu and fill.inputs[0] == slot and not plan.transfers


def test_a_replicated_constant_reaches_an_int32_kernel_a_gpu_runs_on_the_host():
    """TF copies a small CPU constant read on several devices to each reader's task CPU; an int32
    reader placed on a GPU runs on that CPU, and reads the copy there."""
    cpu0, cpu1 = Device("localhost", 0, 0, "CPU", 0, np), Device("localhost", 0, 0, "CPU", 1, np)
    gpu = Device("localhost", 0, 0, "GPU", 0, np, physical_id=0)
    with tf.device("/cpu:0"):
        k = tf.constant([3], name="k")
    with tf.device("/cpu:1"):
        a = tf.add(k, 1, name="a")
    with tf.device("/gpu:0"):
        b = tf.add(k, 2, name="b")  # int32: TF's GPU kernel is a host one
    total = tf.add(a, b, name="total")
    assigned = {op.name: {"a": cpu1, "b": gpu}.get(op.name, cpu0) for op in total.graph.get_operations()}
    plan = compile_plan([total], [], Placement([cpu0, cpu1, gpu], assigned=assigned), {})
    steps = {s.op.name: s for s in plan.flat_steps() if not hasattr(s, "alias")}
    assert steps["b"].device is cpu0
    assert all(t.input in _written(plan) for t in plan.transfers)
