"""TF1 API that TF's own test files and pasted TF1 code reach for: ``Graph.as_graph_def`` and the
GraphDef versions, ``Operation.node_def`` and ``from_node_def``, ``Graph.create_op``'s signature,
``Variable.count_up_to``, ``Session.make_callable``, ``training_util._increment_global_step``,
the dtypes, ``tf.io.gfile``/``tf.gfile`` and ``tf.io.read_file``/``write_file``. Each case returns
its facts or the error. The same functions run under TensorFlow 2.21 (tools/record_cases.py
tf1_surface writes tests/data/tf_tf1_surface.json) and under devlab (tests/test_tf1_surface.py).
Also: check_numerics, sequence_mask, parallel_stack, the gradient enums, list_local_devices,
register_tensor_conversion_function, both gradient checkers, tf.layers.Dense, shapes and refs,
assert_variables_initialized."""
import importlib
import os
import shutil
import tempfile

import numpy as np

from control_flow_cases import graph_facts, run


def _module(tf, devlab_name, tf_name):
    """A module by its devlab or TensorFlow name, whichever API ``tf`` is."""
    return importlib.import_module(devlab_name if tf.__name__.startswith("devlab") else tf_name)


def _error(fn):
    try:
        fn()
    except Exception as e:  # noqa: BLE001 - the class and words are the fact
        lines = [ln for ln in str(e).splitlines() if ln.strip() and not ln[0].isspace()
                 and not ln.startswith(("Graph execution error", "Detected at node", "Node:"))]
        return [type(e).__name__, lines[0] if lines else ""]
    return None


def _nodes(graph_def):
    """A GraphDef's nodes, each attr's value as text, attrs by name (a map's print order is the
    protobuf library's), and its versions."""
    return [[n.name, n.op, list(n.input), n.device, {k: str(v) for k, v in sorted(n.attr.items())}]
            for n in graph_def.node] + [str(graph_def.versions), len(graph_def.library.function)]


def case_as_graph_def(tf, rewrites_off=False):
    x = tf.placeholder(tf.float32, [None, 2], name="x")
    with tf.device("/cpu:0"):
        c = tf.constant([[1.0, 2.0], [3.0, 4.0]], name="c")
        s = tf.constant(2.5, name="s")
    y = tf.matmul(x, c, name="y")
    with tf.control_dependencies([y]):
        z = tf.identity(y * s, name="z")
    with tf.colocate_with(z):
        tf.constant(7, name="k")
    g = tf.get_default_graph()
    return {"graph_def": _nodes(g.as_graph_def()), "with_shapes": _nodes(g.as_graph_def(add_shapes=True)),
            "from_version": [n.name for n in g.as_graph_def(from_version=3).node],
            "versions": [str(g.graph_def_versions), tf.GRAPH_DEF_VERSION, tf.GRAPH_DEF_VERSION_MIN_CONSUMER,
                         tf.GRAPH_DEF_VERSION_MIN_PRODUCER]}


def case_node_def(tf, rewrites_off=False):
    a = tf.constant(1.0, name="a")
    with tf.device("/job:w/task:1/cpu:0"), tf.control_dependencies([a]):
        b = tf.identity(a, name="b")
    nd = b.op.node_def
    return {"node_def": [nd.name, nd.op, list(nd.input), nd.device]}


def case_from_node_def(tf, rewrites_off=False):
    ops = _module(tf, "devlab.framework.operation", "tensorflow.python.framework.ops")
    g = tf.Graph()
    with g.as_default():
        a = tf.constant([1.0, 2.0], name="a")
    op = ops.Operation.from_node_def(ops._NodeDef("Identity", "ident", attrs=None), g, [a], [tf.float32])
    bad = [_error(lambda n=n: ops.Operation.from_node_def(ops._NodeDef("NoOp", n), g)) for n in
           ("", "_invalid", "-invalid", "/invalid", "invalid:0")]
    return {"op": [op.name, op.type, [t.name for t in op.inputs], [t.dtype.name for t in op.outputs], op.device],
            "bad_names": [b[0] if b else None for b in bad]}


