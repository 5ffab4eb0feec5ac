"""The views in detail: what the graph drawing contains (runs, groups, feeds, folds, legend,
colours), that building it stays linear, the stepper's copy edge and lanes, the graph widget's
unfold message, the %%placement output layout, source lines as cells, and the colocation debug info."""
import cProfile
import re
import xml.etree.ElementTree as ET

import numpy as np
import pytest
from IPython.testing import globalipapp

import devlab as tf
from devlab.notebook.graph_widget import GraphWidget
from devlab.notebook.stepper_widget import StepperWidget
from devlab.views.colours import device_colour, short_device
from devlab.views.graph_view import GraphView, dot_quote
from devlab.views.lanes import lanes_svg, schedule
from devlab.views.placement_report import log_text
from devlab.runtime.session import PlacementRecord

SVG = "{http://www.w3.org/2000/svg}"


def texts(svg):
    return [t.text or "" for t in ET.fromstring(svg).iter(f"{SVG}text")]


def ema_session():
    with tf.device("/gpu:1"):
        w = tf.Variable(10.0, name="w")
    ema = tf.train.ExponentialMovingAverage(decay=0.5)
    with tf.device("/cpu:0"):
        update = ema.apply([w])
    sess = tf.Session(config=tf.ConfigProto(device_count={"GPU": 2}))
    sess.run(tf.global_variables_initializer())
    sess.run(update)
    return sess


def test_the_drawing_is_the_union_of_every_run_or_the_runs_named():
    sess = ema_session()
    whole = GraphView(sess)
    names = {op.name for op in whole.ops}
    assert "w/Assign" in names and "ExponentialMovingAverage/AssignMovingAvg" in names  # init run + update run
    assert len(whole.transfers) == 3  # the update's copies are in the drawing
    only_init = GraphView(sess, runs=[0])
    assert "ExponentialMovingAverage/AssignMovingAvg" not in {op.name for op in only_init.ops}
    assert GraphView(sess, plan=sess.last_plan).plans == [sess.last_plan]


def test_nodes_name_their_true_colocation_group():
    sess = ema_session()
    labels = " ".join(texts(GraphView(sess).svg()))
    assert "loc:@w" in labels  # from the ops' _class, as TensorFlow names the group
    assert "loc:@Assign" not in labels and "loc:@w/Assign" not in labels
    explanation = str(sess.explain("ExponentialMovingAverage/AssignMovingAvg"))
    assert "colocation group: loc:@w" in explanation


def test_fed_tensors_are_drawn_as_feeds_inside_their_device():
    x = tf.placeholder(tf.float32, [2], name="x")
    with tf.device("/gpu:0"):
        y = x * 2.0
    sess = tf.Session(config=tf.ConfigProto(device_count={"GPU": 1}))
    sess.run(y, {x: np.ones(2)})
    dot = GraphView(sess).to_dot().source
    cluster = dot.split('subgraph "cluster_GPU:0"')[1].split("}")[0]
    assert r"feed\nx:0" in cluster and "invhouse" in cluster


def test_small_graphs_never_fold_and_big_ones_fold_by_drawn_size():
    a = tf.constant(1.0)
    sess = tf.Session()
    sess.run(a + 1.0)
    assert GraphView(sess).layout()[3] == "none"
    with tf.Graph().as_default():
        x = tf.constant(1.0)
        for i in range(4):
            with tf.name_scope(f"block{i}"):
                for _ in range(10):
                    x = tf.sin(x) + 1.0
        s = tf.Session()
        s.run(x)
        view = GraphView(s)
        assert view.layout()[3] == "scopes"
        dot = view.to_dot().source
        assert r"block0/\n(30 ops)" in dot and "block0/Sin" not in dot
        assert sorted(view.folds.values()) == ["block0", "block1", "block2", "block3"]
        opened = GraphView(s, unfold=["block0"]).to_dot().source
        assert "block0/Sin" in opened and r"block1/\n(30 ops)" in opened
        assert GraphView(s, fold=False).layout()[3] == "none"


