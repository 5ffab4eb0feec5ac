"""Runs one program of this folder under a given ``tf`` and collects the facts to compare.

A program module (``pNN_*.py``) is TF1 code written the way people write it. It defines

* ``build(tf, **kwargs)``: builds the graph with ``tf`` (TensorFlow's ``compat.v1`` or
  devlab, the same code) and returns a *run spec*, or None when the program is graph-only:
  ``{"fetch": {name: tensor}, "train": op or [ops], "steps": N, "feed": {placeholder: array},
  "run_only": [ops run once after training, values not kept], "extra": {facts known at
  build time, recorded as they are}}``. The harness opens a session,
  runs the variable initializers, runs ``train`` ``steps`` times, then ``run_only``, then
  fetches ``fetch``;
* or ``run(tf, sess_config, **kwargs)``: builds and runs the program itself (scripts with
  ``tf.app.run``, ``Supervisor``, ``MonitoredTrainingSession``) and returns ``{name: value}``.
  It passes ``sess_config`` to whatever session it opens, and calls :func:`traced_run` where
  it wants placements recorded;
* ``VARIANTS``: ``{variant: {"kwargs": {...}, "config": {ConfigProto fields}, "note": str}}``
  (one variant ``"main"`` with no kwargs when absent). A variant with ``"execute": False`` is
  only built; ``"record": [keys]`` keeps only those facts (GPU-flavoured variants soft-placed
  on a machine without GPUs keep ``ops`` and ``placed``: their log says CPU:0 for every op).

The facts of one variant (see :func:`record`):

* ``ops``: ``[name, type, requested device, sorted colocation groups]`` per op, in creation order;
* ``placed``: ``{node: device}`` from the partition graphs of every ``Session.run`` made with
  ``RunOptions(output_partition_graphs=True)`` (names with a component starting with ``_``,
  the transfers and TF's replicated constants, are left out);
* ``values``: the fetched values as lists, floats rounded to float32 precision (7 digits);
* ``log``: the sorted, de-duplicated placement lines printed while ``log_device_placement``
  is on. TensorFlow prints them from C++ to file descriptor 1 (and again through its logger
  on fd 2, ignored here); devlab prints them to ``sys.stdout``. :func:`capture_stdout`
  catches both;
* ``error``: ``[exception class name, first line of its message]`` when the program fails.
"""
import contextlib
import ctypes
import io
import os
import re
import sys
import tempfile

import numpy as np

ORACLE = False  # the TensorFlow recorder sets this: graph rewrites off, as conformance/public_cases.py does
_PARTITIONS = []  # partition graphs of the runs made through traced_run, for `placed`
LAST_EXCEPTION = None  # the exception behind the last recorded `error` (tools read its traceback)

LOG_LINE = re.compile(r"^\S+: \(\w+\): /job:")


def ops_of(tf, graph=None):
    out = []
    for op in (graph or tf.get_default_graph()).get_operations():
        groups = [x.decode() if isinstance(x, bytes) else x for x in op.colocation_groups()]
        out.append([op.name, op.type, op.device, sorted(groups)])
    return out


def make_config(tf, **fields):
    """A ConfigProto with the variant's fields; placement is always logged."""
    fields.setdefault("log_device_placement", True)
    config = tf.ConfigProto(**fields)
    if ORACLE:  # the placer's own placement: no grappler rewrites, no constant folding
        config.graph_options.rewrite_options.disable_meta_optimizer = True
        config.graph_options.optimizer_options.opt_level = -1
    return config


def traced_run(tf, sess, fetches, feed_dict=None):
    """``sess.run`` that keeps the partition graphs, so the harness can tell where each node ran."""
    opts = tf.RunOptions(output_partition_graphs=True)
    md = tf.RunMetadata()
    out = sess.run(fetches, feed_dict=feed_dict, options=opts, run_metadata=md)
    _PARTITIONS.extend(md.partition_graphs)
    return out


def placed_nodes():
    placed = {}
    for pg in _PARTITIONS:
        for n in pg.node:
            if not re.search(r"(^|/)_", n.name):
                placed[n.name] = n.device
    return dict(sorted(placed.items()))