def case_create_op_signature(tf, rewrites_off=False):
    g = tf.get_default_graph()
    a = tf.constant([1.0, 2.0], name="a")
    op = g.create_op("Identity", [a], [tf.float32], None, name="myid")
    with g.device("/cpu:0"):
        op2 = g.create_op("Identity", [a], [tf.float32], name="nodev", compute_device=False)
    mismatch = _error(lambda: g.create_op("Identity", [a], [tf.float32], [tf.int32], name="bad"))
    placed, value = run(tf, op.outputs[0], rewrites_off=rewrites_off)
    return {"ops": [[o.name, o.type, o.device] for o in (op, op2)], "mismatch": mismatch,
            "value": np.asarray(value).tolist()}


def case_count_up_to(tf, rewrites_off=False):
    v = tf.Variable(0, name="v")
    c = v.count_up_to(2)
    c2 = tf.count_up_to(v, 3, name="cu")
    values = []
    with tf.Session() as sess:
        sess.run(v.initializer)
        values += [int(sess.run(c)), int(sess.run(c))]
        values.append(_error(lambda: sess.run(c)))
        values.append(int(sess.run(v)))
        values.append(int(sess.run(c2)))
    return {"ops": graph_facts(tf), "values": values, "dtype": c.dtype.name, "shape": c.shape.as_list(),
            "float_variable": _error(lambda: tf.Variable(0.0, name="f").count_up_to(1))}


def case_make_callable(tf, rewrites_off=False):
    a = tf.placeholder(tf.float32, [], name="a")
    b = tf.placeholder(tf.float32, [2], name="b")
    y = a * b
    op = tf.no_op(name="nothing")
    out = []
    with tf.Session() as sess:
        f = sess.make_callable([y, op], feed_list=[a, b])
        value, none = f(3.0, [1.0, 2.0])
        out.append([np.asarray(value).tolist(), none])
        g = sess.make_callable(y, feed_list=["a:0", "b:0"], accept_options=True)
        md = tf.RunMetadata()
        out.append(np.asarray(g(2.0, [1.0, 1.0], options=tf.RunOptions(), run_metadata=md)).tolist())
        out.append(_error(lambda: f(1.0)))
        out.append(_error(lambda: sess.make_callable(y, feed_list=[a])(1.0, [1.0, 2.0])))
    return {"values": out}


def case_increment_global_step(tf, rewrites_off=False):
    training_util = _module(tf, "devlab.train.training_util", "tensorflow.python.training.training_util")
    no_step = _error(lambda: training_util._increment_global_step(1))
    step = tf.train.get_or_create_global_step()
    inc = training_util._increment_global_step(5)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        values = [int(sess.run(inc)), int(sess.run(inc)), int(sess.run(step))]
    return {"no_step": no_step, "ops": graph_facts(tf), "values": values, "inc": [inc.name, inc.dtype.name]}

DTYPES = ("float16", "float32", "float64", "bfloat16", "complex64", "complex128", "int8", "int16", "int32",
          "int64", "uint8", "uint16", "uint32", "uint64", "bool", "string", "qint8", "quint8", "qint16",
          "quint16", "qint32", "resource", "variant")


def _limits(d):
    try:
        return [float(d.min), float(d.max)]
    except TypeError as e:
        return ["TypeError", str(e)]


def case_dtypes(tf, rewrites_off=False):
    dtypes = _module(tf, "devlab.framework.dtypes", "tensorflow.python.framework.dtypes")
    out = {}
    for name in DTYPES:
        d = getattr(tf, name)
        ref = getattr(dtypes, name + "_ref")
        out[name] = [d.name, d.as_datatype_enum, d.is_complex, d.is_unsigned, d.is_quantized, d.is_floating,
                     d.is_integer, d.is_bool, d.real_dtype.name, ref.name, ref.as_datatype_enum, ref.base_dtype.name,
                     tf.as_dtype(d.as_datatype_enum).name, tf.as_dtype(ref.as_datatype_enum).name,
                     d.is_compatible_with(ref), ref.is_compatible_with(d), repr(d)]
        if name not in ("resource", "variant", "string", "bool") and not d.is_complex:
            out[name].append(_limits(d))
    return out


