#!/usr/bin/env python3
"""A differential fuzzer of device placement: random TF1 programs run under devlab and TF 2.21.

usage:
  python tools/placement_fuzzer.py gen --seed 0 --count 2000 --out /tmp/progs.json
  /work/tfvenv/bin/python tools/placement_fuzzer.py record /tmp/progs.json /tmp/tf.json
  python tools/placement_fuzzer.py compare /tmp/tf.json [--verbose]
  python tools/placement_fuzzer.py shrink /tmp/tf.json ID [--python /work/tfvenv/bin/python]
  python tools/placement_fuzzer.py corpus /tmp/tf.json tests/data/placement_fuzz.json --count 300
  /work/tfvenv/bin/python tools/placement_fuzzer.py record-classes tests/data/placement_fuzz_classes.json

A *program* is a list of ``[indent, line]`` statements plus a header (how many CPUs, soft
placement on or off, whether the graph is entered with ``as_default()`` or is the global
default graph). The lines use ``tf`` and nothing else, so the same text runs under
``tensorflow.compat.v1`` (in TF's own venv, ``record``) and under devlab (``compare``, and
tests/test_placement_fuzz.py, which replays the recorded corpus).

The *facts* of a run (:func:`facts_of`) are compared op by op: every op's name, type,
requested device and colocation groups; the device each node ran on, from the partition
graphs of every ``Session.run``; the fetched values; and the error class and its first line.
TF's grappler and constant folding are off, so TF's partition graphs show its placer's answer.

``shrink`` removes statements (a ``with`` line takes its block along) while devlab and TF
still disagree in the same way, asking TF about each candidate in one child process.
"""
import argparse
import json
import os
import random
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TF_PYTHON = os.environ.get("DEVLAB_TF_PYTHON", "/work/tfvenv/bin/python")

# ---------------------------------------------------------------------------------------------
# The generator
# ---------------------------------------------------------------------------------------------

# Device scopes as a user writes them (valid ones weighted up), as source text.
DEVICES = [
    '"/cpu:0"', '"/cpu:1"', '"/cpu:2"', '"/cpu:3"', '"/device:CPU:1"', '"cpu:2"', '"/CPU:3"',
    '"/cpu:*"', '"/job:localhost"', '"/job:localhost/replica:0/task:0"', '"/job:localhost/task:0/cpu:1"',
    '"/replica:0/device:CPU:2"', '""', 'None', 'tf.DeviceSpec(device_type="CPU", device_index=1)',
    'tf.DeviceSpec(device_type="CPU")', 'tf.DeviceSpec(job="localhost", device_type="CPU", device_index=2)',
    'dev_var_cpu1', 'dev_by_type', 'dev_spec_fn', 'dev_keep', 'tf.train.replica_device_setter(ps_tasks=0)',
    'tf.train.replica_device_setter(ps_tasks=1, ps_device="/job:localhost/cpu:1", worker_device="/job:localhost/cpu:0")',
    '"/device:CPU:5"', '"/gpu:0"', '"/device:GPU:1"', '"/job:worker"', '"/task:1"',
]
DEVICE_WEIGHTS = [6, 6, 5, 4, 3, 2, 2, 2, 2, 1, 2, 1, 2, 3, 2, 1, 1, 2, 2, 1, 1, 1, 1, 1, 2, 1, 1, 1]

# Device functions the programs may use (defined before each program runs).
PRELUDE = '''
def dev_var_cpu1(op):
    return "/cpu:1" if op.type in ("VariableV2", "VarHandleOp") else ""
def dev_by_type(op):
    return "/cpu:2" if op.type in ("Add", "AddV2", "Mul", "Identity") else "/cpu:0"
def dev_spec_fn(op):
    return tf.DeviceSpec(device_type="CPU", device_index=1)
def dev_keep(op):
    return op.device
def one(x):
    return x[0] if isinstance(x, (list, tuple)) else x
'''

OPTIMIZERS = ["tf.train.GradientDescentOptimizer(0.1)", "tf.train.AdagradOptimizer(0.1)",
              "tf.train.MomentumOptimizer(0.1, 0.9)", "tf.train.AdamOptimizer(0.01)",
              "tf.train.RMSPropOptimizer(0.01)"]


