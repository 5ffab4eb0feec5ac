"""Writes the tutorial notebooks from the cell lists below and executes them, so the committed
outputs are real. Run it after changing a tutorial:  python notebooks/build_notebooks.py

Cells whose output is the lesson carry the ``nbval-check-output`` tag (a tag, not a comment, so a
cell magic can stay on the first line): nbval (``--nbval-lax``) compares exactly those. A cell
that is meant to fail carries the ``raises-exception`` tag.
"""
import os
import sys

import nbformat
from nbclient import NotebookClient

HERE = os.path.dirname(os.path.abspath(__file__))


def md(text):
    return nbformat.v4.new_markdown_cell(text.strip())


def code(text, check=False, raises=False):
    cell = nbformat.v4.new_code_cell(text.strip())
    tags = (["nbval-check-output"] if check else []) + (["raises-exception"] if raises else [])
    if tags:
        cell.metadata["tags"] = tags
    return cell


SETUP = code("%load_ext devlab\nimport devlab as tf\nimport numpy as np")

NOTEBOOKS = {}

NOTEBOOKS["00_start_here"] = [
    md("""
# 0. Start here: where does each op run?

A TensorFlow 1.x program first builds a **graph** of ops, then a `Session` decides on which
**device** (a CPU or a GPU) each op runs. That decision is called **placement**.

devlab runs TF1 code unchanged and shows the placement. This machine may have no GPU: devlab
**simulates** GPUs (numpy does the arithmetic, the GPU keeps its name and its costs).

Load the extension once per notebook:"""),
    SETUP,
    md("""
Now put `%%placement` on top of a cell of TF1 code. `--gpus 2` gives the program two simulated
GPUs. The cell prints TensorFlow's **placement log** (one line per op: `name: (type): device`),
the same log as a table you can sort and filter, and the **placed graph**: one box per device,
red dashed arrows for the copies between devices."""),
    code("""
%%placement --gpus 2
with tf.device("/cpu:0"):
    a = tf.constant([1.0, 2.0, 3.0, 4.0, 5.0, 6.0], shape=[2, 3], name="a")
    b = tf.constant([1.0, 2.0, 3.0, 4.0, 5.0, 6.0], shape=[3, 2], name="b")
c = tf.matmul(a, b)
sess = tf.Session(config=tf.ConfigProto(log_device_placement=True))
sess.run(c)""", check=True),
    md("""
`a` and `b` were pinned to the CPU; `MatMul` was not pinned, so TensorFlow chose **GPU:0**: when an op
has a GPU kernel, a GPU wins. Its inputs are copied from the CPU (the red arrows).

`sess.explain(op)` says why an op is where it is:"""),
    code("print(sess.explain(c))", check=True),
    md("""
Run it one op at a time: `--step` opens the stepper. Press **Next** and watch the highlighted op,
its device, its inputs and outputs, and the copies."""),
    code("""
%%placement --gpus 2 --step --no-draw
with tf.device("/cpu:0"):
    a = tf.constant([[1.0, 2.0]], name="a")
b = tf.square(a, name="b")
tf.Session().run(b)"""),
    md("""
## Exercise
Change the program so that `MatMul` runs on the CPU (one `with tf.device(...)` line). Put the device
you used in `answer`; the next cell checks it by running your graph."""),
    code("""
answer = "/cpu:0"   # your answer: the device for MatMul
with tf.Graph().as_default():
    x = tf.constant([[1.0, 2.0]])
    with tf.device(answer):
        y = tf.matmul(x, tf.transpose(x))
    s = tf.Session(config=tf.ConfigProto(device_count={"GPU": 2}))
    s.run(y)
    placed = s.placement.device_of(y.op).name"""),
    code('print("correct!" if placed.endswith("CPU:0") else f"not yet: MatMul is on {placed}")', check=True),
]