def case_gfile(tf, rewrites_off=False):
    d = tempfile.mkdtemp()
    try:
        out = []

        def log(fn, *args):
            try:
                value = fn(*args)
            except Exception as e:  # noqa: BLE001 - the class and words are the fact
                out.append([type(e).__name__, str(e).replace(d, "<d>")])
            else:
                value = list(value) if isinstance(value, (list, tuple)) else value
                out.append(["ok", str(value).replace(d, "<d>")])
        g, g1 = tf.io.gfile, tf.gfile
        p = os.path.join(d, "a", "b")
        f = os.path.join(p, "f.txt")
        log(g.makedirs, p)
        log(g.makedirs, p)
        log(g.mkdir, p)
        log(g.mkdir, os.path.join(d, "x", "y"))
        with g.GFile(f, "w") as fh:
            fh.write("hello\nworld\n")
        with g1.GFile(f) as fh:
            out.append(fh.readlines())
        with g.GFile(f, "rb") as fh:
            out.append([fh.read(3).decode(), fh.tell(), fh.size()])
        with g1.Open(f, "a") as fh:
            fh.write("more")
        log(lambda: g.GFile(f).read())
        log(lambda: g.GFile(os.path.join(d, "nope")).read())
        log(g.GFile, f, "z")
        for fn in (g.remove, g.listdir, g.stat, g.rmtree, g1.Remove, g1.DeleteRecursively, g1.ListDirectory):
            log(fn, os.path.join(d, "nope"))
        log(g.copy, f, f)
        log(g.rename, f, f)
        log(g1.Copy, f, os.path.join(d, "c.txt"))
        log(g1.Copy, f, os.path.join(d, "c.txt"), True)
        log(g.rename, os.path.join(d, "c.txt"), os.path.join(d, "e.txt"))
        log(g.listdir, d)
        log(g1.ListDirectory, p)
        log(g.glob, os.path.join(d, "*.txt"))
        log(g1.Glob, os.path.join(d, "a", "*"))
        log(g.isdir, p)
        log(g1.IsDirectory, f)
        log(g.exists, f)
        log(g1.Exists, os.path.join(d, "nope"))
        log(lambda: [g.stat(f).length, g.stat(f).is_directory, g1.Stat(p).is_directory])
        log(lambda: [(r.replace(d, "<d>"), ds, fs) for r, ds, fs in g.walk(d)])
        log(g.remove, d)
        log(g1.MakeDirs, os.path.join(d, "m", "n"))
        log(g1.MkDir, os.path.join(d, "m", "o"))
        log(g.rmtree, os.path.join(d, "a"))
        log(g.exists, f)
        return {"log": out}
    finally:
        shutil.rmtree(d, ignore_errors=True)


def case_read_and_write_file(tf, rewrites_off=False):
    d = tempfile.mkdtemp()
    try:
        path = os.path.join(d, "sub", "w.txt")
        w = tf.io.write_file(path, "abc", name="w")
        r = tf.read_file(path, name="r")
        r2 = tf.io.read_file(os.path.join(d, "missing"))
        shape_error = _error(lambda: tf.read_file(["a", "b"]))
        facts = [[op.name, op.type, [t.name for t in op.inputs], [t.dtype.name for t in op.outputs]]
                 for op in tf.get_default_graph().get_operations()]
        with tf.Session() as sess:
            sess.run(w)
            value = sess.run(r)
            missing = _error(lambda: sess.run(r2))
        placed, _ = run(tf, r, rewrites_off=rewrites_off)
        return {"ops": facts, "value": value.decode(), "missing": [missing[0], missing[1].replace(d, "<d>")],
                "shape_error": shape_error, "placed": placed, "same": tf.io.read_file is tf.read_file}
    finally:
        shutil.rmtree(d, ignore_errors=True)


