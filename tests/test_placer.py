"""The placer's rules, its errors, explain(), and properties over random graphs and device sets."""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import devlab as tf

LOCAL = "/job:localhost/replica:0/task:0/device:"


def placed(sess, *tensors):
    sess.run([t for t in tensors])
    return [sess.placement.device_of(t.op).name[len(LOCAL):] for t in tensors]


def test_unpinned_op_prefers_gpu_and_generators_follow_consumers():
    a, b = tf.constant([[1.0]]), tf.constant([[2.0]])
    c = tf.matmul(a, b)
    with tf.Session(config=tf.ConfigProto(device_count={"GPU": 2})) as s:
        assert placed(s, c, a, b) == ["GPU:0", "GPU:0", "GPU:0"]


def test_cpu_only_op_goes_to_cpu_and_pinning_it_to_gpu_fails_without_soft_placement():
    x = tf.constant(1.5)
    s1 = tf.strings.as_string(x)
    with tf.Session(config=tf.ConfigProto(device_count={"GPU": 1})) as s:
        assert placed(s, s1) == ["CPU:0"]
    with tf.device("/gpu:0"):
        s2 = tf.strings.as_string(x, name="pinned")
    with tf.Session(config=tf.ConfigProto(device_count={"GPU": 1})) as s:
        with pytest.raises(tf.errors.InvalidArgumentError) as e:
            s.run(s2)
    assert "Cannot assign a device for operation pinned: Could not satisfy explicit device specification " \
           "'/device:GPU:0' because no supported kernel for GPU devices is available." in str(e.value)
    assert "test_placer.py" in str(e.value)
    with tf.Session(config=tf.ConfigProto(device_count={"GPU": 1}, allow_soft_placement=True)) as s:
        assert placed(s, s2) == ["CPU:0"]
        assert s.run(s2) == b"1.500000"  # TF formats floats with %f


def test_unknown_device_error_names_op_and_available_devices():
    with tf.device("/device:GPU:3"):
        a = tf.constant(1.0, name="a")
        b = tf.sin(a, name="b")
    with tf.Session(config=tf.ConfigProto(device_count={"GPU": 1})) as s:
        with pytest.raises(tf.errors.InvalidArgumentError) as e:
            s.run(b)
    first = str(e.value).splitlines()[0]
    assert first == ("Cannot assign a device for operation b: {{node b}} was explicitly assigned to /device:GPU:3 "
                     "but available devices are [ /job:localhost/replica:0/task:0/device:CPU:0, "
                     "/job:localhost/replica:0/task:0/device:GPU:0 ]. Make sure the device specification refers "
                     "to a valid device.")
    assert e.value.op is b.op


def test_soft_placement_drops_type_and_index():
    # TF's GetPreferredSoftDeviceName: a request no device meets loses its type and index (unless
    # a variable's own device sets them), so a missing CPU:5 falls to the best device, GPU:0
    with tf.device("/device:GPU:7"):
        a = tf.constant(1.0) * 2.0
    with tf.device("/device:CPU:5"):
        b = tf.constant(1.0) * 2.0
    with tf.Session(config=tf.ConfigProto(device_count={"GPU": 2}, allow_soft_placement=True)) as s:
        assert placed(s, a, b) == ["GPU:0", "GPU:0"]


def test_unknown_job_is_not_softened():
    with tf.device("/job:foo"):
        a = tf.constant(1.0) + 1.0
    with tf.Session(config=tf.ConfigProto(allow_soft_placement=True)) as s:
        with pytest.raises(tf.errors.InvalidArgumentError, match="explicitly assigned to /job:foo"):
            s.run(a)


def test_reference_edges_colocate_assign_with_variable():
    with tf.device("/gpu:1"):
        v = tf.Variable(1.0, name="v")
    with tf.device("/cpu:0"):
        up = tf.assign_add(v, 1.0)
    with tf.Session(config=tf.ConfigProto(device_count={"GPU": 2})) as s:
        s.run(tf.global_variables_initializer())
        assert placed(s, up) == ["GPU:1"]
        assert s.run(up) == 3.0


def test_colocation_conflict_of_kernels_is_tf_error():
    x = tf.constant(1.0, name="x")
    with tf.device("/gpu:0"):
        y = tf.sin(x, name="y")
    with tf.colocate_with(y):
        z = tf.strings.as_string(x, name="z")
    with tf.Session(config=tf.ConfigProto(device_count={"GPU": 1})) as s:
        with pytest.raises(tf.errors.InvalidArgumentError) as e:
            s.run(z)
    assert "Cannot colocate nodes" in str(e.value) or "Could not satisfy explicit device" in str(e.value)