def test_numbered_ops_fold_into_a_series_and_to_dot_stays_linear():
    def chain(n):
        g = tf.Graph()
        with g.as_default():
            x = tf.placeholder(tf.float32, [4], name="x")
            y = x
            for i in range(n):
                with tf.device(["/cpu:0", "/cpu:1"][i % 2]):
                    y = y + x
        sess = tf.Session(graph=g, config=tf.ConfigProto(device_count={"CPU": 2}))
        sess.run(y, {x: np.ones(4, np.float32)})
        return sess

    small, big = chain(1000), chain(8000)
    view = GraphView(big, level="ops")  # the op drawing (the default above 150 ops is the device view)
    nodes = view.layout()[0]
    assert view.layout()[3] == "series" and len(nodes) <= 4
    dot = view.to_dot().source
    assert "AddV2 \u00d74000" in dot and "4000 copies" in dot

    def calls(sess):  # Python calls made, not seconds: the same count on a loaded machine
        profile = cProfile.Profile()
        profile.enable()
        GraphView(sess, level="ops").to_dot()
        profile.disable()
        return sum(entry.callcount for entry in profile.getstats())
    assert calls(big) < 12 * calls(small)  # 8x the ops: about 8x the work, not 64x (timings: benchmarks/bench_draw.py)


def test_dot_quote_escapes_quotes_backslashes_and_newlines():
    assert dot_quote('say "hi"') == r'"say \"hi\""'
    assert dot_quote("a\\b") == r'"a\\b"'
    assert dot_quote("two\nlines") == r'"two\nlines"'


def test_device_colours_are_keyed_by_name_and_shared_by_every_view():
    assert device_colour("GPU:0") == device_colour("/job:localhost/replica:0/task:0/device:GPU:0")
    assert device_colour("/gpu:0") == device_colour("/device:GPU:0") != device_colour("GPU:1")
    assert device_colour("/job:ps/replica:0/task:1/device:CPU:0") == device_colour("/job:ps/task:1/device:CPU:0")
    assert short_device("/job:ps/replica:0/task:1/device:CPU:0") == "ps/task:1/CPU:0"
    sess = ema_session()
    svg = GraphView(sess).svg()
    assert device_colour("GPU:1").lower() in svg.lower()
    assert device_colour("GPU:1") in lanes_svg(sess.last_plan, {0}, 1, sess.devices)
    from devlab.views.placement_report import PlacementReport
    assert device_colour("GPU:1") in PlacementReport(sess, sess.placement_log, sess.plans_run)._repr_html_()


def seed004():
    c = []
    for d in ["/device:GPU:2", "/device:GPU:3"]:
        with tf.device(d):
            c.append(tf.matmul(tf.ones([2, 3]), tf.ones([3, 2])))
    with tf.device("/cpu:0"):
        total = tf.add_n(c)
    return tf.Session(config=tf.ConfigProto(device_count={"GPU": 4})), total


def test_the_stepper_highlights_the_copy_edge_on_a_transfer_step_and_marks_what_ran():
    sess, total = seed004()
    w = StepperWidget(sess, total)
    for _ in range(len(w.stepper.steps)):
        w.next_button.click()
        if w.current.kind == "transfer":
            break
    assert w.current.kind == "transfer"
    svg = w.graph.svg
    root = ET.fromstring(svg)
    current = [g for g in root.iter(f"{SVG}g") if "devlab-current" in (g.get("class") or "")]
    assert len(current) == 1 and "edge" in current[0].get("class")  # the copy edge, not its source op
    assert w.graph.focus == current[0].get("id")
    faded = [t for t in texts(svg) if t == "AddN"]
    assert faded and 'fill="#999999"' in svg  # AddN has not run: drawn faded
    assert "devlab-current" in w.lanes.value


def test_lanes_put_the_two_towers_side_by_side():
    sess, total = seed004()
    plan = sess.stepper(total).plan
    cols = {s.op.name: col for s, lane, col in schedule(plan) if hasattr(s, "kernel")}
    assert cols["MatMul"] == cols["MatMul_1"]  # different devices, same time
    assert cols["AddN"] > cols["MatMul"]


def test_speed_control_sets_the_play_interval():
    sess, total = seed004()
    w = StepperWidget(sess, total, draw=False)
    w.speed.value = 150
    assert w.play.interval == 150


