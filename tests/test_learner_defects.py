"""Issue 30's learner defects, each as a learner meets it: the exercise checks' words, the
magic's help, log and interruptions, numpy scalars, device colours, and the tutorials' pairing."""
import os

import numpy as np
import pytest
from IPython.core.error import UsageError
from IPython.core.getipython import get_ipython
from IPython.testing.globalipapp import start_ipython

from devlab.notebook.exercises import check
from devlab.views.colours import COPY_COLOUR, CPU_COLOURS, GPU_COLOURS

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


@pytest.fixture(scope="module")
def ip():
    shell = start_ipython() or get_ipython()
    shell.run_line_magic("load_ext", "devlab")
    return shell


def test_a_right_value_of_the_wrong_kind_is_named_as_such(capsys):
    check("2", 2, hint="count the ops")
    out = capsys.readouterr().out
    assert out.startswith("\u2718") and "a number" in out and "a string" in out and "is not it" not in out
    assert "2," not in out.split("Hint")[0].replace("'2'", "")  # the expected value is never spelt out
    check(3, 2, hint="count")
    assert "(3 is not it)" in capsys.readouterr().out
    check(np.int64(2), 2, hint="count")
    assert capsys.readouterr().out.startswith("\u2714")


def test_no_device_has_the_copies_red():
    assert COPY_COLOUR.upper() not in {c.upper() for c in GPU_COLOURS + CPU_COLOURS}
    reds = [c for c in GPU_COLOURS if int(c[1:3], 16) > 0xB0 and int(c[3:5], 16) < 0x50 and int(c[5:7], 16) < 0x50]
    assert not reds, f"{reds} would read as a copy arrow"


def test_placement_help_prints_the_options_and_runs_nothing(ip, capsys):
    assert ip.run_cell_magic("placement", "--help", "raise SystemExit('ran')") is None
    out = capsys.readouterr().out
    assert "usage: %%placement [--gpus" in out and "--gpus" in out and "--doctor" in out
    ip.run_line_magic("placement", "--help")  # where IPython sends "%%placement --help" with an empty cell
    assert "--no-log" in capsys.readouterr().out
    with pytest.raises(UsageError, match="cell magic"):
        ip.run_line_magic("placement", "--gpus 2")


def test_the_log_says_why_it_prints_and_no_log_silences_it(ip, capsys):
    ip.run_cell_magic("placement", "--no-draw", "tf.Session().run(tf.constant(1.0, name='k'))")
    out = capsys.readouterr().out
    assert "as log_device_placement=True would" in out and "k: (Const)" in out
    ip.run_cell_magic("placement", "--no-draw", "tf.Session(config=tf.ConfigProto(log_device_placement=True))"
                      ".run(tf.constant(1.0, name='k'))")
    out = capsys.readouterr().out
    assert "as log_device_placement=True would" not in out and "k: (Const)" in out
    ip.run_cell_magic("placement", "--no-draw --no-log", "tf.Session().run(tf.constant(1.0, name='k'))")
    out = capsys.readouterr().out
    assert "k: (Const)" not in out and "Device mapping" not in out


def test_an_interrupted_run_shows_only_the_users_lines(ip):
    cell = "x = tf.constant(1.0)\ndef train():\n    raise KeyboardInterrupt\ntrain()\n"
    with pytest.raises(KeyboardInterrupt) as e:
        ip.run_cell_magic("placement", "--no-draw", cell)
    lines = e.value._render_traceback_()
    assert lines[-1] == "KeyboardInterrupt" and any("in train" in line for line in lines)
    assert not any("/devlab/" in line or "IPython" in line for line in lines)  # (this test file is the "user's")
    assert len(lines) <= 8


def test_numpy_scalars_show_as_their_value(ip):
    data, _ = ip.display_formatter.format(np.float32(6.0))
    assert data["text/plain"] == "6.0"


def test_step_draws_the_graph_once(ip, monkeypatch):
    shown = []
    monkeypatch.setattr("devlab.notebook.magics.display", lambda obj: shown.append(type(obj).__name__))
    ip.run_cell_magic("placement", "--step --gpus 1", "a = tf.constant(2.0)\nb = a * a\ntf.Session().run(b)")
    assert shown.count("StepperWidget") == 1 and "GraphWidget" not in shown


def test_saving_a_notebook_never_writes_into_the_tutorial_sources():
    import jupytext.config as jupytext_config
    config = jupytext_config.load_jupytext_configuration_file(os.path.join(ROOT, "notebooks", "jupytext.toml"))
    assert not any(config.formats), "a paired format writes the learner's answers into notebooks/src"


