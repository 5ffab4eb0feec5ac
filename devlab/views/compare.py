"""``%%placement --compare-tf``: run the same cell under real TensorFlow (in a subprocess, so the
two never share a process) and show where the placements differ.

TensorFlow's placement lines are read from its output (it prints them from C++, to stdout and
its log); every Session in the child is given ``log_device_placement=True``.
"""
import html
import re
import subprocess
import sys

LINE = re.compile(r"(?:^|\] )(\S+): \((\w+)\): (/job:\S+)$")
PRELUDE = """
import sys
import tensorflow.compat.v1 as tf
tf.disable_v2_behavior()
sys.modules["tensorflow"] = tf
_init = tf.Session.__init__
def _logged(self, target="", graph=None, config=None):
    config = config or tf.ConfigProto()
    config.log_device_placement = True
    _init(self, target, graph, config)
tf.Session.__init__ = _logged
"""


def tensorflow_placement(cell, timeout=300):
    """{op name: device} that TensorFlow logs for ``cell`` (or raises with TF's error text)."""
    proc = subprocess.run([sys.executable, "-c", PRELUDE + cell], capture_output=True, text=True, timeout=timeout)
    placed = parse_log(proc.stdout + "\n" + proc.stderr)
    if proc.returncode != 0 and not placed:
        raise RuntimeError("TensorFlow could not run the cell:\n" + proc.stderr.strip().splitlines()[-1])
    return placed


def parse_log(text):
    """Placement lines (TF's stdout form or its logger's form) as {op name: device}."""
    out = {}
    for line in text.splitlines():
        m = LINE.search(line.strip())
        if m:
            out[m.group(1)] = m.group(3)
    return out


def diff_table(devlab_placed, tf_placed):
    """HTML: one row per op whose device differs (or that only one of the two placed)."""
    rows = []
    for name in sorted(set(devlab_placed) | set(tf_placed)):
        a, b = devlab_placed.get(name, "(not placed)"), tf_placed.get(name, "(not placed)")
        if a != b:
            rows.append(f"<tr><td>{html.escape(name)}</td><td>{html.escape(a)}</td><td>{html.escape(b)}</td></tr>")
    if not rows:
        return f"<p><b>devlab and TensorFlow agree</b> on all {len(tf_placed)} ops.</p>"
    return ("<p><b>Where devlab and TensorFlow differ</b> (TensorFlow's CPU build has no GPUs, so GPU "
            "requests can differ for that reason alone):</p><table><tr><th>op</th><th>devlab</th>"
            f"<th>TensorFlow</th></tr>{''.join(rows)}</table>")


def compare_with_tensorflow(cell, recorder):
    placed = {r.op_name: r.device for report in recorder.reports for r in report.records}
    try:
        return diff_table(placed, tensorflow_placement(cell))
    except (RuntimeError, subprocess.TimeoutExpired) as e:
        return f"<pre>{html.escape(str(e))}</pre>"