NOTEBOOKS["01_placement_log"] = [
    md("""
# 1. Reading the placement log and the device mapping (seed 004, §1.1–1.3)

With `log_device_placement=True` a session prints, when it places the graph:
- the **device mapping**: one line per GPU, naming the card behind it (here: simulated);
- one line per op: `name: (OpType): /job:localhost/replica:0/task:0/device:TYPE:N`.

TensorFlow prints these from C++, so Jupyter never showed them. devlab prints them in the cell."""),
    SETUP,
    code("""
tf.reset_default_graph()
a = tf.constant([1.0, 2.0, 3.0, 4.0, 5.0, 6.0], shape=[2, 3], name='a')
b = tf.constant([1.0, 2.0, 3.0, 4.0, 5.0, 6.0], shape=[3, 2], name='b')
c = tf.matmul(a, b)
sess = tf.Session(config=tf.ConfigProto(log_device_placement=True, device_count={"GPU": 1}))
print(sess.run(c))""", check=True),
    md("""
Nothing was pinned, so everything went to **GPU:0**. Notice the order: TensorFlow logs ops with inputs
first and "generators" (ops with no inputs, like constants) last, because it places generators after
their consumers and puts them on the same device when it can.

On a machine with **no GPU** the same program lands entirely on the CPU:"""),
    code("""
sess = tf.Session(config=tf.ConfigProto(log_device_placement=True, device_count={"GPU": 0}))
print(sess.run(c))""", check=True),
    md("""
## A variable's ops follow the variable
`tf.Variable` creates four ops. `v/Assign` and `v/read` are *colocated* with `v` (their `_class`
attribute says `loc:@v`), so they always run where `v` lives, whatever device scope is active."""),
    code("""
tf.reset_default_graph()
with tf.device("/gpu:0"):
    v = tf.Variable(3.0, name="v")
with tf.device("/cpu:0"):
    doubled = v * 2.0
for op in tf.get_default_graph().get_operations():
    print(f"{op.name:16s} {op.type:12s} requested={op.device!r:20s} groups={[g.decode() for g in op.colocation_groups()]}")""",
         check=True),
    code("""
sess = tf.Session(config=tf.ConfigProto(log_device_placement=True, device_count={"GPU": 1}))
sess.run(tf.global_variables_initializer())
print(sess.run(doubled))""", check=True),
    md("""
## Exercise
How many ops of this last graph ran on GPU:0? Count them in the log above and put the number in `answer`."""),
    code("answer = 5   # your answer"),
    code("""
on_gpu = sum(r.device.endswith("GPU:0") for r in sess.placement_log)
print("correct!" if answer == on_gpu else f"not yet: look for the lines ending in GPU:0")""", check=True),
]

NOTEBOOKS["02_colocate_with"] = [
    md("""
# 2. `colocate_with`, and why moving averages use it (seed 000)

`tf.colocate_with(x)` makes the ops created inside go **where `x` goes**, ignoring the device scope
around them. This is the example from the seed:"""),
    SETUP,
    code("""
tf.reset_default_graph()
with tf.device("/cpu:0"):
    a = tf.constant(0.0, name="a")

with tf.device("/gpu:0"):
    b = tf.constant(0.0, name="b")
    with tf.colocate_with(a):
        c = tf.constant(0.0, name="c")
    d = tf.constant(0.0, name="d")

for operation in tf.get_default_graph().get_operations():
    print(operation.name, operation.device)""", check=True),
    md("""
`c` is on the CPU, next to `a`, although it was created inside `tf.device("/gpu:0")`. Its colocation
group is `loc:@a`:"""),
    code('print(c.op.colocation_groups(), c.op.get_attr("_class"))', check=True),
    md("""
## Why `ExponentialMovingAverage` uses it
A moving average keeps a *shadow* variable per variable and updates it every step. If the shadow lived on
another device, every update would copy the variable across. `ExponentialMovingAverage` creates each
shadow under `colocate_with(var)`, and the `AssignSub` that updates it takes the shadow by reference, so it
is colocated with it: both stay beside the variable, even when `apply` is called inside a CPU scope:"""),
    code("""
%%placement --gpus 2
with tf.device("/gpu:1"):
    w = tf.Variable(10.0, name="w")
ema = tf.train.ExponentialMovingAverage(decay=0.5)
with tf.device("/cpu:0"):
    update = ema.apply([w])
sess = tf.Session()
sess.run(tf.global_variables_initializer())
sess.run(w.assign(20.0))
sess.run(update)
print("average:", sess.run(ema.average(w)))""", check=True),
    md("""
## Exercise
Which device does the `AssignSub` that updates the average run on? Write it as `GPU:n` or `CPU:n`."""),
    code('answer = "GPU:1"   # your answer'),
    code("""
op = [o for o in tf.get_default_graph().get_operations() if o.type == "AssignSub"][0]
print("correct!" if sess.placement.device_of(op).name.endswith(answer) else "not yet: colocation wins over the CPU scope")""",
         check=True),
]

