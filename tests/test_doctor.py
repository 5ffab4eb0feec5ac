"""The placement doctor (``sess.diagnose()``, ``%%placement --doctor``, ``devlab place --doctor``)
on tutorial 10's towers, tutorial 5's gradients and programs p02/p03: each finding's fix is
measured by re-placing, and the re-placed copies and bytes equal those of the program rewritten
with that one-line change; a layout with nothing to fix gets no finding."""
import os
import subprocess
import sys

import numpy as np
import pytest

import devlab as tf

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "notebooks"))
sys.path.insert(0, os.path.join(ROOT, "tests", "programs"))

import build  # noqa: E402  (notebooks/build.py)


def tutorial_cells(name, *defines):
    """The tutorial's code cells that define ``defines``, run into one namespace."""
    scope = {"tf": tf, "np": np}
    for cell in build.read_source(name).cells:
        if cell.cell_type == "code" and any(f"def {d}" in cell.source for d in defines):
            exec(cell.source, scope)  # noqa: S102 - the tutorial's own cells
    return scope


def cost(sess):
    from devlab.runtime.doctor.replace import cost as plan_cost
    return plan_cost(sess.last_plan.transfers)


@pytest.fixture(scope="module")
def towers():
    return tutorial_cells("10_towers", "split_batch", "tower_loss", "average_gradients", "towers")["towers"]


def run_towers(towers, *layout, **kw):
    with tf.Graph().as_default():
        sess, train, feed = towers(*layout, **kw)
        sess.run(train, feed)
        return sess, sess.diagnose()


def test_averaging_on_the_cpu_is_a_round_trip_and_its_fix_is_measured(towers):
    sess, found = run_towers(towers, "/gpu:0", "/cpu:0")
    assert [f.pattern for f in found] == ["round trip"]
    f = found[0]
    assert "with tf.device('/gpu:0')" in f.fix and f.copies == 6 and f.nbytes > 0
    fixed, nothing = run_towers(towers, "/gpu:0", "/gpu:0")  # the one-line change, made for real
    assert f.after == cost(fixed) and f.before == cost(sess) and f.after[1] < f.before[1]
    assert not nothing  # the layout tutorial 10 finds fastest: nothing to fix
    assert "checked: re-placed with the fix, the run makes 8 copies" in repr(found)


@pytest.mark.parametrize("layout", [("/cpu:0", "/cpu:0"), ("/gpu:0", "/gpu:0")])
def test_layouts_without_a_cheaper_fix_get_no_finding(towers, layout):
    _, found = run_towers(towers, *layout, features=256, num_towers=4)
    assert not found and "no costly pattern found" in repr(found)


def test_gradients_not_colocated_fix_is_colocate_gradients_with_ops():
    program = tutorial_cells("05_gradients", "gradients_program")["gradients_program"]
    with tf.Graph().as_default():
        found = program(colocate=False).diagnose()
    assert [f.pattern for f in found] == ["gradients not colocated"]
    assert "colocate_gradients_with_ops=True" in found[0].fix
    assert sorted(found[0].tensors) == ["Sigmoid:0", "Tanh:0"]
    with tf.Graph().as_default():
        fixed = program(colocate=True)
        assert found[0].after == cost(fixed) and not fixed.diagnose()


def program_session(module, **kwargs):
    spec = module.build(tf, **kwargs)
    sess = tf.Session(config=tf.ConfigProto(allow_soft_placement=True, device_count={"GPU": 2}))
    sess.run(tf.global_variables_initializer())
    sess.run(spec["train"], spec["feed"])
    return sess


def test_p02_with_the_variables_on_a_tower_gpu_averages_in_a_round_trip():
    import p02_cnn_towers as p02
    gpus = ("/gpu:0", "/gpu:1")
    with tf.Graph().as_default():
        as_written = program_session(p02, devices=gpus).diagnose()
    assert not as_written  # variables and the average on the CPU: nothing to fix
    with tf.Graph().as_default():
        sess = program_session(p02, devices=gpus, ps_device="/gpu:0")
        found = sess.diagnose()
    assert [f.pattern for f in found] == ["round trip"]
    f = found[0]
    assert "'/gpu:0'" in f.fix and f.before == cost(sess) and f.after[1] < f.before[1]
    assert any("gradients" in t for t in f.tensors)


def test_p03_as_written_has_nothing_to_fix():
    import p03_mlp_towers as p03
    with tf.Graph().as_default():
        found = program_session(p03, devices=("/gpu:0", "/gpu:1")).diagnose()
    assert not found and found.copies > 0


