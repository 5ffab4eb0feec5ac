# Debugging a real model's placement from its graph file
# ======================================================
#
#     python examples/debug_a_model_graph.py          (pip install -e ".[graphs]" first)
#
# You have a TensorFlow 1.x model already. Its training script wrote the graph (an Estimator
# writes graph.pbtxt into its model directory, tf.train.Saver writes model.ckpt.meta,
# tf.io.write_graph writes .pb and .pbtxt), and you want to know, without the training
# environment: where would these ops go on 8 GPUs? What crosses between devices, and what do
# the copies cost? Why is this op on the CPU?
#
# The graph here was written by TensorFlow 2.21 (tf.compat.v1) with
# tools/record_tf_graphs.py: a CIFAR-10-sized CNN in four towers, the classic multi-GPU layout.
# Each tower runs under `assign_to_device("/gpu:%d" % i)`, a device function that sends
# variables to the host (/cpu:0) and everything else to the tower's GPU; the host also splits
# the batch, averages the gradients and applies the Momentum update.
import os
import tempfile

import devlab as tf

HERE = os.path.dirname(os.path.abspath(__file__))
GRAPH = os.path.join(HERE, "..", "tests", "data", "tf_graphs", "tower_cnn_gpu.pbtxt")

# 1. Open the file. devlab reads it with TensorBoard's copy of TensorFlow's protocol buffers and
#    checks every node against TensorFlow's op definitions; nothing in the file is executed.
#    Requested devices and colocation groups (_class) are kept exactly as the file has them.
graph = tf.load_graph(GRAPH)
print(f"{len(graph.get_operations())} ops; requested devices as written:")
for name in ("split_images", "tower_2/model/Conv2D", "model/conv1/weights", "average_gradients/Mean"):
    print(f"  {name:28s} {graph.get_operation_by_name(name).device!r}")

# 2. Which ops can devlab run? Conv2D, MaxPool, BiasAdd and their gradients are TensorFlow ops
#    devlab has no kernel for; it places them all the same, with TensorFlow's kernel registry
#    (recorded from TF 2.21: which device types have a kernel for each op and dtype). A graph
#    like this one cannot run for real in devlab, but it can run *modelled*: shapes and dtypes
#    instead of values, and the cost model's time for every op and every copy.
print()
print(tf.graphs.kernel_report(graph))

# 3. Place it on 1, 2 and 8 simulated GPUs and model one training step. The towers ask for
#    /gpu:0../gpu:3: with fewer GPUs that is an error in TensorFlow unless soft placement is on,
#    which moves a request for a missing GPU to the first GPU of the same type that exists.
print()
print("GPUs  towers on                    transfers   bytes moved   modelled step time")
runs = {}
for gpus in (1, 2, 8):
    config = tf.ConfigProto(device_count={"GPU": gpus}, allow_soft_placement=True)
    session = tf.Session(graph=graph, config=config)
    run = session.modelled_run(["train"])
    towers = sorted({session.placement.device_of(f"tower_{i}/model/Conv2D").short_name for i in range(4)})
    moved = sum(t.nbytes for t in run.transfers)
    print(f"{gpus:4d}  {', '.join(towers):28s} {len(run.transfers):9d}  {moved / 2**20:8.2f} MiB   "
          f"{run.step_time * 1e3:8.3f} ms")
    runs[gpus] = (session, run)

# What the table says:
# * 1 GPU: soft placement puts all four towers on GPU:0. They run one after the other, and GPU:0
#   is busy for most of the step.
# * 2 GPUs: towers 0 and 1 get a GPU each, but towers 2 and 3 (asking for /gpu:2 and /gpu:3)
#   fall back to GPU:0, which now does three towers' work while GPU:1 idles part of the time.
# * 8 GPUs: the four towers run side by side; GPUs 4-7 stay idle, because the graph file pins the
#   towers to /gpu:0../gpu:3. More GPUs only help if the script builds more towers.
# Each extra GPU also costs copies: every tower reads every variable from the host (/cpu:0) and
# sends its gradients back, so the bytes moved grow with the number of GPUs in use.
print()
for gpus, (session, run) in runs.items():
    busy = ", ".join(f"{d.split('/device:')[-1]} {t * 1e3:.3f} ms" for d, t in sorted(run.busy_time().items()))
    print(f"{gpus} GPU(s), compute busy per device: {busy}")

# 4. Why is an op on the CPU? devlab keeps the reason for every placement. The variables are on
#    the CPU because the device function asked for it; each variable's /read Identity is
#    colocated with its variable (its _class says loc:@variable), so every tower's reads of the
#    weights cross from CPU:0 to its GPU.
session, run = runs[8]
print()
print(session.explain("model/conv1/weights/read"))
print()
print(session.explain("average_gradients/Mean"))

# With the requests cleared (clear_devices=True), TensorFlow's rule alone decides: an op goes to
# the GPU when the kernel registry has a GPU kernel for its op type *and dtype*, GPU before CPU.
# Nearly everything lands on GPU:0 then; what stays on the CPU says why. TensorFlow 2.21 has no
# GPU kernel for Split of int64 (`python3 tools/kernel_facts.py Split T=int64`), so split_labels
# stays on the CPU, and its inputs, a placeholder and a constant (generators: no inputs, one
# output), follow their only consumer there: TensorFlow's placer does the same.
cleared = tf.load_graph(GRAPH, clear_devices=True)
bare = tf.Session(graph=cleared, config=tf.ConfigProto(device_count={"GPU": 8}))
placement = bare.ensure_placed()
on_cpu = [op for op in cleared.get_operations() if placement.device_of(op).device_type == "CPU"]
print()
print(f"with clear_devices=True, {len(on_cpu)} of {len(cleared.get_operations())} ops land on the CPU:")
for op in on_cpu:
    print(bare.explain(op))

# 5. The timeline. The modelled run has TensorFlow's RunMetadata (step stats per device and the
#    partition graphs with their _Send/_Recv pairs): write it as a Chrome trace and open it in
#    https://ui.perfetto.dev, or hand it to TensorBoard with tf.summary.FileWriter.
trace = os.path.join(tempfile.gettempdir(), "tower_cnn_gpu_8gpus.trace.json")
tf.timeline.Timeline(run.step_stats).save(trace)
print()
print(f"timeline of the 8-GPU step written to {trace}")

# 6. The stepper walks the placed graph one op or copy at a time, values shown as shapes.
stepper = session.modelled_stepper(["train"])
for _ in range(3):
    print(stepper.next())
view = stepper.run_to(next(i for i, s in enumerate(run.steps) if s.kind == "transfer") + 1)
print(view, "carries", view.outputs[0][1])

# The same from the command line:
#     devlab place tests/data/tf_graphs/tower_cnn_gpu.pbtxt --gpus 8 --trace step.json
# And to compare with a real run: if TensorFlow recorded RunMetadata with partition graphs
# (RunOptions(output_partition_graphs=True)), tf.graphs.compare_placement(session, "run_metadata.pbtxt")
# lists, op by op, where devlab's placement and TensorFlow's differ, and why devlab chose its device.
