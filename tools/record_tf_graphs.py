"""Write TF1-style graph files with real TensorFlow, plus what TensorFlow did with them.

    /work/tfvenv/bin/python tools/record_tf_graphs.py tests/data/tf_graphs [MODEL ...]

Runs under a separate venv with tensorflow(-cpu)==2.21.0 (tf.compat.v1, v2 behaviour off);
devlab never imports TensorFlow. For each model it writes into the output folder:

  <name>.pb                  binary GraphDef   (tf.io.write_graph(as_text=False))
  <name>.pbtxt               text GraphDef     (not for big_10k)
  <name>.meta                binary MetaGraphDef with all collections, serialized
                             deterministically (tf.train.export_meta_graph; not for big_10k)
  <name>.expected.json       per node: op type, requested device, _class colocation groups;
                             the session config, the runs (fetches, feeds, fetched values),
                             {node: assigned device} read from the partition graphs, the
                             placement lines TensorFlow printed (log_device_placement=True;
                             left out for big_10k) and the nodes whose partition device
                             differs from the printed one (control-flow nodes that graph
                             partitioning moves: Switch to its data input, Exit to its input,
                             Enter/NextIteration to their first consumer)
  <name>.partition_graphs.pbtxt   (tower_cnn, control_flow) the partition graphs of every
                             run, as one text-format RunMetadata holding only partition_graphs

Sessions run on CPU devices only (ConfigProto(device_count={"CPU": N})), with TensorFlow's
graph rewrites off (Grappler's meta optimizer disabled, OptimizerOptions opt_level L0), so
the partition graphs show the placer's decisions on the graph as built rather than on a
rewritten one; a second run with the default rewrites is summarised under
"with_default_rewrites". Seeds are fixed and intra-op parallelism is 1, so values repeat.
"""
import contextlib
import json
import os
import re
import sys
import tempfile

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
os.environ.setdefault("TF_ENABLE_ONEDNN_OPTS", "0")  # plain Eigen kernels: stable values

import numpy as np  # noqa: E402
import tensorflow.compat.v1 as tf  # noqa: E402
from google.protobuf import text_format  # noqa: E402

tf.disable_v2_behavior()

INTERNAL = re.compile(r"(^|/)_")  # _Send/_Recv/_Arg/_Retval, x/_3, ... : transfer plumbing
CPU = "/job:localhost/replica:0/task:0/device:CPU:%d"


# ---------------------------------------------------------------------------- models