def plain(value):
    """A fetched value as JSON: nested lists, floats at float32 precision, bytes as str."""
    if isinstance(value, dict):
        return {k: plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    if value is None:
        return None
    if isinstance(value, bytes):
        return value.decode("utf-8", "replace")
    a = np.asarray(value)
    if a.dtype.kind == "f":
        return _round(a.astype(np.float32).astype(float).tolist())
    if a.dtype.kind in "SO":
        return _round(a.tolist())
    return a.tolist()


def _round(x):
    if isinstance(x, list):
        return [_round(v) for v in x]
    if isinstance(x, float):
        return float(f"{x:.7g}")
    if isinstance(x, bytes):
        return x.decode("utf-8", "replace")
    return x


@contextlib.contextmanager
def capture_stdout():
    """Catches what is written to ``sys.stdout`` *and* to file descriptor 1 (C++ printf).

    Yields a list that holds the captured text once the block has ended.
    """
    result = []
    sys.stdout.flush()
    saved = os.dup(1)
    libc = ctypes.CDLL(None)
    with tempfile.TemporaryFile(mode="w+b") as tmp:
        os.dup2(tmp.fileno(), 1)
        buf = io.StringIO()
        try:
            with contextlib.redirect_stdout(buf):
                yield result
        finally:
            libc.fflush(None)
            os.dup2(saved, 1)
            os.close(saved)
            tmp.seek(0)
            result.append(tmp.read().decode("utf-8", "replace") + buf.getvalue())


def variants(module):
    return getattr(module, "VARIANTS", None) or {"main": {}}


def _execute(tf, spec, config):
    values = {}
    with tf.Session(config=config) as sess:
        init = []
        if tf.global_variables():
            init.append(tf.global_variables_initializer())
        if tf.local_variables():
            init.append(tf.local_variables_initializer())
        if init:
            traced_run(tf, sess, init)
        feed = spec.get("feed")
        train = spec.get("train")
        for _ in range(spec.get("steps", 1) if train is not None else 0):
            traced_run(tf, sess, train, feed)
        for op in spec.get("run_only", []):
            traced_run(tf, sess, op, feed)
        if spec.get("fetch"):
            values = traced_run(tf, sess, spec["fetch"], feed)
    return values


_BOILERPLATE = re.compile(r"^(Graph execution error:|Detected at node|Node: )")


def error_fact(e):
    """[class name, first line of the message that names the problem].

    TF 2.x's session errors start with 'Graph execution error:', then 'Detected at node ...'
    and an indented traceback; those lines are skipped.
    """
    lines = [l for l in str(e).splitlines() if l.strip() and not l[0].isspace() and not _BOILERPLATE.match(l)]
    return [type(e).__name__, lines[0].strip() if lines else str(e).strip()]


def record(tf, module, variant):
    """The facts of one variant of a program, in a fresh default graph."""
    global LAST_EXCEPTION
    del _PARTITIONS[:]
    LAST_EXCEPTION = None
    v = variants(module)[variant]
    kwargs = v.get("kwargs", {})
    config_fields = v.get("config", {})
    facts = {"config": config_fields}
    if v.get("note"):
        facts["note"] = v["note"]
    graph = tf.Graph()
    with graph.as_default(), capture_stdout() as out:
        try:
            if hasattr(module, "run"):
                if hasattr(tf, "set_random_seed"):
                    tf.set_random_seed(0)
                values = module.run(tf, make_config(tf, **config_fields), **kwargs)
            else:
                tf.set_random_seed(0)
                spec = module.build(tf, **kwargs)
                values = None
                if spec is not None and spec.get("extra"):
                    facts["extra"] = plain(spec["extra"])
                if spec is not None and v.get("execute", True):
                    values = _execute(tf, spec, make_config(tf, **config_fields))
            if values is not None:
                facts["values"] = plain(values)
        except (Exception, SystemExit) as e:  # noqa: BLE001 - the class and the text are the facts
            LAST_EXCEPTION = e
            facts["error"] = error_fact(e)
    facts["ops"] = ops_of(tf, graph)
    if _PARTITIONS:
        facts["placed"] = placed_nodes()
    log = sorted({l for l in out[0].splitlines() if LOG_LINE.match(l)})
    if log:
        facts["log"] = log
    keep = v.get("record")
    if keep:
        facts = {k: x for k, x in facts.items() if k in keep or k in ("config", "note", "error")}
    return facts