def test_a_cpu_only_kernel_between_gpu_ops_is_named_with_why_it_cannot_move():
    with tf.Graph().as_default():
        with tf.device("/gpu:0"):
            x = tf.constant(np.arange(6, dtype=np.float32)) * 2.0
            y = tf.py_func(lambda a: a + 1, [x], tf.float32) * 3.0
        sess = tf.Session(config=tf.ConfigProto(allow_soft_placement=True, device_count={"GPU": 1}))
        sess.run(y)
        found = sess.diagnose()
    assert [f.pattern for f in found] == ["CPU-only kernel"]
    assert "PyFunc" in found[0].what and found[0].copies == 2 and found[0].nbytes == 24  # py_func's output: sized at run time
    assert found[0].after is None and "no kernel there" in repr(found)


def test_a_constant_shared_by_towers_is_costed_per_step():
    with tf.Graph().as_default():
        k = tf.constant(np.ones((64, 64), np.float32), name="k")
        outs = []
        for i in range(2):
            with tf.device(f"/gpu:{i}"):
                outs.append(tf.reduce_sum(tf.matmul(tf.ones([2, 64]), k)))
        sess = tf.Session(config=tf.ConfigProto(device_count={"GPU": 2}))
        sess.run(tf.add_n(outs))
        found = sess.diagnose()
    assert [f.pattern for f in found] == ["shared constant"]
    assert found[0].nbytes == 64 * 64 * 4 and found[0].tensors == ["k:0"]
    assert tf.get_default_graph() is not sess.graph  # the re-placing left the user's graph alone


def test_replacing_leaves_the_graph_and_session_unchanged(towers):
    sess, found = run_towers(towers, "/gpu:0", "/cpu:0")
    devices = {op.name: op.device for op in sess.graph.get_operations()}
    classes = {op.name: op.colocation_groups() for op in sess.graph.get_operations()}
    log = list(sess.placement_log)
    sess.diagnose()
    assert devices == {op.name: op.device for op in sess.graph.get_operations()}
    assert classes == {op.name: op.colocation_groups() for op in sess.graph.get_operations()}
    assert sess.placement_log == log


def test_diagnose_before_any_run_says_so():
    with tf.Graph().as_default():
        tf.constant(1.0)
        with pytest.raises(ValueError, match="run something"):
            tf.Session().diagnose()


def test_devlab_place_doctor(tmp_path):
    script = tmp_path / "towers.py"
    script.write_text(
        "import tensorflow as tf\n"
        "with tf.device('/gpu:0'):\n"
        "    x = tf.constant([1.0, 2.0, 3.0]) * 2.0\n"
        "    y = tf.py_func(lambda a: a + 1, [x], tf.float32) * 3.0\n"
        "sess = tf.Session(config=tf.ConfigProto(allow_soft_placement=True))\n"
        "sess.run(y)\n")
    env = dict(os.environ, PYTHONPATH=ROOT)
    out = subprocess.run([sys.executable, "-m", "devlab", "place", str(script), "--gpus", "1", "--doctor"],
                         capture_output=True, text=True, env=env, timeout=120)
    assert out.returncode == 0, out.stderr
    assert "placement doctor: the last run makes 2 copies" in out.stdout and "CPU-only kernel" in out.stdout


def test_placement_magic_doctor(capsys):
    from IPython.core.getipython import get_ipython
    from IPython.testing.globalipapp import start_ipython
    ip = start_ipython() or get_ipython()
    ip.run_line_magic("load_ext", "devlab")
    ip.run_cell_magic("placement", "--no-draw --no-log --doctor --gpus 2",
                      "k = tf.constant(np.ones((8, 8), np.float32), name='k')\n"
                      "outs = []\n"
                      "for i in range(2):\n"
                      "    with tf.device(f'/gpu:{i}'):\n"
                      "        outs.append(tf.reduce_sum(tf.matmul(k, k)))\n"
                      "tf.Session().run(tf.add_n(outs))\n".replace("np.", "__import__('numpy')."))
    assert "shared constant" in capsys.readouterr().out