def tower_cnn():
    """Two towers (the classic multi-GPU CIFAR-10 layout) on /cpu:1 and /cpu:2.

    /cpu:0 plays the host: it holds the inputs, every variable (through the usual
    assign_to_device device function), the gradient averaging and the Momentum update.
    """
    tf.set_random_seed(1234)
    ps_ops = ("Variable", "VariableV2", "AutoReloadVariable")

    def assign_to_device(device, ps_device="/cpu:0"):
        def _assign(op):
            node_def = op if isinstance(op, tf.NodeDef) else op.node_def
            return ps_device if node_def.op in ps_ops else device
        return _assign

    batch, size, classes, towers = 8, 8, 3, 2
    with tf.device("/cpu:0"):
        images = tf.placeholder(tf.float32, [batch, size, size, 1], name="images")
        labels = tf.placeholder(tf.int64, [batch], name="labels")
        global_step = tf.train.get_or_create_global_step()
        opt = tf.train.MomentumOptimizer(learning_rate=0.05, momentum=0.9)
        image_splits = tf.split(images, towers, axis=0, name="split_images")
        label_splits = tf.split(labels, towers, axis=0, name="split_labels")

    tower_grads, tower_losses = [], []
    for i in range(towers):
        with tf.device(assign_to_device("/cpu:%d" % (i + 1))), tf.name_scope("tower_%d" % i):
            with tf.variable_scope("model", reuse=i > 0):
                w1 = tf.get_variable("conv1/weights", [3, 3, 1, 4],
                                     initializer=tf.truncated_normal_initializer(stddev=0.1))
                b1 = tf.get_variable("conv1/biases", [4], initializer=tf.zeros_initializer())
                conv = tf.nn.conv2d(image_splits[i], w1, strides=[1, 1, 1, 1], padding="SAME")
                relu = tf.nn.relu(tf.nn.bias_add(conv, b1), name="conv1/relu")
                pool = tf.nn.max_pool(relu, ksize=[1, 2, 2, 1], strides=[1, 2, 2, 1],
                                      padding="SAME", name="pool1")
                flat = tf.reshape(pool, [batch // towers, -1], name="flatten")
                w2 = tf.get_variable("dense/weights", [(size // 2) ** 2 * 4, classes],
                                     initializer=tf.truncated_normal_initializer(stddev=0.1))
                b2 = tf.get_variable("dense/biases", [classes], initializer=tf.zeros_initializer())
                logits = tf.nn.bias_add(tf.matmul(flat, w2), b2, name="logits")
                loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(
                    labels=label_splits[i], logits=logits), name="loss")
                tower_losses.append(loss)
                tower_grads.append(opt.compute_gradients(loss))

    with tf.device("/cpu:0"), tf.name_scope("average_gradients"):
        averaged = []
        for grads_and_vars in zip(*tower_grads):
            grads = [tf.expand_dims(g, 0) for g, _ in grads_and_vars]
            grad = tf.reduce_mean(tf.concat(grads, axis=0), axis=0)
            averaged.append((grad, grads_and_vars[0][1]))
    with tf.device("/cpu:0"):
        train_op = opt.apply_gradients(averaged, global_step=global_step, name="train")
        mean_loss = tf.add_n(tower_losses, name="total_loss") / towers

    rng = np.random.RandomState(0)
    feed = {images: rng.rand(batch, size, size, 1).astype(np.float32),
            labels: rng.randint(0, classes, size=batch).astype(np.int64)}
    runs = [("init", [tf.global_variables_initializer()], {}),
            ("train_step", [train_op, mean_loss] + tower_losses, feed),
            ("after_step", [mean_loss, global_step], feed)]
    return dict(cpus=3, runs=runs)


def ps_worker():
    """Between-graph replication as worker task 0: variables round-robin over two ps tasks."""
    tf.set_random_seed(1234)
    cluster = tf.train.ClusterSpec({"ps": ["ps0.example:2222", "ps1.example:2222"],
                                    "worker": ["worker0.example:2222", "worker1.example:2222"]})
    with tf.device(tf.train.replica_device_setter(worker_device="/job:worker/task:0",
                                                  cluster=cluster)):
        global_step = tf.train.get_or_create_global_step()
        x = tf.placeholder(tf.float32, [None, 4], name="x")
        y = tf.placeholder(tf.float32, [None, 1], name="y")
        with tf.variable_scope("hidden"):
            w1 = tf.get_variable("weights", [4, 8])
            b1 = tf.get_variable("biases", [8], initializer=tf.zeros_initializer())
            h = tf.nn.relu(tf.matmul(x, w1) + b1)
        with tf.variable_scope("output"):
            w2 = tf.get_variable("weights", [8, 1])
            b2 = tf.get_variable("biases", [1], initializer=tf.zeros_initializer())
            pred = tf.matmul(h, w2) + b2
        loss = tf.reduce_mean(tf.square(pred - y), name="loss")
        train_op = tf.train.AdagradOptimizer(0.1).minimize(loss, global_step=global_step,
                                                           name="train")
        tf.add_to_collection("train_op", train_op)
    return dict(cpus=None, runs=[], cluster=cluster.as_dict())


def control_flow():
    """tf.cond and tf.while_loop (v1 control flow: Switch/Merge/Enter/Exit/NextIteration)
    with their ops split between /cpu:0 and /cpu:1."""
    with tf.device("/cpu:0"):
        x = tf.placeholder(tf.float32, [3], name="x")
        pred = tf.placeholder(tf.bool, [], name="pred")
        scale = tf.Variable([1.0, 2.0, 3.0], name="scale")
    with tf.device("/cpu:1"):
        r = tf.cond(pred, lambda: tf.reduce_sum(x * scale) * 2.0,
                    lambda: tf.reduce_sum(x) - 1.0, name="branch")

    def body(i, acc):
        with tf.device("/cpu:1"):
            step = x * tf.cast(i, tf.float32)
        with tf.device("/cpu:0"):
            return i + 1, acc + step

    with tf.device("/cpu:0"):
        i0 = tf.constant(0, name="i0")
        acc0 = tf.zeros([3], name="acc0")
        n, acc = tf.while_loop(lambda i, a: i < 4, body, [i0, acc0], name="loop")
    with tf.device("/cpu:1"):
        out = tf.multiply(acc, r, name="out")
    xv = np.array([1.0, 2.0, 3.0], np.float32)
    runs = [("init", [tf.global_variables_initializer()], {}),
            ("pred_true", [out, r, n, acc], {x: xv, pred: True}),
            ("pred_false", [out, r, n, acc], {x: xv, pred: False})]
    return dict(cpus=2, runs=runs)


def big_10k():
    """About 10,000 nodes: a 2,000-layer chain (Const weights and bias, MatMul, AddV2, Tanh)
    in 20 name scopes of 100 layers, the scopes alternating between /cpu:0 and /cpu:1."""
    rng = np.random.RandomState(0)
    width, stages, per_stage = 5, 20, 100
    with tf.device("/cpu:0"):
        h = tf.placeholder(tf.float32, [1, width], name="input")
    for s in range(stages):
        with tf.device("/cpu:%d" % (s % 2)), tf.name_scope("stage_%02d" % s):
            for k in range(per_stage):
                with tf.name_scope("layer_%03d" % k):
                    w = tf.constant(np.eye(width) + 0.1 * rng.randn(width, width),
                                    tf.float32, name="w")
                    b = tf.constant(0.01 * rng.randn(width), tf.float32, name="b")
                    h = tf.tanh(tf.matmul(h, w) + b, name="act")
    out = tf.identity(h, name="output")
    feed = {"input:0": np.linspace(-1, 1, width, dtype=np.float32).reshape(1, width)}
    return dict(cpus=2, runs=[("forward", [out], feed)], pb_only=True)


MODELS = {"tower_cnn": tower_cnn, "ps_worker": ps_worker, "control_flow": control_flow,
          "big_10k": big_10k}
PARTITION_GRAPHS = ("tower_cnn", "control_flow")


# ---------------------------------------------------------------------------- recording

@contextlib.contextmanager
def capture_fd1():
    """Collect what is written to file descriptor 1 (TensorFlow prints placement from C++)."""
    sys.stdout.flush()
    saved = os.dup(1)
    with tempfile.TemporaryFile(mode="w+b") as tmp:
        os.dup2(tmp.fileno(), 1)
        out = []
        try:
            yield out
        finally:
            sys.stdout.flush()
            os.dup2(saved, 1)
            os.close(saved)
            tmp.seek(0)
            out.append(tmp.read().decode())


def nodes_of(graph_def):
    nodes = {}
    for n in graph_def.node:
        entry = {"op": n.op, "device": n.device}
        if "_class" in n.attr:
            entry["colocation"] = [s.decode() for s in n.attr["_class"].list.s]
        nodes[n.name] = entry
    return nodes


def jsonable(value):
    if isinstance(value, np.ndarray):
        if value.dtype.kind == "f":
            return np.round(value.astype(np.float64), 6).tolist()
        return value.tolist()
    if isinstance(value, (np.floating, float)):
        return round(float(value), 6)
    if isinstance(value, np.generic):
        return value.item()
    return value


def feed_entry(value):
    value = np.asarray(value)
    return {"dtype": value.dtype.name, "shape": list(value.shape), "value": value.tolist()}


def name_of(fetch):
    return fetch.name if hasattr(fetch, "name") else str(fetch)


def session_config(cpus, rewrites):
    config = tf.ConfigProto(device_count={"CPU": cpus}, log_device_placement=True,
                            intra_op_parallelism_threads=1, inter_op_parallelism_threads=2)
    if not rewrites:
        config.graph_options.rewrite_options.disable_meta_optimizer = True
        config.graph_options.optimizer_options.opt_level = tf.OptimizerOptions.L0
    return config


def run_model(graph, spec, rewrites):
    """Run every (label, fetches, feed) of spec in one session; collect what TF did."""
    placement, runs, partitions = {}, [], []
    with capture_fd1() as printed:
        with tf.Session(graph=graph, config=session_config(spec["cpus"], rewrites)) as sess:
            for label, fetches, feed in spec["runs"]:
                md = tf.RunMetadata()
                values = sess.run(fetches, feed_dict=feed,
                                  options=tf.RunOptions(output_partition_graphs=True),
                                  run_metadata=md)
                for pg in md.partition_graphs:
                    devices = sorted({n.device for n in pg.node})
                    partitions.append((label, devices, pg))
                    for n in pg.node:
                        if not INTERNAL.search(n.name):
                            old = placement.setdefault(n.name, n.device)
                            assert old == n.device, (n.name, old, n.device)
                runs.append({
                    "name": label,
                    "fetches": [name_of(f) for f in fetches],
                    "feeds": {name_of(k): feed_entry(v) for k, v in feed.items()},
                    "values": [jsonable(v) for v in values],
                    "partition_devices": [d for _, d, _ in partitions[-len(md.partition_graphs):]],
                })
    log = [line for line in printed[0].splitlines() if re.match(r"^\S+: \(\w+\): /job:", line)]
    other = [line for line in printed[0].splitlines() if line.strip() and line not in log]
    return placement, runs, partitions, log, other


def canonical(meta):
    """Re-serialize the control-flow contexts kept as bytes in the collections with sorted
    map fields, so that the .meta file is the same on every run."""
    from tensorflow.core.protobuf import control_flow_pb2
    kinds = {"cond_context": control_flow_pb2.CondContextDef,
             "while_context": control_flow_pb2.WhileContextDef}
    for key, proto in kinds.items():
        if key in meta.collection_def:
            values = meta.collection_def[key].bytes_list.value
            for i, raw in enumerate(values):
                values[i] = proto.FromString(raw).SerializeToString(deterministic=True)
    return meta


def parse_log_line(line):
    """'name: (Op): /job:...' -> (name, device)."""
    name, rest = line.split(": (", 1)
    return name, rest.split("): ", 1)[1]


def write_partition_graphs(path, partitions):
    md = tf.RunMetadata()
    header = ["# TensorFlow %s partition graphs as a text-format RunMetadata (only its"
              % tf.__version__,
              "# partition_graphs field), in run order; each block's run and device below.",
              "# Parse with google.protobuf.text_format.Parse(text, RunMetadata()) or split",
              "# on the top-level 'partition_graphs {' blocks."]
    for i, (label, devices, pg) in enumerate(partitions):
        md.partition_graphs.add().CopyFrom(pg)
        header.append("#   block %d: run %s, device %s" % (i, label, ", ".join(devices)))
    with open(path, "w") as f:
        f.write("\n".join(header) + "\n" + text_format.MessageToString(md))


def rewrite_summary(plain, rewritten):
    """How TF's default graph rewrites change the placed nodes (names without '_')."""
    return {
        "note": "same runs with Grappler and OptimizerOptions at their defaults",
        "nodes_removed": sorted(set(plain) - set(rewritten)),
        "nodes_added": {k: rewritten[k] for k in sorted(set(rewritten) - set(plain))},
        "nodes_moved": {k: [plain[k], rewritten[k]] for k in sorted(set(plain) & set(rewritten))
                        if plain[k] != rewritten[k]},
    }


def record(name, out_dir):
    graph = tf.Graph()
    with graph.as_default():
        spec = MODELS[name]()
    graph_def = graph.as_graph_def()
    tf.io.write_graph(graph_def, out_dir, name + ".pb", as_text=False)
    if not spec.get("pb_only"):
        tf.io.write_graph(graph_def, out_dir, name + ".pbtxt", as_text=True)
        meta = canonical(tf.train.export_meta_graph(graph=graph))
        with open(os.path.join(out_dir, name + ".meta"), "wb") as f:  # map fields sorted
            f.write(meta.SerializeToString(deterministic=True))
    expected = {
        "_meta": {
            "tensorflow_version": tf.__version__,
            "generated_by": "tools/record_tf_graphs.py %s (tf.compat.v1, "
                            "disable_v2_behavior())" % name,
            "model": MODELS[name].__doc__.strip().split("\n\n")[0],
            "node_count": len(graph_def.node),
        },
        "nodes": nodes_of(graph_def),
    }
    if not spec["runs"]:
        expected["_meta"]["placement"] = (
            "not recorded: the requested devices name /job:ps and /job:worker tasks, which "
            "need running tf.distribute.Server processes; only requested devices and "
            "colocation groups are recorded")
        expected["cluster"] = spec["cluster"]
    else:
        placement, runs, partitions, log, other = run_model(graph, spec, rewrites=False)
        rewritten, _, _, _, _ = run_model(graph, spec, rewrites=True)
        expected["_meta"]["placement"] = (
            "from RunMetadata.partition_graphs of every run (RunOptions("
            "output_partition_graphs=True)); nodes with a name component starting with '_' "
            "(_Send/_Recv/_Arg/_Retval, x/_N) are left out")
        expected["config"] = {"device_count": {"CPU": spec["cpus"]},
                              "log_device_placement": True, "allow_soft_placement": False,
                              "intra_op_parallelism_threads": 1,
                              "inter_op_parallelism_threads": 2,
                              "graph_rewrites": "off: rewrite_options.disable_meta_optimizer="
                                                "True, optimizer_options.opt_level=L0",
                              "env": {"TF_ENABLE_ONEDNN_OPTS": os.environ["TF_ENABLE_ONEDNN_OPTS"]}}
        expected["runs"] = runs
        expected["placement"] = placement
        logged = dict(parse_log_line(line) for line in log)
        expected["placement_differs_from_log"] = {
            k: {"logged": logged[k], "partition": v} for k, v in placement.items()
            if k in logged and logged[k] != v}
        if not spec.get("pb_only"):  # big_10k: the log would only repeat "placement"
            expected["placement_log"] = log
        if other:
            expected["other_output"] = other
        expected["with_default_rewrites"] = rewrite_summary(placement, rewritten)
        if name in PARTITION_GRAPHS:
            write_partition_graphs(os.path.join(out_dir, name + ".partition_graphs.pbtxt"),
                                   partitions)
    with open(os.path.join(out_dir, name + ".expected.json"), "w") as f:
        json.dump(expected, f, indent=None if spec.get("pb_only") else 1)
        f.write("\n")
    print("%s: %d nodes" % (name, len(graph_def.node)))


if __name__ == "__main__":
    out_dir = sys.argv[1] if len(sys.argv) > 1 else "tests/data/tf_graphs"
    os.makedirs(out_dir, exist_ok=True)
    for name in sys.argv[2:] or list(MODELS):
        record(name, out_dir)