class _Gen:
    """Builds one random program: statements, the names they define, and what may be fetched."""

    def __init__(self, rng):
        self.rng = rng
        self.lines = []
        self.n = 0
        self.floats = []  # (name, pure): float32 scalars; pure ones may be fetched for their value
        self.ints = []
        self.strings = []
        self.vars = []  # variables (fetchable, as float32 scalars)
        self.var_dependent = set()  # float tensors that depend on a variable (so minimize has gradients)
        self.impure_block = 0  # inside control_dependencies on an update: what is made there runs it
        self.fetch_blocked = 0  # inside tf.cond/while: not fetchable (no such blocks here, kept simple)

    def fresh(self, prefix):
        self.n += 1
        return f"{prefix}{self.n}"

    def emit(self, depth, line):
        self.lines.append([depth, line])

    def pick_float(self):
        return self.rng.choice([f for f in self.floats if f[1] is not None] + [(v, True) for v in self.vars])[0]

    def add_float(self, name, pure=True, from_var=False):
        pure = pure and not self.impure_block
        self.floats.append((name, pure))
        if from_var:
            self.var_dependent.add(name)

    def statement(self, depth):
        r = self.rng
        kinds = ["const", "const", "binary", "binary", "unary", "identity", "identity", "variable",
                 "get_variable", "int", "int", "metadata", "cast", "string", "assign", "minimize",
                 "cond", "while"]
        kind = r.choice(kinds)
        have = [f for f in self.floats if f[1] is not None] or self.vars
        if kind == "const" or not have:
            name = self.fresh("c")
            self.emit(depth, f'{name} = tf.constant({r.choice([1.0, 2.0, 0.5, -1.5, 3.0])}, name="{name}")')
            self.add_float(name)
        elif kind == "binary":
            a, b = self.pick_float(), self.pick_float()
            fn = r.choice(["tf.add", "tf.multiply", "tf.subtract", "tf.maximum"])
            name = self.fresh("b")
            self.emit(depth, f'{name} = {fn}({a}, {b}, name="{name}")')
            self.add_float(name, self.pure(a) and self.pure(b), self.dep(a) or self.dep(b))
        elif kind == "unary":
            a = self.pick_float()
            fn = r.choice(["tf.negative", "tf.square", "tf.abs", "tf.sin"])
            name = self.fresh("u")
            self.emit(depth, f'{name} = {fn}({a}, name="{name}")')
            self.add_float(name, self.pure(a), self.dep(a))
        elif kind == "identity":
            a = self.pick_float()
            name = self.fresh("i")
            self.emit(depth, f'{name} = tf.identity({a}, name="{name}")')
            self.add_float(name, self.pure(a), self.dep(a))
        elif kind == "variable":
            name = self.fresh("v")
            self.emit(depth, f'{name} = tf.Variable({r.choice([1.0, 2.0, -0.5])}, name="{name}")')
            self.vars.append(name)
            self.var_dependent.add(name)
        elif kind == "get_variable":
            name = self.fresh("g")
            init = r.choice(["tf.zeros_initializer()", "tf.ones_initializer()", "tf.constant_initializer(0.5)"])
            self.emit(depth, f'{name} = tf.get_variable("{name}", shape=[], initializer={init})')
            self.vars.append(name)
            self.var_dependent.add(name)
        elif kind == "int":
            name = self.fresh("n")
            if self.ints and r.random() < 0.5:
                a, b = r.choice(self.ints)[0], r.choice(self.ints)[0]
                fn = r.choice(["tf.add", "tf.multiply", "tf.maximum"])
                self.emit(depth, f'{name} = {fn}({a}, {b}, name="{name}")')
            else:
                self.emit(depth, f'{name} = tf.constant({r.choice([1, 2, 3])}, name="{name}")')
            self.ints.append((name, not self.impure_block))
        elif kind == "metadata":
            a = self.pick_float()
            fn = r.choice(["tf.shape", "tf.size", "tf.rank"])
            name = self.fresh("m")
            self.emit(depth, f'{name} = {fn}({a}, name="{name}")')
            if fn != "tf.shape":
                self.ints.append((name, self.pure(a) and not self.impure_block))
        elif kind == "cast":
            if not self.ints:
                return self.statement(depth)
            a = r.choice(self.ints)[0]
            name = self.fresh("k")
            self.emit(depth, f'{name} = tf.cast({a}, tf.float32, name="{name}")')
            self.add_float(name, self.pure_int(a))
        elif kind == "string":
            if not self.ints:
                return self.statement(depth)
            a = r.choice(self.ints)[0]
            name = self.fresh("s")
            self.emit(depth, f'{name} = tf.as_string({a}, name="{name}")')
            self.strings.append((name, self.pure_int(a) and not self.impure_block))
        elif kind == "assign":
            if not self.vars:
                return self.statement(depth)
            v, a = r.choice(self.vars), self.pick_float()
            fn = r.choice(["tf.assign_add", "tf.assign", "tf.assign_sub"])
            name = self.fresh("a")
            self.emit(depth, f'{name} = {fn}({v}, {a}, name="{name}")')
            self.floats.append((name, False))
        elif kind == "minimize":
            deps = [f for f, _ in self.floats if f in self.var_dependent] + self.vars
            if not deps:
                return self.statement(depth)
            a = r.choice(deps)
            name = self.fresh("opt")
            colo = r.random() < 0.3
            self.emit(depth, f'{name} = {r.choice(OPTIMIZERS)}.minimize(tf.square({a}), name="{name}"'
                      + (', colocate_gradients_with_ops=True)' if colo else ')'))
            self.floats.append((name, None))  # an op: run, never fetched for a value
        elif kind == "cond":
            a, b, c = self.pick_float(), self.pick_float(), self.pick_float()
            name = self.fresh("cd")
            self.emit(depth, f'{name} = tf.cond({a} < {b}, lambda: tf.identity({c}), lambda: {c} * 2.0, name="{name}")')
            self.add_float(name, self.pure(a) and self.pure(b) and self.pure(c), self.dep(c))
        elif kind == "while":
            a = self.pick_float()
            name = self.fresh("w")
            self.emit(depth, f'{name} = tf.while_loop(lambda j, x: j < 3, lambda j, x: (j + 1, x * 2.0), '
                      f'[tf.constant(0), {a}], name="{name}")[1]')
            self.add_float(name, self.pure(a), self.dep(a))

    def pure(self, name):
        for f, p in self.floats:
            if f == name:
                return bool(p)
        return name in self.vars

    def pure_int(self, name):
        return next((p for f, p in self.ints if f == name), False)

    def dep(self, name):
        return name in self.var_dependent

    def block(self, depth, budget):
        r = self.rng
        while budget > 0:
            if depth < 4 and r.random() < 0.35:
                kind = r.choice(["device", "device", "device", "colocate", "colocate", "name", "vscope", "control"])
                if kind == "device":
                    d = r.choices(DEVICES, DEVICE_WEIGHTS)[0]
                    self.emit(depth, f"with tf.device({d}):")
                elif kind == "colocate":
                    targets = [f for f, p in self.floats if p is not None] + self.vars
                    if not targets:
                        continue
                    ignore = ", ignore_existing=True" if r.random() < 0.2 else ""
                    self.emit(depth, f"with tf.colocate_with({r.choice(targets)}{ignore}):")
                elif kind == "name":
                    self.emit(depth, f'with tf.name_scope("{self.fresh("ns")}"):')
                elif kind == "vscope":
                    self.emit(depth, f'with tf.variable_scope("{self.fresh("vs")}"):')
                else:
                    targets = [f for f, p in self.floats if p is not None]
                    if not targets:
                        continue
                    t = r.choice(targets)
                    self.emit(depth, f"with tf.control_dependencies([{t}]):")
                    impure = not self.pure(t)
                    self.impure_block += impure
                inner = r.randint(1, max(1, budget // 2))
                self.block(depth + 1, inner)
                if kind == "control":
                    self.impure_block -= impure
                budget -= inner
            else:
                self.statement(depth)
                budget -= 1


def generate(seed):
    """One random program (a dict, JSON-ready) from ``seed``."""
    rng = random.Random(seed)
    g = _Gen(rng)
    g.block(0, rng.randint(3, 14))
    fetch = [f for f, p in g.floats if p] + [f for f, p in g.ints if p] + [s for s, p in g.strings if p] + g.vars
    run = [f for f, p in g.floats if not p]  # updates and train ops: run once, values not kept
    return {"id": seed, "cpus": rng.choice([1, 2, 3, 4, 4]), "soft": rng.random() < 0.4,
            "graph": rng.choice(["as_default", "as_default", "global"]),
            "lines": g.lines, "run": run, "fetch": fetch}


def source(program):
    """The program's body as Python text (statements inside ``def build(tf)``)."""
    body = [("    " * (d + 1)) + line for d, line in program["lines"]] or ["    pass"]
    # a `with` line whose block was shrunk away gets a `pass`
    out = []
    for i, (d, line) in enumerate(program["lines"]):
        out.append(body[i])
        nxt = program["lines"][i + 1][0] if i + 1 < len(program["lines"]) else -1
        if line.endswith(":") and nxt <= d:
            out.append("    " * (d + 2) + "pass")
    return "def build(tf):\n" + "\n".join(out or body) + "\n    return locals()\n"


# ---------------------------------------------------------------------------------------------
# The runner (the same code under TF and devlab)
# ---------------------------------------------------------------------------------------------

_BOILERPLATE = re.compile(r"^(Graph execution error:|Detected at node|Node: )")


def error_fact(e):
    lines = [l for l in str(e).splitlines() if l.strip() and not l[0].isspace() and not _BOILERPLATE.match(l)]
    return [type(e).__name__, lines[0].strip() if lines else str(e).strip()]


def plain(value):
    import numpy as np
    a = np.asarray(value)
    if a.dtype.kind == "f":
        return [float(f"{x:.6g}") for x in a.astype(np.float32).astype(float).ravel().tolist()]
    if a.dtype.kind in "SO":
        return [x.decode() if isinstance(x, bytes) else x for x in a.ravel().tolist()]
    return a.ravel().tolist()


def config_of(tf, program, oracle):
    config = tf.ConfigProto(device_count={"CPU": program["cpus"]}, allow_soft_placement=program["soft"])
    if oracle:  # TF's placer answer, unmoved by grappler or constant folding
        config.graph_options.rewrite_options.disable_meta_optimizer = True
        config.graph_options.optimizer_options.opt_level = -1
    return config


def facts_of(tf, program, oracle=False):
    """Builds and runs ``program`` under ``tf``: {ops, placed, values, error}."""
    facts = {}
    partitions = []
    namespace = {"tf": tf}
    exec(compile(PRELUDE, "<prelude>", "exec"), namespace)
    exec(compile(source(program), f"<fuzz {program['id']}>", "exec"), namespace)
    if program["graph"] == "global":
        tf.reset_default_graph()
        graph = tf.get_default_graph()
        context = _Null()
    else:
        graph = tf.Graph()
        context = graph.as_default()
    with context:
        try:
            names = namespace["build"](namespace["tf"])
            with tf.Session(config=config_of(tf, program, oracle)) as sess:
                def run(fetches):
                    opts = tf.RunOptions(output_partition_graphs=True)
                    md = tf.RunMetadata()
                    out = sess.run(fetches, options=opts, run_metadata=md)
                    partitions.extend(md.partition_graphs)
                    return out
                if tf.global_variables():
                    run(tf.global_variables_initializer())
                for n in program["run"]:  # one update per run: two in one run race, in TF too
                    run(names[n])
                if program["fetch"]:
                    fetched = run([names[n] for n in program["fetch"]])
                    facts["values"] = {n: plain(v) for n, v in zip(program["fetch"], fetched)}
        except Exception as e:  # noqa: BLE001 - the class and the text are the facts
            facts["error"] = error_fact(e)
    ops = []
    for op in graph.get_operations():
        groups = sorted(x.decode() if isinstance(x, bytes) else x for x in op.colocation_groups())
        ops.append([op.name, op.type, op.device, groups])
    facts["ops"] = ops
    placed = {}
    for pg in partitions:
        for n in pg.node:
            if not re.search(r"(^|/)_", n.name):
                placed[n.name] = n.device
    if placed:
        facts["placed"] = dict(sorted(placed.items()))
    return facts


class _Null:
    def __enter__(self):
        return None

    def __exit__(self, *exc):
        return False


def tf_module():
    """TensorFlow's tf.compat.v1 with v2 behaviour off (only in TF's venv)."""
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    os.environ.setdefault("TF_ENABLE_ONEDNN_OPTS", "0")
    import tensorflow.compat.v1 as tf
    tf.disable_v2_behavior()
    tf.logging.set_verbosity(tf.logging.ERROR)
    return tf


def devlab_module():
    sys.path.insert(0, ROOT)
    import devlab
    return devlab


# ---------------------------------------------------------------------------------------------
# The comparer
# ---------------------------------------------------------------------------------------------

def differences(tf_facts, dl_facts):
    """The kinds of disagreement between two fact sets, most telling first (empty: agreement)."""
    out = []
    t_ops, d_ops = tf_facts.get("ops", []), dl_facts.get("ops", [])
    if [o[:2] for o in t_ops] != [o[:2] for o in d_ops]:
        out.append("graph")
    else:
        if any(a[2] != b[2] for a, b in zip(t_ops, d_ops)):
            out.append("requested")
        if any(a[3] != b[3] for a, b in zip(t_ops, d_ops)):
            out.append("groups")
    t_err, d_err = tf_facts.get("error"), dl_facts.get("error")
    if (t_err is None) != (d_err is None) or (t_err and t_err[0] != d_err[0]):
        out.append("error")
    elif t_err and t_err[1] != d_err[1]:
        out.append("error_text")
    t_pl, d_pl = tf_facts.get("placed", {}), dl_facts.get("placed", {})
    common = set(t_pl) & set(d_pl)
    if any(t_pl[n] != d_pl[n] for n in common):
        out.append("assigned")
    if tf_facts.get("values") != dl_facts.get("values") and not t_err and not d_err:
        out.append("values")
    return out


def detail(tf_facts, dl_facts):
    lines = []
    t_ops, d_ops = tf_facts.get("ops", []), dl_facts.get("ops", [])
    for a, b in zip(t_ops, d_ops):
        if a != b:
            lines.append(f"  op  TF {a}\n      DL {b}")
    if len(t_ops) != len(d_ops):
        lines.append(f"  ops: TF {len(t_ops)}, devlab {len(d_ops)}")
        lines.append(f"  TF only {[o[0] for o in t_ops if o[0] not in {x[0] for x in d_ops}][:8]}")
        lines.append(f"  DL only {[o[0] for o in d_ops if o[0] not in {x[0] for x in t_ops}][:8]}")
    t_pl, d_pl = tf_facts.get("placed", {}), dl_facts.get("placed", {})
    for n in sorted(set(t_pl) & set(d_pl)):
        if t_pl[n] != d_pl[n]:
            lines.append(f"  placed {n}: TF {t_pl[n]}, devlab {d_pl[n]}")
    if tf_facts.get("error") != dl_facts.get("error"):
        lines.append(f"  error TF {tf_facts.get('error')}\n        DL {dl_facts.get('error')}")
    if tf_facts.get("values") != dl_facts.get("values"):
        lines.append(f"  values TF {tf_facts.get('values')}\n         DL {dl_facts.get('values')}")
    return "\n".join(lines)


def render(program):
    head = f"# cpus={program['cpus']} soft={program['soft']} graph={program['graph']}"
    return head + "\n" + source(program)


# ---------------------------------------------------------------------------------------------
# Commands
# ---------------------------------------------------------------------------------------------

def _program(name, lines, cpus=2, soft=False, graph="as_default", run=(), fetch=()):
    """A hand-written program in the fuzzer's format: ``lines`` as source, 4 spaces an indent."""
    parsed = []
    for line in lines.strip("\n").splitlines():
        stripped = line.lstrip(" ")
        parsed.append([(len(line) - len(stripped)) // 4, stripped])
    return {"id": name, "cpus": cpus, "soft": soft, "graph": graph, "lines": parsed,
            "run": list(run), "fetch": list(fetch)}


# Each class of disagreement the fuzzer found, shrunk to a minimal program (TF's answers are
# recorded in tests/data/placement_fuzz_classes.json by ``record-classes``).
CLASSES = [
    _program("init_scope_as_default", """
a = tf.constant(1.0, name="a")
with tf.device("/cpu:1"):
    with tf.colocate_with(a):
        v = tf.Variable(2.0, name="v")
""", fetch=["a", "v"]),
    _program("init_scope_as_default_one_cpu", """
a = tf.constant(1.0, name="a")
with tf.device("/cpu:1"):
    with tf.colocate_with(a):
        v = tf.Variable(2.0, name="v")
""", cpus=1, fetch=["a", "v"]),
    _program("init_scope_global_graph", """
a = tf.constant(1.0, name="a")
with tf.device("/cpu:1"):
    with tf.colocate_with(a):
        v = tf.Variable(2.0, name="v")
""", graph="global", fetch=["a", "v"]),
    _program("init_scope_variable_scope_records", """
c1 = tf.constant(1.0, name="c1")
with tf.variable_scope("vs2"):
    with tf.device("/cpu:1"):
        with tf.colocate_with(c1, ignore_existing=True):
            g3 = tf.get_variable("g3", shape=[], initializer=tf.ones_initializer())
""", graph="global", fetch=["c1", "g3"]),
    _program("init_scope_newest_record_only", """
c1 = tf.constant(1.0, name="c1")
with tf.device("/cpu:1"):
    with tf.colocate_with(c1):
        with tf.variable_scope("vs6"):
            v7 = tf.Variable(-0.5, name="v7")
""", fetch=["v7"]),
    _program("minimize_in_device_scope", """
v = tf.Variable([1.0, 2.0], name="v")
with tf.device("/cpu:1"):
    train = tf.train.AdagradOptimizer(0.1).minimize(tf.reduce_sum(v * v))
""", run=["train"], fetch=["v"]),
    _program("minimize_in_device_scope_global_graph", """
v = tf.Variable([1.0, 2.0], name="v")
with tf.device("/cpu:1"):
    train = tf.train.AdamOptimizer(0.1).minimize(tf.reduce_sum(v * v))
""", graph="global", run=["train"], fetch=["v"]),
    _program("identity_follows_group_device", """
a = tf.constant(1.0, name="a")
with tf.colocate_with(a):
    with tf.device("/cpu:2"):
        v = tf.get_variable("v", shape=[], initializer=tf.zeros_initializer())
    n = tf.negative(a, name="n")
i = tf.identity(n, name="i")
""", cpus=3, fetch=["i"]),
    _program("cond_identity_follows_its_switch", """
v2 = tf.Variable(-0.5, name="v2")
with tf.colocate_with(v2):
    with tf.device("/device:CPU:1"):
        n3 = tf.constant(1, name="n3")
    g4 = tf.get_variable("g4", shape=[], initializer=tf.constant_initializer(0.5))
k9 = tf.cast(n3, tf.float32, name="k9")
cd10 = tf.cond(g4 < k9, lambda: tf.identity(g4), lambda: g4 * 2.0, name="cd10")
""", fetch=["cd10"]),
    _program("fetched_replicated_constant", """
with tf.device("/cpu:2"):
    n7 = tf.constant(1, name="n7")
n9 = tf.maximum(n7, n7, name="n9")
with tf.device("/cpu:1"):
    n10 = tf.multiply(n7, n7, name="n10")
""", cpus=3, fetch=["n7", "n9", "n10"]),
    _program("colocation_error_quotes_the_nodes_own_request", """
c2 = tf.constant(3.0, name="c2")
with tf.colocate_with(c2):
    i3 = tf.identity(c2, name="i3")
    with tf.device("/cpu:3"):
        v4 = tf.Variable(1.0, name="v4")
""", fetch=["i3"]),
    _program("colocation_with_a_placed_op_overrides_the_device_scope", """
with tf.device("/job:localhost/task:0/cpu:1"):
    a = tf.constant(1.0, name="a")
with tf.device("/cpu:2"):
    with tf.colocate_with(a):
        v = tf.Variable(2.0, name="v")
""", cpus=3, fetch=["v"]),
    _program("colocation_error_quotes_an_empty_request", """
v2 = tf.Variable(1.0, name="v2")
with tf.device("/cpu:1"):
    r = tf.identity(v2, name="r")
with tf.colocate_with(v2):
    with tf.device("/task:1/cpu:0"):
        i5 = tf.identity(r, name="i5")
""", fetch=["i5"]),
    _program("merge_error_names_the_merged_target_first", """
c1 = tf.constant(1.0, name="c1")
with tf.colocate_with(c1):
    with tf.device(tf.train.replica_device_setter(ps_tasks=1, ps_device="/job:localhost/cpu:1", worker_device="/job:localhost/cpu:0")):
        v7 = tf.Variable(-0.5, name="v7")
""", cpus=3, graph="global", fetch=["v7"]),
    _program("soft_placement_skips_a_failed_colocation", """
with tf.device("/cpu:1"):
    a = tf.constant(1.0, name="a")
with tf.device("/cpu:2"):
    with tf.colocate_with(a):
        v = tf.Variable(2.0, name="v")
b = tf.add(a, v, name="b")
""", cpus=3, soft=True, fetch=["b"]),
    _program("soft_placement_keeps_a_variables_device", """
with tf.device("/cpu:2"):
    v = tf.Variable(2.0, name="v")
with tf.colocate_with(v):
    with tf.device("/cpu:1"):
        i = tf.identity(v, name="i")
""", cpus=3, soft=True, fetch=["i"]),
    _program("soft_placement_of_a_missing_cpu", """
with tf.device("/cpu:3"):
    a = tf.constant(1.0, name="a")
    b = tf.negative(a, name="b")
""", cpus=2, soft=True, fetch=["b"]),
    _program("device_function_returning_none", """
with tf.device(lambda op: None):
    c = tf.constant(1.0, name="c")
""", fetch=["c"]),
    _program("xla_gpu_device_string", """
with tf.device("XLA_GPU"):
    c = tf.constant(1.0, name="c")
""", fetch=["c"]),
    _program("assign_of_another_dtype", """
v = tf.Variable(1.0, name="v")
k = tf.constant(1, name="k")
a = tf.assign(v, k, name="a")
""", fetch=["v"]),
    _program("cond_switch_of_a_loop_exit_keeps_its_placement", """
c1 = tf.constant(0.5, name="c1")
w3 = tf.while_loop(lambda j, x: j < 3, lambda j, x: (j + 1, x * 2.0), [tf.constant(0), c1], name="w3")[1]
v7 = tf.Variable(1.0, name="v7")
with tf.colocate_with(w3):
    cd8 = tf.cond(v7 < c1, lambda: tf.identity(w3), lambda: w3 * 2.0, name="cd8")
    with tf.device("/device:CPU:1"):
        i9 = tf.identity(v7, name="i9")
""", cpus=4, soft=True, fetch=["cd8", "i9"]),
    _program("while_constant_under_control_dependencies", """
c1 = tf.constant(1.0, name="c1")
with tf.control_dependencies([c1]):
    w3 = tf.while_loop(lambda j, x: j < 3, lambda j, x: (j + 1, x * 2.0), [tf.constant(0), c1], name="w3")[1]
""", fetch=["w3"]),
]


def cmd_record_classes(args):
    """In TF's venv: TF's facts for each class program."""
    tf = tf_module()
    import tensorflow as real_tf
    out = [{"program": p, "tf": facts_of(tf, p, oracle=True)} for p in CLASSES]
    with open(args.out, "w") as f:
        json.dump({"tensorflow": real_tf.__version__, "cases": out}, f, indent=1)
    print(f"{len(out)} class programs recorded with TF {real_tf.__version__} -> {args.out}")


def cmd_gen(args):
    programs = [generate(args.seed + i) for i in range(args.count)]
    with open(args.out, "w") as f:
        json.dump(programs, f)
    print(f"{len(programs)} programs -> {args.out}")


def cmd_record(args):
    """In TF's venv: the facts of every program, one process for all."""
    tf = tf_module()
    import tensorflow as real_tf
    with open(args.programs) as f:
        programs = json.load(f)
    out = []
    for p in programs:
        out.append({"program": p, "tf": facts_of(tf, p, oracle=True)})
    with open(args.out, "w") as f:
        json.dump({"tensorflow": real_tf.__version__, "cases": out}, f)
    print(f"{len(out)} programs recorded with TF {real_tf.__version__} -> {args.out}")


def compare_cases(cases, verbose=False, tally=None):
    """Runs each recorded case under devlab; returns {kind: [ids]} of disagreements."""
    tf = devlab_module()
    import io
    import contextlib
    bad = {}
    for case in cases:
        with contextlib.redirect_stdout(io.StringIO()):
            dl = facts_of(tf, case["program"])
        kinds = differences(case["tf"], dl)
        for k in kinds:
            bad.setdefault(k, []).append(case["program"]["id"])
        if tally is not None:
            tally.append((case["program"]["id"], kinds))
        if kinds and verbose:
            print(f"--- program {case['program']['id']}: {kinds}")
            print(render(case["program"]))
            print(detail(case["tf"], dl))
    return bad


def cmd_compare(args):
    with open(args.recorded) as f:
        cases = json.load(f)["cases"]
    if args.ids:
        ids = {int(x) for x in args.ids.split(",")}
        cases = [c for c in cases if c["program"]["id"] in ids]
    tally = []
    bad = compare_cases(cases, args.verbose, tally)
    agree = sum(1 for _, k in tally if not k)
    errors = sum(1 for c in cases if c["tf"].get("error"))
    print(f"{len(cases)} programs: {agree} agree on everything ({100.0 * agree / max(1, len(cases)):.1f}%); "
          f"TF raised in {errors}")
    for k, ids in sorted(bad.items()):
        print(f"  {k}: {len(ids)}  e.g. {ids[:10]}")


def _candidates(lines):
    """Programs with one statement (and the block it opens) removed, biggest cuts first."""
    out = []
    for i, (d, _) in enumerate(lines):
        j = i + 1
        while j < len(lines) and lines[j][0] > d:
            j += 1
        out.append(lines[:i] + lines[j:])
    # unwrap a `with`: its block moves out one level
    for i, (d, line) in enumerate(lines):
        if line.startswith("with "):
            j = i + 1
            while j < len(lines) and lines[j][0] > d:
                j += 1
            out.append(lines[:i] + [[x - 1, l] for x, l in lines[i + 1:j]] + lines[j:])
    out.sort(key=len)
    return out


def cmd_shrink(args):
    """Removes statements while devlab and TF disagree the same way (TF asked in batches)."""
    with open(args.recorded) as f:
        case = next(c for c in json.load(f)["cases"] if c["program"]["id"] == args.id)
    program = case["program"]
    import io
    import contextlib
    tf = devlab_module()
    with contextlib.redirect_stdout(io.StringIO()):
        target = differences(case["tf"], facts_of(tf, program))
    print("disagreement:", target)
    progress = True
    while progress:
        progress = False
        cands = []
        for lines in _candidates(program["lines"]):
            p = dict(program, lines=lines)
            names = {n for _, l in lines for n in re.findall(r"\b([a-z]+\d+)\b", l)}
            p["run"] = [n for n in program["run"] if n in names]
            p["fetch"] = [n for n in program["fetch"] if n in names]
            cands.append(p)
        if not cands:
            break
        tf_facts = _tf_batch(args.python, cands)
        for p, t in zip(cands, tf_facts):
            with contextlib.redirect_stdout(io.StringIO()):
                kinds = differences(t, facts_of(tf, p))
            if kinds and set(kinds) & set(target) and not t.get("error", ["", ""])[0] in ("NameError",):
                program, case = p, {"program": p, "tf": t}
                progress = True
                break
    print(render(program))
    with contextlib.redirect_stdout(io.StringIO()):
        dl = facts_of(tf, program)
    print(detail(case["tf"], dl))


def _tf_batch(python, programs):
    tmp_in, tmp_out = "/tmp/.fuzz24a_in.json", "/tmp/.fuzz24a_out.json"
    with open(tmp_in, "w") as f:
        json.dump(programs, f)
    subprocess.run([python, os.path.abspath(__file__), "record", tmp_in, tmp_out], check=True,
                   capture_output=True)
    with open(tmp_out) as f:
        return [c["tf"] for c in json.load(f)["cases"]]


def cmd_corpus(args):
    """Keeps a varied sample of recorded cases (every kind of outcome) as the replayed corpus."""
    with open(args.recorded) as f:
        data = json.load(f)
    rng = random.Random(0)
    cases = list(data["cases"])
    rng.shuffle(cases)
    keep = sorted(cases[:args.count], key=lambda c: c["program"]["id"])
    with open(args.out, "w") as f:
        json.dump({"tensorflow": data["tensorflow"], "cases": keep}, f, separators=(",", ":"))
    print(f"{len(keep)} cases -> {args.out}")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    g = sub.add_parser("gen")
    g.add_argument("--seed", type=int, default=0)
    g.add_argument("--count", type=int, default=2000)
    g.add_argument("--out", required=True)
    r = sub.add_parser("record")
    r.add_argument("programs")
    r.add_argument("out")
    c = sub.add_parser("compare")
    c.add_argument("recorded")
    c.add_argument("--verbose", action="store_true")
    c.add_argument("--ids")
    s = sub.add_parser("shrink")
    s.add_argument("recorded")
    s.add_argument("id", type=int)
    s.add_argument("--python", default=TF_PYTHON)
    k = sub.add_parser("corpus")
    k.add_argument("recorded")
    k.add_argument("out")
    k.add_argument("--count", type=int, default=300)
    rc = sub.add_parser("record-classes")
    rc.add_argument("out")
    args = ap.parse_args(argv)
    {"record-classes": cmd_record_classes, "gen": cmd_gen, "record": cmd_record, "compare": cmd_compare, "shrink": cmd_shrink,
     "corpus": cmd_corpus}[args.cmd](args)


if __name__ == "__main__":
    main()