def test_incompatible_jobs_in_a_group_fail():
    with tf.device("/job:a"):
        x = tf.constant(1.0, name="x")
    with tf.colocate_with(x):
        with tf.device("/job:b"):
            pass
    g = tf.get_default_graph()
    y = tf.identity(x, name="y")
    y.op._set_attr("_class", [b"loc:@x"])
    y.op._set_device("/job:b")
    with pytest.raises(tf.errors.InvalidArgumentError, match="Cannot merge devices with incompatible jobs"):
        tf.Session(graph=g).run(y)


def test_explain_tells_scope_line_and_fallback():
    with tf.device("/gpu:0"):
        a = tf.constant(1.0, name="a")
    with tf.colocate_with(a):
        b = tf.sin(a, name="b")
    c = tf.cos(b, name="c")
    with tf.Session(config=tf.ConfigProto(device_count={"GPU": 1})) as s:
        s.run(c)
        text_b = str(s.explain(b))
        text_c = str(s.explain("c"))
    assert "b (Sin) -> /job:localhost/replica:0/task:0/device:GPU:0" in text_b
    assert "colocate_with('a')" in text_b and "test_placer.py:" in text_b
    assert "GPU before CPU" in text_c
    from devlab.views.html import explanation_html
    assert "<b>b (Sin) -&gt; " in explanation_html(s.explain(b))


def test_device_mapping_names_simulated_gpus():
    s = tf.Session(config=tf.ConfigProto(device_count={"GPU": 2, "CPU": 2}))
    lines = s.device_mapping.splitlines()
    assert lines[0] == "Device mapping:" and len(lines) == 3
    assert "Simulated GPU" in lines[1] and lines[1].startswith(LOCAL + "GPU:0 -> device: 0")
    assert tf.Session(config=tf.ConfigProto(device_count={"GPU": 0})).device_mapping == \
        "Device mapping: no known devices."


@st.composite
def random_programs(draw):
    """A random graph: each op picks inputs among earlier ones, a device request and maybe colocation."""
    n_gpu = draw(st.integers(0, 3))
    n_cpu = draw(st.integers(1, 3))
    requests = [None, "/cpu:0", "/gpu:0", "/gpu:1", "/device:CPU:1", "/device:GPU:2"]
    ops = []
    for i in range(draw(st.integers(1, 12))):
        kind = draw(st.sampled_from(["const", "unary", "binary", "coloc", "string"] if ops else ["const"]))
        req = draw(st.sampled_from(requests))
        ins = [draw(st.integers(0, len(ops) - 1)) for _ in range({"unary": 1, "binary": 2, "coloc": 1, "string": 1}.get(kind, 0))]
        ops.append((kind, req, ins))
    return n_gpu, n_cpu, ops, draw(st.booleans())


def build(program):
    _, _, ops, _ = program
    tensors = []
    for i, (kind, req, ins) in enumerate(ops):
        with tf.device(req):
            if kind == "const":
                t = tf.constant(float(i + 1), name=f"op{i}")
            elif kind == "unary":
                t = tf.sin(tensors[ins[0]], name=f"op{i}")
            elif kind == "binary":
                t = tf.add(tensors[ins[0]], tensors[ins[1]], name=f"op{i}")
            elif kind == "string":
                tf.strings.as_string(tensors[ins[0]], name=f"str{i}")
                t = tf.identity(tensors[ins[0]], name=f"op{i}")
            else:
                with tf.colocate_with(tensors[ins[0]]):
                    t = tf.square(tensors[ins[0]], name=f"op{i}")
        tensors.append(t)
    return tensors