def case_check_numerics(tf, rewrites_off=False):
    x = tf.placeholder(tf.float32, [3], name="x")
    c = tf.check_numerics(x, "bad x")
    d = tf.debugging.check_numerics(x * 2.0, "bad 2x", name="checked")
    g = tf.gradients(c * 3.0, x)[0]
    out = []
    with tf.Session() as sess:
        for v in ([1, 2, 3], [1, float("nan"), 3], [1, float("inf"), 3], [float("nan"), float("inf"), 0]):
            for fetch in (c, d, g):
                out.append(_error(lambda v=v, f=fetch: sess.run(f, {x: v})) or np.asarray(sess.run(fetch, {x: v})).tolist())
    int_error = _error(lambda: tf.check_numerics(tf.constant(1), "m"))
    return {"ops": graph_facts(tf), "runs": out, "int": int_error,
            "grad_message": _text(g.op.get_attr("message")) if g.op.type == "CheckNumerics" else None}


def _text(value):
    return value.decode() if isinstance(value, bytes) else value


def case_sequence_mask(tf, rewrites_off=False):
    masks = [tf.sequence_mask([1, 3, 2], 5), tf.sequence_mask([[1, 3], [2, 0]]),
             tf.sequence_mask(tf.constant([1, 2], tf.int64), 3, dtype=tf.float32, name="m")]
    placed, values = run(tf, masks, rewrites_off=rewrites_off)
    bad = _error(lambda: tf.sequence_mask([1], [2, 3]))
    return {"ops": graph_facts(tf), "values": [np.asarray(v).tolist() for v in values],
            "dtypes": [m.dtype.name for m in masks], "shapes": [m.shape.as_list() for m in masks],
            "bad": bad[0] if bad else None}


def case_parallel_stack(tf, rewrites_off=False):
    a = tf.constant([1.0, 2.0], name="a")
    b = tf.constant([3.0, 4.0], name="b")
    s = tf.parallel_stack([a, b, a])
    placed, value = run(tf, s, rewrites_off=rewrites_off)
    return {"ops": graph_facts(tf), "value": np.asarray(value).tolist(), "shape": s.shape.as_list()}


def case_gradient_enums(tf, rewrites_off=False):
    x = tf.constant([1.0, 2.0], name="x")
    y = tf.constant(3.0, name="y")
    z = x * 2.0
    g_none = tf.gradients(z, [x, y])
    g_zero = tf.gradients(z, [x, y], unconnected_gradients=tf.UnconnectedGradients.ZERO)
    g_str = tf.gradients(z, [y], unconnected_gradients="zero")
    placed, values = run(tf, [g_zero[1], g_str[0]], rewrites_off=rewrites_off)
    return {"none": [g is None for g in g_none], "zero": [g.name for g in g_zero + g_str],
            "values": [np.asarray(v).tolist() for v in values], "ops": graph_facts(tf),
            "bad": _error(lambda: tf.gradients(z, [y], unconnected_gradients="nan")),
            "aggregation": [tf.AggregationMethod.ADD_N, tf.AggregationMethod.DEFAULT,
                            tf.AggregationMethod.EXPERIMENTAL_TREE, tf.AggregationMethod.EXPERIMENTAL_ACCUMULATE_N],
            "enum": [tf.UnconnectedGradients.NONE.value, tf.UnconnectedGradients.ZERO.value]}


def case_list_local_devices(tf, rewrites_off=False):
    device_lib = _module(tf, "devlab.runtime.device_lib", "tensorflow.python.client.device_lib")

    def facts(devices):
        return [[d.name, d.device_type, d.memory_limit, d.locality.bus_id, d.xla_global_id, d.physical_device_desc]
                for d in devices]
    return {"default": facts(device_lib.list_local_devices()),
            "two_cpus": facts(device_lib.list_local_devices(tf.ConfigProto(device_count={"CPU": 2})))}