NOTEBOOKS["03_device_stack"] = [
    md("""
# 3. How `tf.device` works inside: the device stack (seed 002; seed 001)

`with tf.device(x):` pushes `x` on the graph's **device stack**. When an op is created, TensorFlow walks
the stack from the innermost scope out. A string scope *merges*: the fields the inner scope set win,
outer scopes only fill the blanks. `tf.device(None)` stops the walk; `tf.device("")` is skipped."""),
    SETUP,
    code("""
tf.reset_default_graph()
with tf.device("/job:worker"):
    a = tf.constant(1.0, name="a")
    with tf.device("/device:GPU:0"):
        b = tf.constant(1.0, name="b")
        with tf.device("/task:1"):
            c = tf.constant(1.0, name="c")
        with tf.device("/cpu:1"):
            d = tf.constant(1.0, name="d")
    with tf.device(None):
        e = tf.constant(1.0, name="e")
    with tf.device(""):
        f = tf.constant(1.0, name="f")
for op in tf.get_default_graph().get_operations():
    print(f"{op.name}: {op.device!r}")""", check=True),
    md("""
## Stepping into the stack
Every op remembers the scopes that shaped it, innermost first, with the line of each `with`
(`op._device_assignments`, as in TensorFlow). Here is `c`'s stack:"""),
    code("""
for scope in c.op._device_assignments:
    print(scope.obj)""", check=True),
    md("""
## Device functions (seed 001)
A scope can also be a **function** of the op. Seed 001 places variables on the CPU (a parameter
server) and everything else on the GPU:"""),
    code("""
tf.reset_default_graph()
PS_OPS = ["Variable", "VariableV2", "AutoReloadVariable"]

def assign_to_device(device, ps_device="/device:CPU:0"):
    def _assign(op):
        node_def = op if isinstance(op, tf.NodeDef) else op.node_def
        if node_def.op in PS_OPS:
            return ps_device
        else:
            return device
    return _assign

with tf.device(assign_to_device("/device:GPU:0")):
    a = tf.Variable(1.0)
    b = tf.sin(a)
print(a.device)
print(b.device)""", check=True),
    md("""
## Exercise
Predict the device string of `x` below, then check."""),
    code('answer = "/job:ps/device:GPU:1"   # your prediction'),
    code("""
with tf.Graph().as_default():
    with tf.device("/job:ps"):
        with tf.device("/gpu:1"):
            x = tf.constant(1.0)
print("correct!" if x.device == answer else f"not yet: it is {x.device!r}")""", check=True),
]

