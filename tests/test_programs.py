"""TF1 programs written the way people write them (tests/programs/), run under devlab and
compared with what TensorFlow 2.21 recorded for them (tests/data/tf_recorded/): the ops (names,
types, requested devices, colocation groups), where each node was placed, the placement log,
the fetched values after training, and the error when TF fails too.

Op creation order is not compared: the order ``tf.gradients`` creates gradient ops in is its own
business. Variants still blocked by work outside the op surface are marked ``xfail`` with the
part of devlab they wait for; they report XPASS once it lands.
"""
import importlib
import json
import os
import sys

import numpy as np
import pytest

import devlab as tf

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "programs"))
harness = importlib.import_module("harness")

WAITS = {  # (program, variant or None for all): what the variant waits for
}


def recorded(program):
    with open(os.path.join(HERE, "data", "tf_recorded", program + ".json")) as f:
        return json.load(f)


def cases():
    for path in sorted(os.listdir(os.path.join(HERE, "programs"))):
        if not (path.startswith("p") and path.endswith(".py")):
            continue
        program = path[:-3]
        for variant in recorded(program)["variants"]:
            waits = WAITS.get((program, variant)) or WAITS.get((program, None))
            marks = [pytest.mark.xfail(reason=f"waits for {waits}", strict=False)] if waits else []
            yield pytest.param(program, variant, id=f"{program}-{variant}", marks=marks)


def close(got, want):
    if isinstance(want, dict):
        return isinstance(got, dict) and got.keys() == want.keys() and all(close(got[k], want[k]) for k in want)
    if isinstance(want, list) and any(isinstance(w, (str, list, dict)) for w in want):
        return isinstance(got, list) and len(got) == len(want) and all(close(g, w) for g, w in zip(got, want))
    if isinstance(want, str) or want is None:
        return got == want
    try:
        return np.allclose(np.asarray(got, dtype=float), np.asarray(want, dtype=float), rtol=1e-5, atol=1e-6)
    except (TypeError, ValueError):
        return False


def differences(got, want):
    """What differs between devlab's facts and TF's, in a few lines."""
    out = []
    if got.get("error") != want.get("error"):
        out.append(f"error: devlab {got.get('error')}, TF {want.get('error')}")
    g_ops = {json.dumps(o) for o in got.get("ops", [])}
    w_ops = {json.dumps(o) for o in want.get("ops", [])}
    out += [f"op only TF has: {o}" for o in sorted(w_ops - g_ops)[:10]]
    out += [f"op only devlab has: {o}" for o in sorted(g_ops - w_ops)[:10]]
    # creation order is the order of the graph file and of the placement log
    g_names, w_names = [o[0] for o in got.get("ops", [])], [o[0] for o in want.get("ops", [])]
    g_order = [n for n in g_names if n in set(w_names)]
    w_order = [n for n in w_names if n in set(g_names)]
    if g_order != w_order:
        i = next(i for i, (a, b) in enumerate(zip(g_order, w_order)) if a != b)
        out.append(f"ops created in another order from {i}: devlab {g_order[i:i + 4]}, TF {w_order[i:i + 4]}")
    for key in ("placed", "values", "extra"):
        if key in want and not close(got.get(key), want[key]):
            out.append(f"{key}: devlab {got.get(key)}, TF {want[key]}")
    if "log" in want and set(got.get("log", [])) != set(want["log"]):
        out.append(f"log lines only TF prints: {sorted(set(want['log']) - set(got.get('log', [])))[:5]}")
        out.append(f"log lines only devlab prints: {sorted(set(got.get('log', [])) - set(want['log']))[:5]}")
    return out


@pytest.mark.parametrize("program,variant", list(cases()))
def test_program_gives_what_tensorflow_gives(program, variant):
    module = importlib.import_module(program)
    want = recorded(program)["variants"][variant]
    got = harness.record(tf, module, variant)
    if "placed" not in want:
        got.pop("placed", None)
    diffs = differences(got, want)
    assert not diffs, "\n".join(diffs)