def case_shapes_refs_and_device_spec_v1(tf, rewrites_off=False):
    device_spec = _module(tf, "devlab.framework.device_spec", "tensorflow.python.framework.device_spec")
    s = tf.TensorShape([2, None])
    bad = _error(lambda: s.assert_is_compatible_with(tf.TensorShape([3, 1])))
    t, v = tf.constant(1.0), tf.Variable(1.0, name="v")
    refs = [t.ref().deref() is t, t.ref() == t.ref(), hash(t.ref()) == hash(t.ref()), t.ref() != v.ref(),
            v.ref().deref() is v, t.experimental_ref() == t.ref(), len({t.ref(), t.ref(), v.ref()})]
    spec = device_spec.DeviceSpecV1.from_string("/job:w/task:1/device:GPU:0")
    return {"compatible": [bad[0] if bad else None, s.assert_is_compatible_with([2, 5])],
            "subtype": [s.is_subtype_of(tf.TensorShape([None, None])), tf.TensorShape([2, 3]).is_subtype_of(s),
                        s.is_subtype_of(tf.TensorShape(None)), tf.TensorShape(None).is_subtype_of(s),
                        s.is_subtype_of(tf.TensorShape([2])), s.is_subtype_of([2, 4])],
            "refs": refs, "spec": [spec.to_string(), device_spec.DeviceSpecV1 is tf.DeviceSpec]}


def case_gradient_checker_v2(tf, rewrites_off=False):
    checker = _module(tf, "devlab.api.gradient_checker_v2", "tensorflow.python.ops.gradient_checker_v2")
    a = np.array([[0.1, -0.4], [0.7, 0.2], [1.5, -1.0]])
    with tf.Session():
        theoretical, numerical = checker.compute_gradient(lambda x, w: tf.matmul(tf.tanh(x), w),
                                                          [a, np.array([[1.0], [2.0]])])
        err = checker.max_error(theoretical, numerical)
        t32, n32 = checker.compute_gradient(lambda x: tf.square(x) * 3.0, [np.float32([1.0, -2.0])])
        v = tf.Variable(np.ones((4, 2)), name="v")
        tf.get_default_session().run(v.initializer)
        ts, ns = checker.compute_gradient(lambda x: tf.gather(x, [0, 2, 2]), [v])
    bad = _error(lambda: checker.compute_gradient(tf.square, a))
    return {"shapes": [[list(j.shape) for j in theoretical], [str(j.dtype) for j in theoretical + t32]],
            "values": [[j.tolist() for j in theoretical], [np.round(j, 4).tolist() for j in numerical],
                       [j.tolist() for j in t32], [np.round(j, 3).tolist() for j in n32], ts[0].tolist()],
            "small": bool(err < 1e-4), "bad": bad}


def case_assert_variables_initialized(tf, rewrites_off=False):
    none = tf.assert_variables_initialized()
    with tf.device("/cpu:1"):
        v = tf.Variable([1.0, 2.0], name="v")
    w = tf.Variable(3, name="w")
    one = tf.assert_variables_initialized([v])
    both = tf.assert_variables_initialized()
    config = tf.ConfigProto(device_count={"CPU": 2})
    with tf.Session(config=config) as sess:
        before = _error(lambda: sess.run(one))[0]  # TF's text counts its root errors; the class is the fact
        sess.run(v.initializer)
        partly = [np.asarray(sess.run(one)).tolist(), _error(lambda: sess.run(both))[0]]
        sess.run(w.initializer)
        after = np.asarray(sess.run(both)).tolist()
    return {"none": none is None, "ops": graph_facts(tf), "before": before, "partly": partly, "after": after}


class _Point:
    def __init__(self, v):
        self.v = v


class _Declines:
    pass