def test_without_dot_the_widget_sends_dot_text_and_graphviz_as_webassembly(monkeypatch):
    """No Graphviz on the kernel's machine: the browser lays the graph out (tests/test_browser.py
    draws it there); the widget carries the DOT text and, once, the WebAssembly Graphviz."""
    from devlab.views import graph_view
    sess, total = seed004()
    sess.run(total)
    with_dot = GraphWidget(sess)
    assert "<svg" in with_dot.svg and with_dot.dot == "" and with_dot.graphviz_js == ""  # nothing extra sent
    monkeypatch.setattr(graph_view.shutil, "which", lambda name: None)  # `dot` is not on PATH
    w = GraphWidget(sess)
    assert w.svg == "" and w.dot == with_dot.view.to_dot().source
    assert w.dot.startswith("digraph") and "cluster_GPU:3" in w.dot and "devlab-copy" in w.dot
    library = w.graphviz_js
    assert library.startswith("// @hpcc-js/wasm-graphviz") and re.search(r"export{\w+ as Graphviz}", library)
    assert 200_000 < len(library) < 3_000_000
    w.redraw(highlight="AddN")
    assert w.svg == "" and 'penwidth=3' in w.dot and w.graphviz_js is library  # the same text, not re-read


def test_a_dot_drawing_without_graphviz_shows_its_text_and_how_to_install_it(monkeypatch):
    from devlab.views import graph_view
    drawing = graph_view.Dot("digraph { a -> b }")
    assert "<svg" in drawing._repr_mimebundle_()["image/svg+xml"]
    monkeypatch.setattr(graph_view.shutil, "which", lambda name: None)
    bundle = drawing._repr_mimebundle_()
    assert list(bundle) == ["text/plain"] and "apt-get install graphviz" in bundle["text/plain"]
    assert bundle["text/plain"].endswith("digraph { a -> b }")


def test_graph_widget_unfolds_a_scope_on_a_click_message():
    x = tf.constant(1.0)
    for i in range(3):
        with tf.name_scope(f"b{i}"):
            for _ in range(30):
                x = tf.sin(x) + 1.0
    sess = tf.Session()
    sess.run(x)
    w = GraphWidget(sess, level="ops")
    fold_id = next(i for i, scope in w.folds.items() if scope == "b0")
    w._on_message(w, {"event": "unfold", "id": fold_id}, [])
    assert w.unfolded == ["b0"] and "b0" not in w.folds.values() and "b0/Sin" in w.svg
    w._on_message(w, {"event": "fold_all"}, [])
    assert w.unfolded == [] and "b0" in w.folds.values()
    assert "run the cell" in repr(w)


@pytest.fixture(scope="module")
def ip():
    from IPython.core.interactiveshell import InteractiveShell
    globalipapp.start_ipython()  # once per process; later calls do nothing
    shell = InteractiveShell.instance()
    shell.run_line_magic("load_ext", "devlab")
    return shell


SEED004 = """
c = []
for d in ['/device:GPU:2', '/device:GPU:3']:
    with tf.device(d):
        a = tf.constant([1.0, 2.0, 3.0, 4.0, 5.0, 6.0], shape=[2, 3])
        b = tf.constant([1.0, 2.0, 3.0, 4.0, 5.0, 6.0], shape=[3, 2])
        c.append(tf.matmul(a, b))
with tf.device('/cpu:0'):
    sum = tf.add_n(c)
sess = tf.Session(config=tf.ConfigProto(log_device_placement=True))
print(sess.run(sum))
"""

MODEL_150 = """
x = tf.placeholder(tf.float32, [8, 16], name="x")
h = x
for i in range(5):
    with tf.variable_scope(f"layer{i}"), tf.device(f"/gpu:{i % 2}"):
        w = tf.get_variable("w", [16, 16], initializer=tf.ones_initializer())
        b = tf.get_variable("b", [16], initializer=tf.zeros_initializer())
        h = tf.nn.relu(tf.matmul(h, w) + b)
loss = tf.reduce_mean(tf.square(h))
train = tf.train.GradientDescentOptimizer(0.1).minimize(loss)
sess = tf.Session()
sess.run(tf.global_variables_initializer())
sess.run(train, {x: np.ones((8, 16))})
print(len(tf.get_default_graph().get_operations()), "ops")
"""


def cell_output(ip, capsys, line, cell, monkeypatch):
    """(stdout text, [displayed objects]) of a %%placement cell."""
    shown = []
    monkeypatch.setattr("devlab.notebook.magics.display", shown.append)
    ip.user_ns["np"] = np
    ip.run_cell_magic("placement", line, cell)
    return capsys.readouterr().out, shown


