"""The notebook layer through a real IPython shell, the widgets through their traits, the graph
view by parsing its SVG, the timeline as trace-event JSON, and the command line."""
import json
import subprocess
import sys
import xml.etree.ElementTree as ET

import numpy as np
import pytest
from IPython.core.error import UsageError
from IPython.core.getipython import get_ipython
from IPython.testing.globalipapp import start_ipython

import devlab as tf
from devlab.views.graph_view import GraphView
from devlab.notebook.stepper_widget import StepperWidget, summarize
from devlab.views.chrome_trace import Timeline

SEED004 = """
import tensorflow as tf
c = []
for d in ['/device:GPU:2', '/device:GPU:3']:
    with tf.device(d):
        a = tf.constant([1.0, 2.0, 3.0, 4.0, 5.0, 6.0], shape=[2, 3])
        b = tf.constant([1.0, 2.0, 3.0, 4.0, 5.0, 6.0], shape=[3, 2])
        c.append(tf.matmul(a, b))
with tf.device('/cpu:0'):
    sum = tf.add_n(c)
sess = tf.Session(config=tf.ConfigProto(log_device_placement=True))
sess.run(sum)
"""


@pytest.fixture(scope="module")
def ip():
    shell = start_ipython() or get_ipython()  # the shell is process-wide: another module may have started it
    shell.run_line_magic("load_ext", "devlab")
    return shell


def test_placement_magic_runs_pasted_tensorflow_code(ip, capsys):
    value = ip.run_cell_magic("placement", "--gpus 4 --no-draw", SEED004)
    out = capsys.readouterr().out
    assert value.tolist() == [[44.0, 56.0], [98.0, 128.0]]
    assert "devlab: `import tensorflow` gives devlab inside this cell." in out
    assert "MatMul_1: (MatMul): /job:localhost/replica:0/task:0/device:GPU:3" in out
    assert out.count("Device mapping:") >= 1
    assert "tf" not in ip.user_ns  # the cell's `import tensorflow as tf` gave devlab for that cell only
    assert "tensorflow" not in sys.modules or sys.modules["tensorflow"] is not tf  # nothing redirected after


def test_placement_cell_leaves_the_notebooks_own_tf_alone(ip, capsys):
    mine = object()  # stands for the real TensorFlow the user imported outside the magic
    ip.user_ns["tf"] = mine
    ip.run_cell_magic("placement", "--no-draw", "x = tf.constant(1.0)\nseen = tf")
    assert ip.user_ns["seen"] is tf and ip.user_ns["tf"] is mine
    ip.run_cell_magic("placement", "--no-draw", "import tensorflow as tf\ny = tf.constant(2.0)")
    assert ip.user_ns["tf"] is mine
    del ip.user_ns["tf"]


def test_magic_bad_usage_is_one_line_usage_error(ip):
    with pytest.raises(UsageError, match="--gpus must be at least 0"):
        ip.run_cell_magic("placement", "--gpus -1", "x = 1")
    with pytest.raises(UsageError):
        ip.run_cell_magic("placement", "--nonsense", "x = 1")


def test_placement_error_shows_op_reason_and_line_and_kernel_stays_usable(ip):
    cell = "with tf.device('/device:CPU:1'):\n    a = tf.constant(1.0, name='a')\n    b = tf.add(a, 2.0, name='b')\ntf.Session().run(b)\n"
    with pytest.raises(tf.errors.InvalidArgumentError) as e:
        ip.run_cell_magic("placement", "--no-draw", cell)
    lines = e.value._render_traceback_()
    assert lines[0].startswith("InvalidArgumentError: Cannot assign a device for operation b")
    assert "op: b (AddV2)" in lines[1] and "b = tf.add(a, 2.0, name='b')" in lines[-1]
    assert tf.config.get("force_log") is False and tf.config.get("simulated_gpus") is None
    assert ip.run_cell_magic("placement", "--no-draw", "tf.Session().run(tf.constant(3.0))") == 3.0


def test_placement_log_line_magic_turns_logging_on_and_off(ip, capsys):
    ip.run_line_magic("placement_log", "on")
    try:
        tf.Session().run(tf.constant(1.0, name="logged"))
        assert "logged: (Const): /job:localhost/replica:0/task:0/device:CPU:0" in capsys.readouterr().out
    finally:
        ip.run_line_magic("placement_log", "off")
    tf.Session().run(tf.constant(1.0, name="quiet"))
    assert "quiet" not in capsys.readouterr().out
    with pytest.raises(UsageError):
        ip.run_line_magic("placement_log", "maybe")