NOTEBOOKS["04_mixed_sums"] = [
    md("""
# 4. Mixed-device sums and the copies they cause (seed 004, §1.5)

Two towers compute on GPU:2 and GPU:3; their results are summed on the CPU. Each tower's result must
be **copied** to the CPU: one transfer per (tensor, destination device)."""),
    SETUP,
    code("""
%%placement --gpus 4 --timeline
c = []
for d in ['/device:GPU:2', '/device:GPU:3']:
    with tf.device(d):
        a = tf.constant([1.0, 2.0, 3.0, 4.0, 5.0, 6.0], shape=[2, 3])
        b = tf.constant([1.0, 2.0, 3.0, 4.0, 5.0, 6.0], shape=[3, 2])
        c.append(tf.matmul(a, b))
with tf.device('/cpu:0'):
    sum = tf.add_n(c)
sess = tf.Session(config=tf.ConfigProto(log_device_placement=True))
print(sess.run(sum))""", check=True),
    md("""
The **timeline** shows the two towers overlapping (each GPU works on its own), then the copies to the
CPU, then `AddN`. On simulated GPUs the times come from devlab's cost model (kernel launch latency,
FLOP rate, PCIe bandwidth), and the chart says so.

The partition graphs show the copies as `_Send`/`_Recv` pairs, as TensorFlow's partitioner makes them:"""),
    code("""
md = tf.RunMetadata()
sess.run(sum, options=tf.RunOptions(output_partition_graphs=True), run_metadata=md)
for pg in md.partition_graphs:
    print(pg.node[0].device.split("/")[-1], [f"{n.name} ({n.op})" for n in pg.node])""", check=True),
    md("""
The same timeline can be saved for chrome://tracing or Perfetto:
`tf.timeline.Timeline(run_metadata.step_stats).save("trace.json")`.

## Exercise
If the sum ran on GPU:2 instead of the CPU, how many transfers would the run need?"""),
    code("answer = 1   # your answer"),
    code("""
with tf.Graph().as_default():
    parts = []
    for d in ['/device:GPU:2', '/device:GPU:3']:
        with tf.device(d):
            parts.append(tf.matmul(tf.ones([2, 3]), tf.ones([3, 2])))
    with tf.device('/device:GPU:2'):
        total = tf.add_n(parts)
    m = tf.RunMetadata()
    tf.Session(config=tf.ConfigProto(device_count={"GPU": 4})).run(
        total, options=tf.RunOptions(output_partition_graphs=True), run_metadata=m)
    transfers = len([n for pg in m.partition_graphs for n in pg.node if n.op == "_Recv"])  # the seed rebound `sum`
print("correct!" if answer == transfers else "not yet: only the tower on GPU:3 needs a copy")""", check=True),
]

