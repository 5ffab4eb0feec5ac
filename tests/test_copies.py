"""The copies table (devlab/views/copies.py) lists exactly what a run moves between devices: on
tutorial 10's towers and on the tower programs p02/p03, its rows equal the traced run's _Recv
nodes (count, tensors, destinations and bytes), and it names the user's line of each producer."""
import os
import re
import sys

import numpy as np
import pytest

import devlab as tf
from devlab.views.copies import by_route, copies, copies_html, copies_text, total_bytes
from devlab.views.placement_report import PlacementReport

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "programs"))

import p02_cnn_towers  # noqa: E402
import p03_mlp_towers  # noqa: E402

FULL = tf.RunOptions(trace_level=tf.RunOptions.FULL_TRACE)


def recvs(md):
    """{(tensor, destination): bytes} of a traced run's _Recv nodes."""
    return {(n.tensor, d.device): n.bytes for d in md.step_stats.dev_stats for n in d.node_stats if n.op == "_Recv"}


def traced(sess, fetches, feed=None):
    md = tf.RunMetadata()
    sess.run(fetches, feed, options=FULL, run_metadata=md)
    return md


def assert_matches_the_run(sess, md):
    rows = copies(sess.last_plan, md)
    moved = recvs(md)
    assert len(rows) == len(moved) == len(sess.last_plan.transfers) > 0
    assert {(c.tensor, c.destination): c.nbytes for c in rows} == moved
    assert total_bytes(rows) == sum(moved.values()) > 0
    for c in rows:  # every copy crosses devices and names its producer
        assert c.source != c.destination
        assert c.tensor.startswith(c.op_name + ":")
    return rows


def tutorial_10_program():
    """The code cells of notebooks/src/10_towers.md that define its program (no magics, no exercises)."""
    text = open(os.path.join(HERE, "..", "notebooks", "src", "10_towers.md")).read()
    cells = re.findall(r"```\{code-cell\} ipython3\n(.*?)```", text, re.S)
    ns = {"tf": tf, "np": np}
    for cell in cells:
        if cell.startswith(("%", ":tags")) or "def " not in cell and "BATCH" not in cell:
            continue
        exec(compile(cell, "10_towers.md", "exec"), ns)  # noqa: S102 - the tutorial's own code
        if "def measure" in cell:
            return ns
    raise AssertionError("tutorial 10 no longer defines measure()")


@pytest.mark.parametrize("layout, expected", [(("/cpu:0", "/cpu:0"), 12), (("/gpu:0", "/gpu:0"), None)])
def test_tutorial_10_towers_copies_are_the_runs_transfers(layout, expected):
    ns = tutorial_10_program()
    with tf.Graph().as_default():
        sess, train, feed = ns["towers"](*layout)
        md = traced(sess, train, feed)
        rows = assert_matches_the_run(sess, md)
        count, nbytes, _ = ns["measure"](sess, train, feed)  # the tutorial's own count
    assert len(rows) == count and total_bytes(rows) == nbytes
    if expected is not None:
        assert count == expected  # the text says: 4 slices + 4 variable reads + 4 gradients
    # the batch slices are 128 rows of 32 floats each
    sliced = [c for c in rows if c.op_type == "Split"]
    assert sliced and all(c.nbytes == 128 * 32 * 4 for c in sliced)
    assert all(c.where.startswith("10_towers.md:") for c in rows)


@pytest.mark.parametrize("module", [p02_cnn_towers, p03_mlp_towers], ids=["p02", "p03"])
def test_tower_programs_copies_are_the_runs_transfers(module):
    with tf.Graph().as_default():
        spec = module.build(tf)
        sess = tf.Session(config=tf.ConfigProto(device_count={"CPU": 3}))
        sess.run(tf.global_variables_initializer())
        md = traced(sess, spec["train"], spec.get("feed"))
        rows = assert_matches_the_run(sess, md)
    routes = by_route(rows)
    assert {("CPU:0" in s, "CPU:0" in d) for s, d in routes} >= {(True, False), (False, True)}  # to towers and back
    assert sum(len(v) for v in routes.values()) == len(rows)
    assert any(os.path.basename(module.__file__) in c.where for c in rows)


def test_untraced_bytes_come_from_static_shapes_or_are_unknown():
    with tf.Graph().as_default():
        with tf.device("/cpu:0"):
            a = tf.constant(np.ones((3, 4), np.float32))
            p = tf.placeholder(tf.float32, [None])
        with tf.device("/gpu:0"):
            b = a * 2.0
            c = p + 1.0
        sess = tf.Session(config=tf.ConfigProto(device_count={"GPU": 1}))
        sess.run([b, c], {p: np.ones(5, np.float32)})
        rows = {r.tensor: r for r in copies(sess.last_plan)}
        assert rows[a.name].nbytes == 48 and rows[p.name].nbytes is None
        text = copies_text(list(rows.values()))
        assert "2 copies between devices (48 B per run)" in text
        assert text.index(a.name) < text.index(p.name)  # largest first, unknown last
        traced_rows = {r.tensor: r for r in copies(sess.last_plan, traced(sess, [b, c], {p: np.ones(5, np.float32)}))}
        assert traced_rows[p.name].nbytes == 20  # the trace knows what was fed


def test_html_table_sorts_bytes_as_numbers_and_puts_devices_first():
    with tf.Graph().as_default():
        with tf.device("/cpu:0"):
            small, big = tf.ones([2]), tf.ones([300])
        with tf.device("/gpu:0"):
            out = small * 2.0, big * 2.0
        sess = tf.Session(config=tf.ConfigProto(device_count={"GPU": 1}))
        sess.run(out)
        page = copies_html(copies(sess.last_plan))
    heads = re.findall(r"<th[^>]*>([^<]*)</th>", page)
    assert heads[:3] == ["from", "to", "bytes"]
    assert re.findall(r"data-sort='(-?\d+)'", page) == ["8", "1200"]
    assert "2 copies, 1.2 KB per run" in page


