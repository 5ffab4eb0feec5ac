"""Each snippet of tests/op_graphs/ builds, under devlab, the graph TensorFlow 2.21 builds, and
computes the same values: op names, types, inputs (Const values included), control inputs, static
shapes, requested devices and colocation groups, against what tools/record_op_graphs.py recorded
from TensorFlow.

Three things belong to ``tf.gradients`` itself (devlab/api/gradients.py), not to the op rules
checked here, and are left out of the comparison: the AddN ops that sum gradients, the
``zeros_like`` fed to rules for outputs that got no gradient (TF's ``gradients/zeros_like``,
made by the rule under devlab's), and the names of the ``grad_ys`` shape ops; so is the order
gradient ops are created in (the sets must be equal). ``zero_fraction`` (TF: a ``tf.cond``) and
the gradient of ``gather`` along axis 0 (TF: IndexedSlices) differ on purpose and are not here.
"""
import glob
import json
import os
import re

import numpy as np
import pytest

import devlab as tf

HERE = os.path.dirname(os.path.abspath(__file__))
SNIPPETS = sorted(os.path.basename(p)[:-3] for p in glob.glob(os.path.join(HERE, "op_graphs", "*.py")))
GRADIENTS_OWN = re.compile(r"^(.*/)?gradients(_\d+)?/(AddN(_\d+)?|zeros_like(_\d+)?|Shape(_\d+)?|grad_ys_\d+/Shape)"
                           r"(:\d+)?$")


def plain(value):
    value = np.asarray(value)
    if value.dtype == object:
        return [v.decode() if isinstance(v, bytes) else str(v) for v in value.reshape(-1)]
    return np.round(value.astype(float), 6).tolist()


def describe(graph):
    ops = []
    for op in graph.get_operations():
        const = None
        if op.type == "Const":
            value = np.asarray(op.get_attr("value"))
            const = plain(value) if value.size <= 16 else None
        groups = sorted(g.decode() if isinstance(g, bytes) else g for g in op.colocation_groups())
        ops.append([op.name, op.type, [t.name for t in op.inputs], [c.name for c in op.control_inputs], const,
                    [str(t.shape) for t in op.outputs], op.device, groups])
    return ops


def normalized(ops):
    """The ops as comparable lines, without what tf.gradients itself decides (see the docstring)."""
    def name(n):
        n = re.sub(r"^((.*/)?gradients(_\d+)?/)(grad_ys_\d+/)?Shape(_\d+)?(:0)?$", r"\1grad_ys shape", n)
        n = re.sub(r"^((.*/)?gradients(_\d+)?/).*_grad/zeros_like(:0)?$", r"\1zeros_like", n)
        return re.sub(r"^((.*/)?gradients(_\d+)?/)(AddN|zeros_like)(_\d+)?(:0)?$", r"\1\4", n)
    lines = []
    for op_name, op_type, inputs, controls, const, shapes, device, groups in ops:
        if GRADIENTS_OWN.match(op_name) or re.match(r"^(.*/)?gradients(_\d+)?/.*_grad/zeros_like$", op_name):
            continue
        lines.append(json.dumps([op_name, op_type, sorted(name(i) for i in inputs) if op_type == "AddN" else
                                 [name(i) for i in inputs], sorted(controls), const, shapes, device, groups]))
    return sorted(lines)


@pytest.mark.parametrize("snippet", SNIPPETS)
def test_snippet_builds_and_computes_what_tensorflow_does(snippet):
    with open(os.path.join(HERE, "data", "op_graphs", snippet + ".json")) as f:
        recorded = json.load(f)
    env = {"tf": tf, "np": np}
    graph = tf.get_default_graph()
    with open(os.path.join(HERE, "op_graphs", snippet + ".py")) as f:
        exec(compile(f.read(), snippet, "exec"), env)  # noqa: S102 - our own test snippets
    got, want = normalized(describe(graph)), normalized(recorded["ops"])
    missing, extra = sorted(set(want) - set(got)), sorted(set(got) - set(want))
    assert not missing and not extra, "TF has:\n  " + "\n  ".join(missing) + "\ndevlab has:\n  " + "\n  ".join(extra)
    if "values" in recorded:
        with tf.Session(config=tf.ConfigProto(**env.get("CONFIG", {}))) as sess:
            sess.run(tf.global_variables_initializer())
            feed = {graph.get_tensor_by_name(k + ":0"): v for k, v in env.get("FEED", {}).items()}
            for fetch in env.get("PRERUN", []):  # one run each (training steps), before FETCH
                sess.run(fetch, feed)
            values = sess.run(env["FETCH"], feed)
        for i, (value, want_value) in enumerate(zip(values, recorded["values"])):
            got_value = plain(value)
            if value is not None and np.asarray(value).dtype == object:
                assert got_value == want_value, f"FETCH[{i}]"
            else:
                np.testing.assert_allclose(got_value, want_value, rtol=1e-4, atol=1e-5, err_msg=f"FETCH[{i}]")