NOTEBOOKS["05_gradients"] = [
    md("""
# 5. Gradients with and without colocation; UPDATE_OPS on the CPU (seed 001)

`tf.gradients` builds new ops for the backward pass. By default they get the device of the scope
active when you call it, or none: then the placer puts them on GPU:0. With
`colocate_gradients_with_ops=True`, each gradient op is colocated with its forward op."""),
    SETUP,
    code("""
def model():
    with tf.device("/gpu:0"):
        w = tf.Variable(np.ones((4, 4), np.float32), name="w")
        h = tf.nn.relu(tf.matmul(tf.ones([2, 4]), w))
    with tf.device("/gpu:1"):
        loss = tf.reduce_sum(tf.square(tf.tanh(h)))
    return w, loss

def transfers(colocate):
    with tf.Graph().as_default():
        w, loss = model()
        grad = tf.gradients(loss, w, colocate_gradients_with_ops=colocate)
        sess = tf.Session(config=tf.ConfigProto(device_count={"GPU": 2}))
        sess.run(tf.global_variables_initializer())
        md = tf.RunMetadata()
        sess.run(grad, options=tf.RunOptions(output_partition_graphs=True), run_metadata=md)
        return sum(n.op == "_Recv" for pg in md.partition_graphs for n in pg.node)

print("transfers without colocation:", transfers(False))
print("transfers with colocation:   ", transfers(True))""", check=True),
    md("""
Without colocation the gradients of the ops on GPU:1 run on GPU:0, so values go back and forth.
With it, each gradient runs beside its forward op.

## UPDATE_OPS
Batch normalisation updates its moving statistics in ops that nothing depends on; they go into
`tf.GraphKeys.UPDATE_OPS`, and the training op must depend on them. Seed 001 gathers them under a
CPU scope (the scope does not move them: they are colocated with their variables):"""),
    code("""
%%placement --gpus 1 --no-draw
x = tf.constant(np.arange(8.0, dtype=np.float32).reshape(4, 2))
with tf.device("/gpu:0"):
    out = tf.layers.batch_normalization(x, training=True, momentum=0.0)
    loss = tf.reduce_sum(out)
with tf.device("/cpu:0"):
    update_ops = tf.get_collection(tf.GraphKeys.UPDATE_OPS)
with tf.control_dependencies(update_ops):
    train = tf.identity(loss)
sess = tf.Session()
sess.run(tf.global_variables_initializer())
sess.run(train)
print("moving mean:", sess.run(tf.global_variables()[2]))""", check=True),
    md("""
## Exercise
Without the `control_dependencies` block, would running `loss` update the moving mean? (True/False)"""),
    code("answer = False   # your answer"),
    code("""
with tf.Graph().as_default():
    x = tf.constant(np.arange(8.0, dtype=np.float32).reshape(4, 2))
    loss = tf.reduce_sum(tf.layers.batch_normalization(x, training=True, momentum=0.0))
    s = tf.Session()
    s.run(tf.global_variables_initializer())
    s.run(loss)
    updated = bool(s.run(tf.global_variables()[2])[0] != 0.0)
print("correct!" if answer == updated else "not yet: nothing asked for the update ops")""", check=True),
]

NOTEBOOKS["06_errors"] = [
    md("""
# 6. Debugging placement errors (seed 004, §1.4)

A device that does not exist is an error at the first `run`, in TensorFlow's words. devlab adds the op
and the line that created it."""),
    SETUP,
    code("""
%%placement --no-draw
with tf.device('/device:CPU:1'):
    v = tf.Variable(1.0, name='v')
    value = tf.assign(v, 2.0, name='value')
sess = tf.Session()
sess.run(value)""", raises=True),
    md("""
The machine has one CPU (`CPU:0`). Either ask for it, create more with
`ConfigProto(device_count={"CPU": 3})`, or let TensorFlow fall back with **soft placement**:"""),
    code("""
%%placement --no-draw
with tf.device('/device:CPU:1'):
    v = tf.Variable(1.0, name='v')
    value = tf.assign(v, 2.0, name='value')
sess = tf.Session(config=tf.ConfigProto(allow_soft_placement=True, log_device_placement=True))
print(sess.run(value))""", check=True),
    md("""
## No kernel for the device
Some ops exist only on the CPU (string ops, summaries). Pinning one to a GPU fails without soft
placement, and soft placement moves it back:"""),
    code("""
%%placement --gpus 1 --no-draw --explain label
x = tf.constant(1.5)
with tf.device("/gpu:0"):
    label = tf.strings.as_string(x, name="label")
sess = tf.Session(config=tf.ConfigProto(allow_soft_placement=True))
print(sess.run(label))""", check=True),
    md("""
## Colocation conflicts
Ops in one colocation group must find a device where all of them have a kernel:"""),
    code("""
%%placement --gpus 1 --no-draw
x = tf.constant(1.0, name="x")
with tf.device("/gpu:0"):
    y = tf.sin(x, name="y")
with tf.colocate_with(y):
    z = tf.strings.as_string(x, name="z")
tf.Session().run(z)""", raises=True),
    md("""
## Exercise
Which one-line config change makes the first program of this notebook run? Put the ConfigProto in `config`."""),
    code('config = tf.ConfigProto(device_count={"CPU": 2})   # your answer'),
    code("""
with tf.Graph().as_default():
    with tf.device('/device:CPU:1'):
        v = tf.Variable(1.0, name='v')
        value = tf.assign(v, 2.0, name='value')
    try:
        tf.Session(config=config).run(value)
        print("correct!")
    except tf.errors.InvalidArgumentError:
        print("not yet: CPU:1 must exist, or placement must be soft")""", check=True),
]