def test_copies_whose_size_only_the_run_knows_are_not_labelled_0_B():
    import devlab as tf
    from devlab.views.graph_view import GraphView
    from devlab.views.placement_report import PlacementReport
    with tf.Graph().as_default():
        with tf.device("/cpu:0"):
            table = tf.Variable(np.ones((10, 4), np.float32), name="table")
            ids = tf.placeholder(tf.int32, [None], name="ids")
        with tf.device("/gpu:0"):
            rows = tf.gather(tf.identity(table), ids) * 2.0  # [None, 4] travels to the GPU
        sess = tf.Session(config=tf.ConfigProto(device_count={"GPU": 1}))
        sess.run(tf.global_variables_initializer())
        sess.run(rows, {ids: [1, 2]})
        svg = GraphView(sess).svg()
        assert "sized at run time" in svg and ">copy 0 B<" not in svg
        summary = PlacementReport(sess, sess.placement_log, sess.plans_run).summary()
        assert "sized at run time" in summary and "(0 B)" not in summary


def test_a_colocation_error_names_the_op_that_cannot_follow_and_its_line():
    import devlab as tf
    from devlab.views.tracebacks import short_traceback
    with tf.Graph().as_default():
        c = tf.constant(1.0)
        with tf.device("/gpu:0"):
            x = tf.sin(c, name="x")
        with tf.colocate_with(x):
            s = tf.as_string(x, name="s")  # the line the learner must change
        with pytest.raises(tf.errors.InvalidArgumentError) as e:
            tf.Session(config=tf.ConfigProto(device_count={"GPU": 1})).run(s)
    assert "no supported kernel for GPU devices" in str(e.value)  # TF's words stay
    lines = short_traceback(e.value)
    assert any("the op that cannot follow: s (AsString) has no GPU kernel" in line for line in lines)
    assert "s = tf.as_string(x" in lines[-1]


def test_two_copies_at_once_are_two_bars_in_the_timeline():
    import devlab as tf
    from devlab.views.chrome_trace import Timeline
    from devlab.views.timeline_view import gantt, pack
    with tf.Graph().as_default():
        parts = []
        for d in ("/gpu:0", "/gpu:1"):
            with tf.device(d):
                parts.append(tf.matmul(tf.ones([64, 64]), tf.ones([64, 64])))
        with tf.device("/cpu:0"):
            total = tf.add_n(parts)
        sess = tf.Session(config=tf.ConfigProto(device_count={"GPU": 2}))
        md = tf.RunMetadata()
        sess.run(total, options=tf.RunOptions(trace_level=tf.RunOptions.FULL_TRACE), run_metadata=md)
    events = Timeline(md.step_stats).events()
    copies = [(e, row) for e, row in zip(events, pack(events)) if e[3] == "_Recv" and "CPU:0" in e[0]]
    assert len(copies) == 2
    (a, row_a), (b, row_b) = copies
    overlap = a[4] < b[4] + b[5] and b[4] < a[4] + a[5]
    assert overlap, "the two towers' results reach the CPU at the same time"
    assert row_a != row_b
    labels = [t.get_text() for t in gantt(md.step_stats).axes[0].get_yticklabels()]
    assert sum(label.startswith("CPU:0") and "(2)" in label for label in labels) == 1


def test_device_mapping_lines_scroll_rather_than_wrap(ip, monkeypatch):
    """Defect 7: the device mapping's lines (about 140 characters) wrapped in the middle of a device
    name; in a notebook they are shown unwrapped, in a box that scrolls sideways."""
    from devlab.notebook.reprs import Unwrapped
    shown = []
    monkeypatch.setattr("devlab.notebook.magics.display", shown.append)
    ip.run_cell_magic("placement", "--gpus 2 --no-draw", "sess = tf.Session()\nsess.run(tf.constant(1.0))")
    mapping = [s for s in shown if isinstance(s, Unwrapped)]
    assert len(mapping) == 1 and repr(mapping[0]).startswith("Device mapping:\n/job:localhost/replica:0/task:0/device:GPU:0 -> ")
    assert max(len(line) for line in repr(mapping[0]).splitlines()) > 100  # long lines, kept whole
    html = mapping[0]._repr_html_()
    assert "white-space:pre;" in html and "overflow-x:auto" in html and "\n/job:localhost" in html
    report = next(s for s in shown if type(s).__name__ == "PlacementReport")
    assert "<pre style='white-space:pre;overflow-x:auto'>Device mapping:" in report._repr_html_()


def test_no_tutorial_speaks_of_a_seed_it_never_explains():
    """Defect 7: "seed 004" was never explained; the tutorials name the example file instead."""
    import glob
    import re
    for path in glob.glob(os.path.join(ROOT, "notebooks", "src", "*.md")):
        text = re.sub(r"examples/seed\d{3}_\w+\.py", "", open(path, encoding="utf-8").read())
        assert not re.search(r"\b[Ss]eed( \d{3}|'s\b|\s*:)|\bthe seed\b", text), path