def case_register_tensor_conversion_function(tf, rewrites_off=False):
    def conv(value, dtype=None, name=None, as_ref=False):
        return tf.constant(value.v, dtype=dtype, name=name or "PConst")
    tf.register_tensor_conversion_function(_Point, conv)
    x = tf.add(_Point(2.0), 1.0)
    errors = [_error(lambda b=b: tf.register_tensor_conversion_function(b, conv))
              for b in (int, np.ndarray, float, np.float32, (_Point, int))]
    errors.append(_error(lambda: tf.register_tensor_conversion_function(_Point, 3)))
    errors.append(_error(lambda: tf.convert_to_tensor(_Point(1.0), dtype=tf.int32)))
    tf.register_tensor_conversion_function(_Declines, lambda v, dtype=None, name=None, as_ref=False: NotImplemented,
                                           priority=1)
    tf.register_tensor_conversion_function(_Declines, lambda v, dtype=None, name=None, as_ref=False:
                                           tf.constant(4, name="fallback"), priority=50)
    y = tf.convert_to_tensor(_Declines())
    placed, value = run(tf, [x, y], rewrites_off=rewrites_off)
    return {"ops": graph_facts(tf), "errors": errors, "values": [np.asarray(v).tolist() for v in value]}


def case_compute_gradient(tf, rewrites_off=False):
    x = tf.placeholder(tf.float64, [2, 3], name="x")
    w = tf.constant(np.arange(6.0).reshape(3, 2), dtype=tf.float64, name="w")
    y = tf.tanh(tf.matmul(x, w))
    x0 = np.linspace(-0.5, 0.5, 6).reshape(2, 3)
    e = tf.placeholder(tf.float64, [2], name="e")
    z = tf.reduce_sum(x * x, 1) * e
    v = tf.Variable(np.ones((4, 2)), name="v")
    rows = tf.gather(v, [0, 2, 2])
    with tf.Session():
        theoretical, numerical = tf.test.compute_gradient(x, [2, 3], y, [2, 2], x_init_value=x0)
        err = tf.test.compute_gradient_error(x, [2, 3], y, [2, 2], x_init_value=x0)
        pair = tf.test.compute_gradient([x, e], [[2, 3], [2]], z, [2], x_init_value=[x0, np.array([1.0, 2.0])],
                                        extra_feed_dict={x: x0, e: [1.0, 2.0]})
        sliced = tf.test.compute_gradient(v, [4, 2], rows, [3, 2], x_init_value=np.ones((4, 2)),
                                          init_targets=[v.initializer])
        no_path = _error(lambda: tf.test.compute_gradient(e, [2], y, [2, 2], x_init_value=np.ones(2),
                                                          extra_feed_dict={x: x0}))
    shape_error = _error(lambda: tf.test.compute_gradient(x, [3, 2], y, [2, 2], x_init_value=x0))
    return {"shapes": [list(theoretical.shape), list(numerical.shape), str(theoretical.dtype)],
            "values": [theoretical.tolist(), np.round(numerical, 6).tolist(), bool(round(err, 6) < 1e-6),
                       [p[0].tolist() for p in pair], [np.round(p[1], 6).tolist() for p in pair],
                       sliced[0].tolist()], "no_path": no_path,
            "shape_error": shape_error}


def case_layers_dense_class(tf, rewrites_off=False):
    x = tf.placeholder(tf.float32, [2, 3], name="x")
    layer = tf.layers.Dense(4, activation=tf.nn.relu, kernel_initializer=tf.constant_initializer(0.1))
    y1 = layer(x)
    y2 = layer(x * 2.0)
    out = tf.layers.Dense(2, name="out", use_bias=False, kernel_initializer=tf.ones_initializer())
    z = out(y2)
    facts = {"variables": [v.name for v in layer.variables], "trainable": [v.name for v in layer.trainable_variables],
             "no_bias": [v.name for v in out.variables], "kernel": [layer.kernel.name, layer.bias.name, layer.units],
             "outputs": [y1.name, y2.name, z.name], "ops": graph_facts(tf)}
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        facts["values"] = [np.asarray(v).tolist() for v in sess.run([y1, z], {x: np.ones((2, 3))})]
    return facts


CASES = {name[len("case_"):]: fn for name, fn in globals().items() if name.startswith("case_")}