def run_seed004():
    c = []
    for d in ["/device:GPU:2", "/device:GPU:3"]:
        with tf.device(d):
            a = tf.constant([1.0, 2.0, 3.0, 4.0, 5.0, 6.0], shape=[2, 3])
            b = tf.constant([1.0, 2.0, 3.0, 4.0, 5.0, 6.0], shape=[3, 2])
            c.append(tf.matmul(a, b))
    with tf.device("/cpu:0"):
        total = tf.add_n(c)
    sess = tf.Session(config=tf.ConfigProto(device_count={"GPU": 4}))
    md = tf.RunMetadata()
    sess.run(total, options=tf.RunOptions(trace_level=tf.RunOptions.FULL_TRACE), run_metadata=md)
    return sess, total, md


SVG = "{http://www.w3.org/2000/svg}"


def test_graph_view_svg_has_a_cluster_per_device_and_transfer_edges():
    sess, _, _ = run_seed004()
    svg = GraphView(sess).svg()
    root = ET.fromstring(svg)
    clusters = [g.find(f"{SVG}title").text for g in root.iter(f"{SVG}g") if g.get("class") == "cluster"]
    assert sorted(clusters) == ["cluster_CPU:0", "cluster_GPU:2", "cluster_GPU:3"]
    copies = [g for g in root.iter(f"{SVG}g") if "devlab-copy" in (g.get("class") or "")]
    assert len(copies) == 2 and all("copy 16 B" in "".join(t.text for t in g.iter(f"{SVG}text")) for g in copies)
    assert svg == GraphView(sess).svg()  # deterministic
    assert "0x" not in svg
    texts = " ".join(t.text or "" for t in root.iter(f"{SVG}text"))
    assert "GPU:2: simulated GPU (numpy)" in texts and "copy between devices" in texts  # the legend


def test_stepper_widget_next_back_change_highlight_and_values():
    sess, total, _ = run_seed004()
    w = StepperWidget(sess, total)
    assert w.current is None and w.back_button.disabled
    w.next_button.click()
    first = w.current
    assert first is not None and "step 1 of" in w.info.value
    svg1 = w.graph.svg
    w.next_button.click()
    assert w.current.name != first.name and w.graph.svg != svg1
    assert "devlab-current" in w.graph.svg and w.graph.focus  # the current op, kept in view
    w.slider.value = len(w.stepper.steps)
    assert w.stepper.done and "run complete" in w.info.value and "[[44" in w.info.value.replace(" ", "")
    w.back_button.click()
    assert w.stepper.position == len(w.stepper.steps) - 1
    w.reset_button.click()
    assert w.stepper.position == 0 and w.current is None
    assert repr(w).startswith(f"Stepper over the {len(w.stepper.steps)} steps") and "run this cell" in repr(w)


TRAINING_CELL = """
import numpy as np
import tensorflow as tf
x = tf.placeholder(tf.float32, [None, 2], name="x")
y = tf.placeholder(tf.float32, [None, 1], name="y")
with tf.device("/gpu:0"):
    w = tf.Variable(tf.ones([2, 1]), name="w")
    loss = tf.reduce_mean(tf.square(tf.matmul(x, w) - y))
train = tf.train.GradientDescentOptimizer(0.1).minimize(loss)
sess = tf.Session()
sess.run(tf.global_variables_initializer())
for step in range(3):
    batch = np.full((4, 2), step + 1.0, np.float32)
    sess.run(train, {x: batch, y: batch[:, :1]})
"""


def test_placement_step_opens_the_stepper_on_a_training_loop_that_feeds(ip, capsys, monkeypatch):
    shown = []
    monkeypatch.setattr("devlab.notebook.magics.display", shown.append)
    ip.run_cell_magic("placement", "--gpus 1 --no-draw --step", TRAINING_CELL)
    out = capsys.readouterr().out
    assert "cannot replay" not in out
    widget = shown[-1]
    assert isinstance(widget, StepperWidget)
    assert "fed:" in widget.info.value and "x:0" in widget.info.value and "[[3., 3.]" in widget.info.value
    widget.go(1)
    while not widget.current.fed:  # the first step that reads the batch labels it
        widget.go(widget.stepper.position + 1)
    assert "(fed)" in widget.info.value
    sess, w = ip.user_ns["sess"], ip.user_ns["w"]
    before = sess.run(w)
    widget.slider.value = len(widget.stepper.steps)  # every step, replaying the last batch
    assert widget.stepper.done and "run complete" in widget.info.value
    widget.stepper.finish()
    batch = np.full((4, 2), 3.0, np.float32)
    want = before - 0.1 * 2 * batch.T @ (batch @ before - batch[:, :1]) / 4  # one more step of that batch
    np.testing.assert_allclose(sess.run(w), want, rtol=1e-6)


