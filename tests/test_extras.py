"""Optional features: reachable from a plain ``import devlab``, and one line naming the extra when
their package is missing.

Each case runs in a fresh interpreter, where a missing package is simulated by
``sys.modules[name] = None`` (Python's own way to make ``import name`` fail).
"""
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def run_python(code):
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout


def test_import_devlab_is_numpy_only_and_optional_subpackages_are_attributes():
    out = run_python("""
import sys
import devlab
heavy = [m for m in ("dask", "distributed", "ipywidgets", "IPython", "anywidget", "matplotlib", "tensorboard")
         if m in sys.modules]
print("heavy", heavy)
print("cluster", devlab.cluster.__name__, callable(devlab.cluster.local))
print("heavy after cluster", [m for m in ("dask", "distributed") if m in sys.modules])
print("widget", devlab.notebook.GraphWidget.__name__, devlab.notebook.StepperWidget.__name__)
try:
    devlab.no_such_api
except AttributeError as e:
    print("unknown", e)
""")
    assert "heavy []" in out
    assert "cluster devlab.cluster True" in out
    assert "heavy after cluster []" in out  # the subpackage itself imports Dask only when a cluster starts
    assert "widget GraphWidget StepperWidget" in out
    assert "unknown devlab does not implement tf.no_such_api yet" in out


# (the package made missing, what the user runs, the extra named)
CASES = [
    ("distributed", "devlab.cluster.local()", "cluster"),
    ("distributed", "devlab.cluster.connect('tcp://127.0.0.1:1')", "cluster"),
    ("anywidget", "devlab.notebook.GraphWidget", "notebook"),
    ("ipywidgets", "devlab.notebook.StepperWidget", "notebook"),
    ("matplotlib", "from devlab.views.timeline_view import gantt; gantt(None)", "notebook"),
    ("tensorboard", "devlab.summary.FileWriter(tempfile.mkdtemp())", "graphs"),
    ("tensorboard", "devlab.load_graph(write(tempfile.mkdtemp() + '/m.pbtxt', 'node { name: \"a\" op: \"NoOp\" }'))",
     "graphs"),
]


@pytest.mark.parametrize("missing, code, extra", CASES, ids=[c[1].split("(")[0] for c in CASES])
def test_a_missing_extra_is_one_line_naming_it_and_the_pip_command(missing, code, extra):
    out = run_python(f"""
import sys, tempfile
sys.modules[{missing!r}] = None


def write(path, text):
    open(path, "w").write(text)
    return path


import devlab
try:
    {code}
except ImportError as e:
    print(type(e).__name__, "|", e)
else:
    print("no error")
""")
    kind, _, message = out.strip().partition(" | ")
    assert kind == "MissingExtra", out
    assert "\n" not in message
    assert f"needs the {extra} extra ({missing} is not installed): pip install 'devlab[{extra}]'" in message