NOTEBOOKS["07_parameter_servers"] = [
    md("""
# 7. Parameter servers and saved graphs (seed 004, §1.6)

`tf.train.replica_device_setter` puts variables on parameter-server tasks (round robin) and the rest
on the worker. devlab simulates the cluster's tasks in one process, so the program can run."""),
    SETUP,
    code("""
tf.reset_default_graph()
cluster = tf.train.ClusterSpec({"ps": ["ps0:2222", "ps1:2222"], "worker": ["worker0:2222"]})
with tf.device(tf.train.replica_device_setter(cluster=cluster)):
    w1 = tf.Variable(tf.ones([3, 3]), name="w1")
    w2 = tf.Variable(tf.ones([3, 3]), name="w2")
    y = tf.reduce_sum(tf.matmul(w1, w2), name="y")
server = tf.train.Server(cluster, job_name="worker", task_index=0)
sess = tf.Session(server.target, config=tf.ConfigProto(log_device_placement=True))
sess.run(tf.global_variables_initializer())
print(sess.run(y))""", check=True),
    md("""
## Saved graphs keep their devices
A saved graph records every op's requested device. Loading it on another machine tries to place the ops
there; `clear_devices=True` drops them, so the graph is placed afresh:"""),
    code("""
import tempfile, os
path = os.path.join(tempfile.mkdtemp(), "model")
tf.train.Saver().save(sess, path)

with tf.Graph().as_default():
    tf.train.import_meta_graph(path + ".meta")
    print("kept:   ", tf.get_default_graph().get_operation_by_name("w1").device)
with tf.Graph().as_default():
    saver = tf.train.import_meta_graph(path + ".meta", clear_devices=True)
    print("cleared:", repr(tf.get_default_graph().get_operation_by_name("w1").device))
    local = tf.Session()
    saver.restore(local, path)
    print(local.run("y:0"), "on", local.placement.device_of("y").name)""", check=True),
    md("""
## Exercise
With two ps tasks, which task gets a third variable created after `w1` and `w2`? Put its task index in `answer`."""),
    code("answer = 0   # your answer"),
    code("""
with tf.Graph().as_default():
    with tf.device(tf.train.replica_device_setter(cluster=cluster)):
        vs = [tf.Variable(1.0) for _ in range(3)]
print("correct!" if vs[2].device == f"/job:ps/task:{answer}" else f"not yet: it went to {vs[2].device}")""",
         check=True),
]