def test_an_embedding_updated_by_a_dense_gradient_is_named():
    def program(densify):
        with tf.Graph().as_default():
            with tf.device("/cpu:0"):
                table = tf.Variable(np.ones((1000, 16), np.float32), name="table")
                ids = tf.constant([1, 5, 7], name="ids")
            with tf.device("/gpu:0"):
                loss = tf.reduce_sum(tf.nn.embedding_lookup(table, ids))
            opt = tf.train.GradientDescentOptimizer(0.1)
            grads = opt.compute_gradients(loss, [table])
            if densify:
                grads = [(tf.convert_to_tensor(g), v) for g, v in grads]
            sess = tf.Session(config=tf.ConfigProto(device_count={"GPU": 1}))
            sess.run(tf.global_variables_initializer())
            sess.run(opt.apply_gradients(grads))
            return sess.diagnose()
    found = [f for f in program(densify=True) if f.pattern == "embedding densified"]
    assert len(found) == 1
    assert found[0].nbytes == 1000 * 16 * 4 and "3 * 16 * 4" not in found[0].note
    assert f"({3 * 16 * 4} bytes per step)" in found[0].note
    sparse = program(densify=False)  # the IndexedSlices gradient: a sparse update
    assert "embedding densified" not in [f.pattern for f in sparse]


# Variables on one tower's GPU, read by every other tower: the finding and its fix, re-placed, against
# the program rewritten with the variables on the CPU (the re-placement moves each variable with
# its read, assign and update ops, colocated with it, as the rewritten program does).

def gpu_session(module, towers, **kwargs):
    spec = module.build(tf, devices=tuple(f"/gpu:{i}" for i in range(towers)), **kwargs)
    sess = tf.Session(config=tf.ConfigProto(allow_soft_placement=True, device_count={"GPU": towers}))
    sess.run(tf.global_variables_initializer())
    sess.run(spec["train"], spec["feed"])
    return sess


def assert_variables_finding(found, sess, rewritten, readers):
    f = next(f for f in found if f.pattern == "variables on a tower's GPU")
    assert f"read by the towers on {readers}" in f.what and "tf.device('/cpu:0')" in f.fix
    assert all(t.endswith("/read:0") for t in f.tensors) and f.copies == len(f.tensors) and f.nbytes > 0
    assert f.before == cost(sess) and f.after == cost(rewritten)
    assert f.after[2] <= 0.9 * f.before[2]  # the busiest device relieved by a tenth or more


def test_tutorial_10_variables_on_gpu0_read_by_eight_towers(towers):
    sess, found = run_towers(towers, "/gpu:0", "/gpu:0", features=256, num_towers=8)
    rewritten, _ = run_towers(towers, "/cpu:0", "/gpu:0", features=256, num_towers=8)
    assert [f.pattern for f in found] == ["variables on a tower's GPU"]
    assert_variables_finding(found, sess, rewritten, "GPU:1, GPU:2, GPU:3, GPU:4, GPU:5, GPU:6, GPU:7")
    assert "2 variable(s) on GPU:0" in found[0].what


def test_p02_variables_and_average_on_gpu0_with_four_towers():
    import p02_cnn_towers as p02
    with tf.Graph().as_default():
        sess = gpu_session(p02, 4, ps_device="/gpu:0", average_on="/gpu:0")
        found = sess.diagnose()
    with tf.Graph().as_default():
        rewritten = gpu_session(p02, 4, ps_device="/cpu:0", average_on="/gpu:0")
        assert not rewritten.diagnose()  # the fix leaves nothing to fix
    assert [f.pattern for f in found] == ["variables on a tower's GPU"]
    assert_variables_finding(found, sess, rewritten, "GPU:1, GPU:2, GPU:3")
    assert "8 variable(s) on GPU:0" in found[0].what


def test_p02_with_two_towers_the_cpu_would_be_busier_so_no_finding():
    import p02_cnn_towers as p02
    with tf.Graph().as_default():
        found = gpu_session(p02, 2, ps_device="/gpu:0", average_on="/gpu:0").diagnose()
    assert not found  # on the CPU the variables cost 38 copies, 11 KB, the CPU moving more than GPU:0 did


def test_p03_variables_on_gpu0_are_found_and_the_fix_is_p03_as_written():
    import p03_mlp_towers as p03
    with tf.Graph().as_default():
        sess = gpu_session(p03, 2, variables_on="/gpu:0")
        found = sess.diagnose()
    with tf.Graph().as_default():
        as_written = gpu_session(p03, 2)
    assert sorted(f.pattern for f in found) == ["round trip", "variables on a tower's GPU"]
    assert_variables_finding(found, sess, as_written, "GPU:1")
