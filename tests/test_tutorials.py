"""The tutorials as a learner meets them: each source (``notebooks/src/*.md``) agrees with its
executed notebook; run as shipped, no check says an exercise is solved; with the answers from
``tutorial_solutions.py`` every check says ✔; every seed program is kept once in ``examples/``
and runs there."""
import glob
import os
import subprocess
import sys

import nbformat
import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
NOTEBOOKS = os.path.join(ROOT, "notebooks")
sys.path.insert(0, NOTEBOOKS)
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import build  # noqa: E402  (notebooks/build.py)
from tutorial_solutions import SOLUTIONS  # noqa: E402

NAMES = build.names()
TICK, CROSS = "\u2714", "\u2718"


def tagged(nb, tag):
    return [c for c in nb.cells if tag in c.metadata.get("tags", ())]


def check_lines(cell):
    text = "".join(o.get("text", "") for o in cell.get("outputs", []) if o.get("output_type") == "stream")
    return [line for line in text.splitlines() if line.strip()]


def test_every_tutorial_has_a_source_and_the_readme_lists_them_all():
    assert len(NAMES) == 14
    with open(os.path.join(ROOT, "README.md")) as f:
        readme = f.read()
    assert all(f"| `{name}` |" in readme for name in NAMES)
    assert sorted(os.path.basename(p)[:-6] for p in glob.glob(os.path.join(NOTEBOOKS, "*.ipynb"))) == NAMES
    assert not os.path.exists(os.path.join(NOTEBOOKS, "build_notebooks.py"))


@pytest.mark.parametrize("name", NAMES)
def test_source_and_notebook_agree(name):
    assert build.disagreements(name) == []


@pytest.mark.parametrize("name", NAMES)
def test_shipped_notebook_solves_no_exercise(name):
    nb = nbformat.read(os.path.join(NOTEBOOKS, name + ".ipynb"), as_version=4)
    exercises, checks = tagged(nb, "exercise"), tagged(nb, "check")
    assert exercises and checks, "every tutorial asks the learner something"
    assert len(SOLUTIONS[name]) == len(exercises)
    for cell in checks:
        lines = check_lines(cell)
        assert lines and all(line.startswith(CROSS) for line in lines), lines
        assert "nbval-check-output" in cell.metadata["tags"]  # nbval re-runs it and expects the same ✘
    for cell in nb.cells:
        for out in cell.get("outputs", []):
            text = out.get("text", "") + str(out.get("data", {}).get("text/plain", ""))
            assert "already loaded" not in text
            assert "/tmp/ipykernel" not in text or out.get("output_type") == "error"
            if "application/vnd.jupyter.widget-view+json" in out.get("data", {}):
                assert "run this cell" in text or "run the cell" in text  # a hint, opened before running
    assert "widgets" not in nb.metadata  # widget state is cleared, not half-saved


@pytest.mark.parametrize("name", NAMES)
def test_solutions_make_every_check_pass(name):
    nb = nbformat.read(os.path.join(NOTEBOOKS, name + ".ipynb"), as_version=4)
    for cell, answer in zip(tagged(nb, "exercise"), SOLUTIONS[name]):
        cell.source = answer
    build.execute(nb, timeout=300)
    errors = [(i, o["ename"], o["evalue"]) for i, c in enumerate(nb.cells) for o in c.get("outputs", [])
              if o.get("output_type") == "error" and "raises-exception" not in c.metadata.get("tags", ())]
    assert not errors
    for cell in tagged(nb, "check"):
        lines = check_lines(cell)
        assert lines and all(line.startswith(TICK) for line in lines), (cell.source, lines)


SEED_EXAMPLES = {
    "000": ["seed000_colocate_with.py"],
    "001": ["seed001_assign_to_device.py", "seed001_colocate_gradients.py", "seed001_update_ops.py"],
    "002": ["seed002_device_scope.py"],
    "003": ["seed003_merge_call.py"],
    "004": ["seed004_log_placement.py", "seed004_pinned_inputs.py", "seed004_invalid_device.py",
            "seed004_mixed_sum.py", "seed004_device_count.py"],
}


def test_every_seed_program_is_kept_once_in_examples():
    kept = sorted(os.path.basename(p) for p in glob.glob(os.path.join(ROOT, "examples", "seed*.py")))
    listed = sorted(f for files in SEED_EXAMPLES.values() for f in files)
    assert kept == listed
    seeds = sorted(os.path.basename(p)[:3] for p in glob.glob(os.path.join(ROOT, "..", "shared", "seeds", "*.txt")))
    if seeds:
        assert seeds == sorted(SEED_EXAMPLES)
    bodies = [open(os.path.join(ROOT, "examples", f)).read().split('"""', 2)[-1] for f in kept]
    assert len(set(bodies)) == len(bodies)  # no program twice


@pytest.mark.parametrize("example", sorted(f for files in SEED_EXAMPLES.values() for f in files))
def test_seed_example_runs_with_devlab_place(example):
    proc = subprocess.run([sys.executable, "-m", "devlab", "place", os.path.join("examples", example), "--gpus", "4"],
                          cwd=ROOT, capture_output=True, text=True, timeout=300)
    if example == "seed004_invalid_device.py":
        assert proc.returncode == 1 and "was explicitly assigned to /device:CPU:1" in proc.stderr + proc.stdout
    else:
        assert proc.returncode == 0, proc.stderr


def test_tutorial05_copies_are_tensorflows_and_colocation_changes_them():
    """Tutorial 5's exercise rests on colocation changing the copies: its program (taken from the
    source) makes the copies TensorFlow's partitioned graph sends (recorded), 3 without and 2 with."""
    import json
    import devlab as tf
    source = build.read_source("05_gradients")
    program = next(c.source for c in source.cells if "def gradients_program" in c.source)
    scope = {"tf": tf, "np": __import__("numpy")}
    exec(program, scope)  # noqa: S102 - the tutorial's own cell
    with open(os.path.join(ROOT, "tests", "data", "tutorial05_sends.json")) as f:
        recorded = json.load(f)
    for colocate, key in ((False, "without_colocation"), (True, "with_colocation")):
        with tf.Graph().as_default():
            sess = scope["gradients_program"](colocate)
            sent = sorted(t.op.name for t in sess.last_plan.transfers)
        assert sent == recorded[key], key
    assert len(recorded["without_colocation"]) > len(recorded["with_colocation"])
