"""The device view (GraphView's default above DEVICE_VIEW_OPS ops): one node per device, one arrow
per route labelled with the copies and bytes of the run, whatever the op count; a device opens to
its ops folded by scope; the widget opens devices and lists an arrow's copies."""
import re
import shutil

import numpy as np
import pytest

import devlab as tf
from devlab import config
from devlab.graphs import load_graph
from devlab.runtime.protos import ConfigProto
from devlab.runtime.session import Session
from devlab.views.copies import by_route, copies
from devlab.views.graph_view import DEVICE_VIEW_OPS, GraphView

needs_dot = pytest.mark.skipif(shutil.which("dot") is None, reason="Graphviz's dot draws the SVG")


def towers(layers, num_towers=2, scoped=True):
    """A multi-tower MLP: variables on the CPU, each tower on its GPU, gradients averaged on the CPU."""
    g = tf.Graph()
    with g.as_default():
        with tf.device("/cpu:0"):
            x = tf.placeholder(tf.float32, [8, 16], name="x")
            ws = [tf.Variable(tf.ones([16, 16]) * 0.01, name=f"w{i}") for i in range(layers)]
            xs = tf.split(x, num_towers)
        grads = []
        for t in range(num_towers):
            scope = tf.name_scope(f"tower_{t}") if scoped else tf.name_scope(None)
            with tf.device(f"/gpu:{t}"), scope:
                h = xs[t]
                for w in ws:
                    h = tf.tanh(tf.matmul(h, w))
                grads.append(tf.gradients(tf.reduce_sum(h), ws))
        with tf.device("/cpu:0"):
            train = tf.group(*[w.assign_sub(0.1 * tf.add_n(list(gs))) for w, gs in zip(ws, zip(*grads))])
        sess = tf.Session(graph=g, config=tf.ConfigProto(device_count={"GPU": num_towers}))
        sess.run(tf.global_variables_initializer())
        sess.run(train, {x: np.ones((8, 16), np.float32)})
    return sess, train


def drawn_nodes(svg):
    return len(re.findall(r'<g id="[^"]*" class="node', svg))


def font_sizes(svg):
    return [float(s) for s in re.findall(r'font-size="([\d.]+)"', svg)]


def test_a_big_run_is_drawn_one_node_per_device_with_its_copies_on_the_arrows():
    sess, _ = towers(layers=12)
    view = GraphView(sess, sess.last_plan)
    assert len(view.ops) > DEVICE_VIEW_OPS and view.level == "device"
    dot = view.to_dot().source
    devices = {d.name for d in view.devices}
    assert set(view.device_nodes.values()) == devices == {f"/job:localhost/replica:0/task:0/device:{d}"
                                                          for d in ("CPU:0", "GPU:0", "GPU:1")}
    routes = by_route(copies(sess.last_plan))
    assert set(view.routes.values()) == set(routes)  # one arrow per (source, destination)
    for eid, route in view.routes.items():
        rows = routes[route]
        line = next(line for line in dot.splitlines() if f'id="{eid}"' in line)
        assert f"{len(rows)} copies" in line or f"{len(rows)} copy" in line
    assert sum(len(r) for r in routes.values()) == len(sess.last_plan.transfers)


def test_small_runs_stepping_and_no_fold_draw_the_ops():
    sess, _ = towers(layers=1)
    assert len(sess.last_plan.ops) <= DEVICE_VIEW_OPS and GraphView(sess).level == "ops"
    big, _ = towers(layers=12)
    assert GraphView(big, fold=False).level == "ops"
    assert GraphView(big, highlight="tower_0/MatMul").level == "ops"
    with pytest.raises(ValueError, match="level must be"):
        GraphView(big, level="scopes")


def test_open_device_draws_one_devices_ops_folded_by_scope():
    sess, _ = towers(layers=12)
    view = GraphView(sess, level="ops", open_device="GPU:1")
    assert {d.name for d in view.devices} == {"/job:localhost/replica:0/task:0/device:GPU:1"}
    assert view.ops and all(op.name.startswith(("tower_1/", "gradients_1/")) or "GPU:1" in view.device_of[op.name].name
                            for op in view.ops)
    assert view.layout()[3] == "scopes"
    with pytest.raises(ValueError, match="no ops ran on 'GPU:7'"):
        GraphView(sess, open_device="GPU:7")


@needs_dot
@pytest.mark.parametrize("ops", [20, 1000, 12_500])
def test_device_view_stays_legible_from_tens_to_thousands_of_ops(ops):
    """No name scopes at all (folding has nothing to fold): the device view still has one node per
    device, its text at the drawing's own sizes, and an SVG of a few KB."""
    g = tf.Graph()
    with g.as_default():
        with tf.device("/cpu:0"):
            h = tf.constant(np.ones(4, np.float32))
        for i in range(ops - 1):
            with tf.device(["/cpu:0", "/gpu:0", "/gpu:1"][(i // max(1, ops // 60)) % 3]):
                h = h * 1.0001
        sess = tf.Session(graph=g, config=tf.ConfigProto(device_count={"GPU": 2}))
        run = sess.modelled_run(h)
    view = GraphView(sess, run.plan, level="device")
    svg = view.svg()
    assert drawn_nodes(svg) == 3 and len(svg) < 8_000
    assert min(font_sizes(svg)) >= 12


@needs_dot
def test_the_10k_op_graph_file_draws_as_its_devices():
    graph = load_graph("tests/data/tf_graphs/big_10k.pb")
    with config.override(default_cpus=2):
        sess = Session(graph=graph, config=ConfigProto(allow_soft_placement=True))
        run = sess.modelled_run()
    view = GraphView(sess, run.plan)
    svg = view.svg()
    assert len(view.ops) > 10_000 and view.level == "device"
    assert drawn_nodes(svg) == len(view.devices) == 2 and len(svg) < 8_000
    assert "stage_00/" in view.to_dot().source  # each device names its biggest scopes


def test_widget_opens_a_device_and_lists_an_arrows_copies():
    pytest.importorskip("anywidget")
    from devlab.notebook.graph_widget import GraphWidget
    sess, _ = towers(layers=12)
    w = GraphWidget(sess)
    assert sorted(w.devices.values()) == ["CPU:0", "GPU:0", "GPU:1"] and not w.folds
    routes = by_route(copies(sess.last_plan))
    for eid, route in w.view.routes.items():
        assert len(w.routes[eid]["rows"]) == len(routes[route])
        assert {r[0] for r in w.routes[eid]["rows"]} == {c.tensor for c in routes[route]}
    gpu1 = next(i for i, d in w.devices.items() if d == "GPU:1")
    w._on_message(w, {"event": "open_device", "id": gpu1}, [])
    assert w.opened == "GPU:1" and not w.devices and w.folds  # its ops, folded by scope
    assert "tower_1" in set(w.folds.values())
    w._on_message(w, {"event": "devices"}, [])
    assert w.opened == "" and len(w.devices) == 3