def test_placement_report_holds_the_copies_table_and_device_first_table():
    with tf.Graph().as_default():
        with tf.device("/cpu:0"):
            a = tf.ones([4])
        with tf.device("/gpu:0"):
            b = a + 1.0
        with tf.device("/cpu:0"):
            c = b * 2.0
        sess = tf.Session(config=tf.ConfigProto(device_count={"GPU": 1}))
        sess.run(c)
        report = PlacementReport(sess, sess.placement_log, [sess.last_plan])
        page = report._repr_html_()
    assert "copies table (2 copies, 32 B per run)" in page
    assert "2 copies between devices (32 B)" in report.summary()


# -- devlab place: summary, copies table, then the log; --explain, --fetch; the --gpus hint ----------
from devlab import cli  # noqa: E402

ROOT = os.path.dirname(HERE)


def place(capsys, *argv):
    code = cli.main(["place", *argv, "--timeout", "0"])
    out = capsys.readouterr()
    return code, out.out, out.err


def test_place_prints_summary_and_copies_before_the_log(capsys, monkeypatch):
    monkeypatch.chdir(ROOT)
    code, out, err = place(capsys, "examples/seed004_mixed_sum.py", "--gpus", "4")
    assert code == 0, err
    summary = out.index("devlab: 7 ops placed on 3 devices (GPU:2 3, GPU:3 3, CPU:0 1); 2 copies")
    table = out.index("devlab: 2 copies between devices (32 B per run), largest first:")
    log = out.index("placement log (7 lines):")
    assert summary < table < log < out.index("AddN: (AddN): /job:localhost/replica:0/task:0/device:CPU:0")
    rows = [line.split() for line in out[table:log].splitlines()[2:]]
    assert sorted((r[0], r[1], r[2], r[3] + r[4]) for r in rows) == [("MatMul:0", "GPU:2", "CPU:0", "16B"),
                                                                     ("MatMul_1:0", "GPU:3", "CPU:0", "16B")]
    assert all(r[-1] == "examples/seed004_mixed_sum.py:12" for r in rows)


def test_place_explain_and_fetch(capsys, monkeypatch):
    monkeypatch.chdir(ROOT)
    code, out, err = place(capsys, "examples/seed004_mixed_sum.py", "--gpus", "4", "--explain", "MatMul_1",
                           "--fetch", "MatMul_1")
    assert code == 0, err
    assert "MatMul_1 (MatMul) -> /job:localhost/replica:0/task:0/device:GPU:3" in out
    fetched = out[out.index("--fetch MatMul_1: one modelled run"):]
    assert "devlab: no copies between devices" in fetched  # MatMul_1 alone stays on GPU:3
    assert "one run of 3 ops and 0 transfers" in fetched
    code, out, err = place(capsys, "examples/seed004_mixed_sum.py", "--gpus", "4", "--explain", "nope")
    assert code == 2 and err.startswith("devlab: --explain nope:") and len(err.strip().splitlines()) == 1


NEEDS_GPUS = ["seed001_assign_to_device.py", "seed001_colocate_gradients.py", "seed001_update_ops.py",
              "seed002_device_scope.py", "seed004_mixed_sum.py"]


@pytest.mark.parametrize("example", NEEDS_GPUS)
def test_a_script_given_no_gpus_gets_a_hint_that_works(example, capsys, monkeypatch):
    monkeypatch.chdir(ROOT)
    code, out, err = place(capsys, f"examples/{example}")
    assert code == 1 and "CUDA is not enabled" in err
    hint = err.strip().splitlines()[-1]
    found = re.search(r"`devlab place (\S+) --gpus (\d+)`", hint)
    assert hint.startswith(f"devlab: examples/{example} asks for GPU:") and found
    code, out, err = place(capsys, found.group(1), "--gpus", found.group(2))
    assert code == 0, err


def test_no_hint_when_the_gpu_is_there_but_the_kernel_is_not(capsys, monkeypatch, tmp_path):
    script = tmp_path / "s.py"
    script.write_text("import tensorflow as tf\nwith tf.device('/gpu:0'):\n    s = tf.as_string(tf.constant(1))\n"
                      "tf.Session().run(s)\n")
    code, out, err = place(capsys, str(script), "--gpus", "1")
    assert code == 1 and "--gpus" not in err


def test_place_on_a_graph_file_lists_the_modelled_runs_copies(capsys, monkeypatch):
    monkeypatch.chdir(ROOT)
    graph = "tests/data/tf_graphs/tower_cnn_gpu.pbtxt"
    code, out, err = place(capsys, graph, "--gpus", "4", "--copies", "0")
    assert code == 0, err
    transfers = int(re.search(r"^transfers: (\d+)", out, re.M).group(1))
    table = re.search(r"devlab: (\d+) copies between devices \([^)]* per run\), largest first:\n(.*?)\nplacement log",
                      out, re.S)
    assert int(table.group(1)) == transfers == len(table.group(2).splitlines()) - 1  # every row, under a header
    assert out.index("largest first:") < out.index("placement log (")
    code, out, err = place(capsys, graph, "--gpus", "4", "--fetch", "tower_1/model/Conv2D")
    assert code == 0, err
    fetched = int(re.search(r"^transfers: (\d+)", out, re.M).group(1))
    assert 0 < fetched < transfers and "fetches modelled: tower_1/model/Conv2D" in out