def test_a_seed_sized_cell_prints_its_placement_lines_once(ip, capsys, monkeypatch):
    out, shown = cell_output(ip, capsys, "--gpus 4", SEED004, monkeypatch)
    assert out.count("MatMul_1: (MatMul): /job:localhost/replica:0/task:0/device:GPU:3") == 1
    mappings = [s for s in shown if repr(s).startswith("Device mapping:")]  # shown unwrapped, not printed
    assert len(mappings) == 1 and "Device mapping:" not in out
    shown = [s for s in shown if s not in mappings]
    report = shown[0]
    summary = repr(report)
    assert summary.startswith("devlab: 7 ops placed on 3 devices") and "2 copies between devices (32 B)" in summary
    assert "\n" not in summary  # one line
    html = report._repr_html_()
    assert "<details>" in html and "<details open" not in html  # the table is folded
    assert isinstance(shown[1], GraphWidget)


def test_a_150_op_cell_prints_at_most_one_screen_before_its_graph(ip, capsys, monkeypatch):
    out, shown = cell_output(ip, capsys, "--gpus 2", MODEL_150, monkeypatch)
    n_ops = int(next(line for line in out.splitlines() if line.endswith(" ops")).split()[0])
    assert 140 <= n_ops <= 170  # a model of about 150 ops
    assert len(out.splitlines()) <= 25, out
    assert "more placement lines" in out
    shown = [s for s in shown if not repr(s).startswith("Device mapping:")]
    assert len(repr(shown[0]).splitlines()) == 1 and isinstance(shown[-1], GraphWidget)
    assert shown[-1].view.layout()[3] != "none"  # folded to fit
    full, _ = cell_output(ip, capsys, "--gpus 2 --full-log --no-draw", MODEL_150, monkeypatch)
    assert "more placement lines" not in full and len(full.splitlines()) > 140


def test_log_text_cuts_a_long_log_to_its_head():
    records = [PlacementRecord(f"op{i}", "Const", "/job:localhost/replica:0/task:0/device:CPU:0") for i in range(30)]
    cut = log_text(records)
    assert cut.count("\n") < 15 and "18 more placement lines" in cut
    assert cut.startswith("op0: (Const): /job:localhost/replica:0/task:0/device:CPU:0\nop1: (Const)")
    assert log_text(records[:20]) == "\n".join(map(str, records[:20]))  # up to LOG_LIMIT lines: whole
    assert log_text(records, limit=None).count("\n") == 29


def test_explanations_name_the_cell_and_line(ip, capsys, monkeypatch):
    ip.execution_count = 7  # run outside a cell: the shell's count names it
    _, shown = cell_output(ip, capsys, "--no-draw --explain y",
                           "x = tf.constant(1.0, name='x')\ny = tf.sin(x, name='y')\ntf.Session().run(y)", monkeypatch)
    text = str(shown[-1])
    assert "created at cell 7, line 3" in text  # line 1 of the cell is %%placement


def test_a_colocation_conflict_names_every_member_and_its_devices():
    x = tf.constant(1.0, name="x")
    with tf.device("/gpu:0"):
        y = tf.sin(x, name="y")
    with tf.colocate_with(y):
        z = tf.strings.as_string(x, name="z")
    with pytest.raises(tf.errors.InvalidArgumentError) as e:
        tf.Session(config=tf.ConfigProto(device_count={"GPU": 1})).run(z)
    msg = str(e.value)
    assert "Colocation Debug Info:" in msg
    assert "\nSin: GPU CPU \n" in msg and "\nAsString: CPU \n" in msg
    assert "  y (Sin) /device:GPU:0\n  z (AsString) /device:GPU:0\n" in msg
    assert "supported_device_types_=[CPU]" in msg


def test_the_magic_draws_the_runs_named(ip, capsys, monkeypatch):
    cell = ("with tf.device('/gpu:0'):\n    v = tf.Variable(1.0, name='v')\nd = v * 2.0\n"
            "sess = tf.Session(config=tf.ConfigProto(device_count={'GPU': 1}))\n"
            "sess.run(tf.global_variables_initializer())\nsess.run(d)")
    _, shown = cell_output(ip, capsys, "--runs 1", cell, monkeypatch)
    names = {op.name for op in shown[-1].view.ops}
    assert "mul" in names and "v/Assign" not in names
    _, shown = cell_output(ip, capsys, "", cell, monkeypatch)
    assert {"mul", "v/Assign"} <= {op.name for op in shown[-1].view.ops}
    from IPython.core.error import UsageError
    with pytest.raises(UsageError, match="--runs names runs 0 to 1"):
        cell_output(ip, capsys, "--runs 5", cell, monkeypatch)