def test_stepper_widget_walks_every_iteration_of_a_loop():
    """A loop's steps run once per iteration: the widget keeps going past the plan's step count,
    its slider grows as it goes and ends at the run's last step."""
    i, total = tf.while_loop(lambda i, t: i < 4, lambda i, t: (i + 1, t + tf.cast(i, tf.float32)),
                             [tf.constant(0), tf.constant(0.0)])
    sess = tf.Session()
    w = StepperWidget(sess, total, draw=False)
    planned = len(w.stepper.steps)
    while not w.stepper.done:
        w.next_button.click()
    assert w.stepper.position > planned and w.slider.max == w.slider.value == w.stepper.position
    assert "run complete" in w.info.value and "a loop's repeat each iteration" in w.info.value
    assert w.stepper.finish() == 6.0
    w.slider.value = 3
    assert w.stepper.position == 3 and not w.stepper.done


def test_summarize_is_short_and_deterministic():
    import numpy as np
    assert summarize(np.arange(3.0)) == "[0., 1., 2.]"
    assert summarize(np.ones((100, 100))) == "float64[100, 100] min=1 max=1 mean=1"


def test_timeline_is_valid_trace_event_json_with_overlapping_towers():
    _, _, md = run_seed004()
    trace = json.loads(Timeline(md.step_stats).generate_chrome_trace_format())
    events = trace["traceEvents"]
    for e in events:
        assert e["ph"] in ("M", "X", "s", "t") and "pid" in e and "name" in e
        if e["ph"] == "X":
            assert e["dur"] >= 0 and e["ts"] >= 0 and "tid" in e
    flows = [e for e in events if e["ph"] in ("s", "t")]
    assert len(flows) == 4 and {e["id"] for e in flows} == {1, 2}
    matmuls = [e for e in events if e["ph"] == "X" and e["name"] == "MatMul"]
    (a, b) = matmuls
    assert a["pid"] != b["pid"] and a["ts"] < b["ts"] + b["dur"] and b["ts"] < a["ts"] + a["dur"]  # overlap
    assert "modelled" in events[0]["args"]["name"]


def test_gantt_chart_draws_one_row_per_lane():
    from devlab.views.timeline_view import gantt
    _, _, md = run_seed004()
    fig = gantt(md.step_stats)
    labels = [t.get_text() for t in fig.axes[0].get_yticklabels()]
    assert "GPU:2 Compute" in labels and "CPU:0 Copies" in labels
    assert "modelled" in fig.axes[0].get_title()


def test_cli_prints_log_and_writes_svg_and_trace(tmp_path):
    svg, trace = tmp_path / "g.svg", tmp_path / "t.json"
    out = subprocess.run([sys.executable, "-m", "devlab.cli", "place", "examples/seed004_mixed_sum.py", "--gpus",
                          "4", "--svg", str(svg), "--trace", str(trace)], capture_output=True, text=True, check=True)
    assert "AddN: (AddN): /job:localhost/replica:0/task:0/device:CPU:0" in out.stdout
    assert svg.read_text().lstrip().startswith("<?xml") and json.loads(trace.read_text())["traceEvents"]
    bad = subprocess.run([sys.executable, "-m", "devlab.cli", "place", "examples/seed004_invalid_device.py"],
                         capture_output=True, text=True)
    assert bad.returncode == 1 and "defined at examples/seed004_invalid_device.py:5" in bad.stderr


def test_compare_tf_parses_both_log_forms_and_lists_differences(ip, capsys):
    from devlab.views.compare import diff_table, parse_log
    log = ("MatMul: (MatMul): /job:localhost/replica:0/task:0/device:CPU:0\n"
           "I0000 00:00:1.0 123 placer.cc:162] a: (Const): /job:localhost/replica:0/task:0/device:CPU:0\n")
    tf_placed = parse_log(log)
    assert tf_placed == {"MatMul": "/job:localhost/replica:0/task:0/device:CPU:0",
                         "a": "/job:localhost/replica:0/task:0/device:CPU:0"}
    mine = dict(tf_placed, MatMul="/job:localhost/replica:0/task:0/device:GPU:0")
    table = diff_table(mine, tf_placed)
    assert "<td>MatMul</td>" in table and "<td>a</td>" not in table
    assert "agree" in diff_table(tf_placed, tf_placed)
    import importlib.util
    if importlib.util.find_spec("tensorflow") is None:
        ip.run_cell_magic("placement", "--no-draw --compare-tf", "tf.Session().run(tf.constant(1.0))")
        assert "--compare-tf needs TensorFlow" in capsys.readouterr().out