NOTEBOOKS["08_mirrored_strategy"] = [
    md("""
# 8. MirroredStrategy towers (seed 003)

`MirroredStrategy` builds your model once per device (a **tower**), keeps one copy of each variable per
device (a *mirrored* variable), and combines the towers' values with `merge_call` and `reduce`."""),
    SETUP,
    code("""
tf.reset_default_graph()
tf.config.simulate_gpus(2)
distribution = tf.contrib.distribute.MirroredStrategy()
print(distribution.worker_devices)

# Called once in "cross-tower" context.
def merge_fn(distribution, three_plus_tower_id):
    # sum the values across towers
    return sum(distribution.unwrap(three_plus_tower_id))

# Called once per tower in `distribution`, in a "tower" context.
def fn(three):
    tower_ctx = tf.get_tower_context()
    v = three + tower_ctx.tower_id
    # Computes the sum of the `v` values across all towers.
    s = tower_ctx.merge_call(merge_fn, v)
    return s + v

with distribution.scope():
    merged_results = distribution.call_for_each_tower(fn, 3)
    print(distribution.unwrap(merged_results))""", check=True),
    md("""
## Mirrored variables and reductions
A variable created in `scope()` has one component per device, named `v`, `v/replica_1`, ... A reduction
is a real op on its destination device, so its copies show in the placement log:"""),
    code("""
%%placement --gpus 2 --no-draw
distribution = tf.distribute.MirroredStrategy()
with distribution.scope():
    v = tf.Variable(1.0, name="v")
    per_tower = distribution.call_for_each_tower(lambda: v * tf.cast(tf.get_tower_context().tower_id + 1, tf.float32))
    total = distribution.reduce("sum", per_tower, destinations="/cpu:0")
sess = tf.Session()
sess.run(tf.global_variables_initializer())
print([c.op.name for c in distribution.unwrap(v)], sess.run(distribution.unwrap(total)))""", check=True),
    md("""
## Exercise
With 4 towers, what does `merged_results` from the first cell unwrap to? Put the list in `answer`."""),
    code("answer = [21, 22, 23, 24]   # your answer"),
    code("""
with tf.Graph().as_default():
    four = tf.distribute.MirroredStrategy(num_gpus=4)
    with four.scope():
        got = four.unwrap(four.call_for_each_tower(fn, 3))
print("correct!" if answer == got else "not yet: each tower adds its id to 3, and merge_fn sums them")""",
         check=True),
    code("tf.config.simulate_gpus(None)"),
]

NOTEBOOKS["09_real_gpu"] = [
    md("""
# 9. On a real GPU: the same code through CuPy

When CuPy finds a CUDA GPU, devlab runs GPU ops on it: the same kernels, written once against an
array module, run with `cupy` instead of `numpy`, and copies go through CUDA. Without one (Binder,
a laptop) the GPUs are simulated, and the device mapping says so."""),
    SETUP,
    code("""
from devlab.devices import gpu
print("real GPUs found:", gpu.physical_gpu_count())
sess = tf.Session(config=tf.ConfigProto(device_count={"GPU": 1}))
print(sess.device_mapping.splitlines()[0])
print("GPU:0 is", "simulated (numpy)" if sess.devices[-1].simulated else "a real card (cupy)")"""),
    code("""
x = np.random.default_rng(0).normal(size=(512, 512)).astype(np.float32)
with tf.Graph().as_default():
    with tf.device("/gpu:0"):
        y = tf.matmul(tf.constant(x), tf.constant(x))
    out = tf.Session(config=tf.ConfigProto(device_count={"GPU": 1})).run(y)
print("same result as numpy:", np.allclose(out, x @ x, rtol=1e-3, atol=1e-3))""", check=True),
    md("""
## Exercise
Does the result of `sess.run` live on the GPU or in host memory (a numpy array)? Put `"host"` or `"gpu"`."""),
    code('answer = "host"   # your answer'),
    code('print("correct!" if answer == "host" and isinstance(out, np.ndarray) else "not yet: fetched values are always copied to the host")',
         check=True),
]


def build(name, cells, execute=True):
    nb = nbformat.v4.new_notebook(cells=cells, metadata={
        "kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"},
        "language_info": {"name": "python"}})
    path = os.path.join(HERE, name + ".ipynb")
    if execute:
        NotebookClient(nb, timeout=120, kernel_name="python3", allow_errors=True,
                       resources={"metadata": {"path": HERE}}).execute()
        for cell in nb.cells:
            for out in cell.get("outputs", []):
                if out.get("output_type") == "error" and "raises-exception" not in cell.metadata.get("tags", []):
                    raise RuntimeError(f"{name}: a cell failed: {out['ename']}: {out['evalue']}")
    nbformat.write(nb, path)
    print("wrote", path)


if __name__ == "__main__":
    wanted = sys.argv[1:] or list(NOTEBOOKS)
    for n in wanted:
        build(n, NOTEBOOKS[n])