@settings(max_examples=60, deadline=None)
@given(random_programs())
def test_random_graphs_place_validly_and_compute_what_cpu_computes(program):
    n_gpu, n_cpu, _, soft = program
    with tf.Graph().as_default() as g:
        tensors = build(program)
        cfg = tf.ConfigProto(device_count={"GPU": n_gpu, "CPU": n_cpu}, allow_soft_placement=soft)
        md = tf.RunMetadata()
        try:
            with tf.Session(config=cfg) as s:
                values = s.run(tensors, options=tf.RunOptions(output_partition_graphs=True), run_metadata=md)
                placement = s.placement
        except tf.errors.InvalidArgumentError as e:
            assert "Cannot assign a device" in str(e) or "Cannot colocate" in str(e)
            return
        names = {d.name for d in s.devices}
        for op in g.get_operations():
            assert placement.device_of(op).name in names  # every op on an existing device
            for grp in op.colocation_groups():  # colocated ops share a device
                other = grp.decode()[5:]
                assert placement.device_of(other) is placement.device_of(op)
        # exactly one transfer per (tensor, destination device)
        recvs = [n for pg in md.partition_graphs for n in pg.node if n.op == "_Recv"]
        keys = [(n.attr["tensor_name"], n.device) for n in recvs]
        assert len(keys) == len(set(keys))
        ran = {n.name for pg in md.partition_graphs for n in pg.node if not n.op.startswith("_")}
        # TF's ReplicateConstantsPass copies a small host constant to each device that reads it
        # instead of sending it: such a read crosses no device boundary.
        replicas = {(n.name.split("/replicate/")[0] + ":0", n.device) for pg in md.partition_graphs
                    for n in pg.node if "/replicate/" in n.name}
        crossing = {(t.name, placement.device_of(op).name) for op in g.get_operations() if op.name in ran
                    for t in op.inputs if placement.device_of(t.op) is not placement.device_of(op)}
        assert len(recvs) == len(crossing - replicas)
    with tf.Graph().as_default():
        cpu_tensors = build((0, 1, [(k, None, i) for k, _, i in program[2]], False))
        with tf.Session(config=tf.ConfigProto(device_count={"GPU": 0})) as s:
            expected = s.run(cpu_tensors)
    np.testing.assert_allclose(values, expected, rtol=1e-6)


# -- TF's kernel registry decides per op and dtype (devlab/ops/data/tf_kernels.json) ------------------
def test_int32_matmul_has_no_gpu_kernel_so_it_needs_soft_placement():
    a = tf.constant([[1, 2]], name="a")
    with tf.device("/gpu:0"):
        m = tf.matmul(a, tf.constant([[3], [4]], name="b"), name="m")
    config = tf.ConfigProto(device_count={"GPU": 1})
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=r"Could not satisfy explicit device specification '/device:GPU:0' because no supported "
                             r"kernel for GPU devices is available.(.|\n)*device='GPU'; T in \[DT_FLOAT"):
        tf.Session(config=config).run(m)
    soft = tf.Session(config=tf.ConfigProto(device_count={"GPU": 1}, allow_soft_placement=True))
    assert soft.run(m).tolist() == [[11]]
    assert soft.placement.device_of(m.op).device_type == "CPU"


def test_float_matmul_and_int32_add_do_have_gpu_kernels():
    with tf.device("/gpu:0"):
        m = tf.matmul(tf.constant([[1.0]]), tf.constant([[2.0]]), name="m")
        i = tf.add(tf.constant(1), tf.constant(2), name="i")  # TF keeps int32 in host memory, on the GPU device
    with tf.Session(config=tf.ConfigProto(device_count={"GPU": 1})) as s:
        assert s.run([m, i])[1] == 3
        assert s.placement.device_of(m.op).device_type == s.placement.device_of(i.op).device_type == "GPU"


def test_string_constants_live_on_the_cpu():
    with tf.device("/gpu:0"):
        c = tf.constant("hello", name="c")
    with pytest.raises(tf.errors.InvalidArgumentError, match="no supported kernel for GPU devices"):
        tf.Session(config=tf.ConfigProto(device_count={"GPU": 1})).run(c)
    with tf.Session(config=tf.ConfigProto(device_count={"GPU": 1}, allow_soft_placement=True)) as s:
        assert s.run(c) == b"hello" or s.run(c) == "hello"
        assert s.placement.device_of(c.op).device_type == "CPU"


def test_graph_order_of_a_graph_made_in_order_is_its_creation_order():
    """The shortcut (no heap when every op comes after its inputs) visits as the full walk does."""
    from unittest import mock

    from devlab.placer import placer as placer_mod
    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.float32, [2])
        y = x
        for _ in range(5):
            y = tf.identity(y + x)
        with tf.control_dependencies([y]):
            z = tf.negative(x)
    ops = g.get_operations()
    assert placer_mod._made_in_order(ops, {op: i for i, op in enumerate(ops)})
    with mock.patch.object(placer_mod, "_made_in_order", lambda ops, index: False):
        full = placer_mod.graph_order(ops)
    assert placer_mod.graph_order(ops) == full == ops
    with g.as_default():
        w = tf.sqrt(x)
    z.op._add_control_input(w.op)  # z made before a control input of its own: the full walk
    ops = g.get_operations()
    assert not placer_mod._made_in_order(ops, {op: i for i, op in enumerate(ops)})
    order = placer_mod.graph_order(ops)
    assert order.index(z.op) > order.index(w.op) and order[:-2] == ops[:-2]
