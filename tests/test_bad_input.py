"""Bad input never corrupts a variable, a graph or the kernel, and always gets TensorFlow's error.

One section per item of the bad-input issue (variable writes, ``load``, checkpoints, saved graphs,
control inputs, device counts, argument types, the magic, the command line), then a table that
walks bad inputs across the public API and asserts that only TF's error classes (or the
ValueError/TypeError/OSError TF raises there) escape, each naming what was wrong. The texts were
checked against TensorFlow 2.21 (``tf.compat.v1``, graph mode).
"""
import importlib.metadata
import io
import json
import os
import re
import subprocess
import sys
import threading
import types
import zipfile

import numpy as np
import pytest
from IPython.core.error import UsageError

import devlab as tf
from devlab import cli
from devlab.train import meta_graph as mg

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def run_python(code, timeout=60, **kw):
    """``code`` in a fresh interpreter with 2 GiB of memory at most (so a regression cannot take the
    machine), from the repository root."""
    limit = "import resource; resource.setrlimit(resource.RLIMIT_AS, (2 << 30, 2 << 30))\n"
    return subprocess.run([sys.executable, "-c", limit + code], cwd=ROOT, capture_output=True, text=True,
                          timeout=timeout, **kw)


# -- 1. variable writes are checked at run time ---------------------------------------------------
def test_writes_of_the_wrong_shape_are_tf_errors_naming_the_op_and_line_and_change_nothing():
    v = tf.Variable([1.0, 2.0], name="v")
    p = tf.placeholder(tf.float32, name="p")
    assign = tf.assign(v, p)
    add = tf.assign_add(v, p)  # line of the op: reported in the error
    sub = v.assign_sub(p)
    with tf.Session() as s:
        s.run(v.initializer)
        cases = [(assign, [1.0, 2.0, 3.0], "Assign requires shapes of both tensors to match. lhs shape= [2] rhs shape= [3]"),
                 (add, [[1.0, 2.0], [3.0, 4.0]], "Parameters and update must be the same size"),
                 (add, 1.0, "Parameters and update must be the same size"),  # TF never broadcasts a write
                 (sub, [1.0], "Parameters and update must be the same size")]
        for op, value, text in cases:
            with pytest.raises(tf.errors.InvalidArgumentError) as e:
                s.run(op, {p: value})
            assert str(e.value).startswith(text + f"\n\t [[{{{{node {op.op.name}}}}}]]")
            assert e.value.op is op.op and "test_bad_input.py" in str(e.value)
            assert s.run(v).tolist() == [1.0, 2.0]
        assert s.run(add, {p: [1.0, 1.0]}).tolist() == [2.0, 3.0]  # and the next run works


@pytest.mark.parametrize("build, feed, text", [
    (lambda v, a, p, q: tf.train.GradientDescentOptimizer(q).apply_gradients([(p, v)]),
     {"p": [[1.0, 2.0], [3.0, 4.0]], "q": 0.1}, "var and delta do not have the same shape[2] [2,2]"),
    (lambda v, a, p, q: tf.train.GradientDescentOptimizer(q).apply_gradients([(p, v)]),
     {"p": 1.0, "q": 0.1}, "var and delta do not have the same shape[2] []"),
    (lambda v, a, p, q: tf.train.GradientDescentOptimizer(q).apply_gradients([(p, v)]),
     {"p": [1.0, 2.0], "q": [0.1, 0.2]}, "alpha is not a scalar: [2]"),
    (lambda v, a, p, q: tf.train.MomentumOptimizer(q, 0.9).apply_gradients([(p, v)]),
     {"p": [1.0], "q": 0.1}, "var and grad do not have the same shape[2] [1]"),
    (lambda v, a, p, q: tf.train.MomentumOptimizer(q, 0.9).apply_gradients([(p, v)]),
     {"p": [1.0, 2.0], "q": [0.1]}, "lr is not a scalar: [1]"),
    (lambda v, a, p, q: tf.train.AdamOptimizer(q).apply_gradients([(p, v)]),
     {"p": [1.0, 2.0, 3.0], "q": 0.1}, "var and grad do not have the same shape[2] [3]"),
    (lambda v, a, p, q: tf.train.AdamOptimizer(q).apply_gradients([(p, v)]),
     {"p": [1.0, 2.0], "q": [[0.1]]}, "lr is not a scalar : [1,1]"),  # sic: TF's text has the space
])
def test_optimizer_updates_check_shapes_in_tf_words_and_change_nothing(build, feed, text):
    v = tf.Variable([1.0, 2.0], name="v")
    p = tf.placeholder(tf.float32, name="p")
    q = tf.placeholder(tf.float32, name="q")
    train = build(v, None, p, q)
    with tf.Session() as s:
        s.run(tf.global_variables_initializer())
        before = {x.op.name: s.run(x) for x in tf.global_variables()}
        with pytest.raises(tf.errors.InvalidArgumentError, match=re.escape(text)):
            s.run(train, {p: feed["p"], q: feed["q"]})
        assert all(np.array_equal(s.run(x), before[x.op.name]) for x in tf.global_variables())


def test_mirrored_update_with_a_wrong_shape_changes_no_component():
    tf.config.simulate_gpus(2)
    strategy = tf.distribute.MirroredStrategy(["/gpu:0", "/gpu:1"])
    with strategy.scope():
        v = tf.Variable([1.0, 2.0], name="v")
    p = tf.placeholder(tf.float32, name="p")
    update = strategy.group(strategy.update(v, lambda c, x: c.assign_add(x), p))
    with tf.Session() as s:
        s.run(tf.global_variables_initializer())
        with pytest.raises(tf.errors.InvalidArgumentError, match="Parameters and update must be the same size"):
            s.run(update, {p: [[1.0, 2.0], [3.0, 4.0]]})
        assert [s.run(c).tolist() for c in strategy.unwrap(v)] == [[1.0, 2.0], [1.0, 2.0]]
        s.run(update, {p: [1.0, 1.0]})
        assert [s.run(c).tolist() for c in strategy.unwrap(v)] == [[2.0, 3.0], [2.0, 3.0]]


def test_a_write_never_changes_a_variables_dtype():
    from devlab.runtime.variable_store import VarRef
    run = types.SimpleNamespace(writes={}, base={"v": np.zeros(2, np.float32)})
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match="Trying to assign variable with wrong dtype. Expected float got double"):
        VarRef(run, "v", (2,), np).assign(np.zeros(2, np.float64))
    assert run.writes == {}


# -- 2. Variable.load ---------------------------------------------------------------------------
def test_load_checks_shape_and_none_like_a_feed_of_the_initial_value():
    v = tf.Variable([1.0, 2.0], name="v")
    s = tf.Variable(3.0, name="s")
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        with pytest.raises(ValueError, match=re.escape(
                "Cannot feed value of shape (3,) for Tensor v/initial_value:0, which has shape (2,)")):
            v.load([1, 2, 3], sess)
        with pytest.raises(ValueError, match="Cannot feed value None for Tensor s/initial_value:0"):
            s.load(None, sess)  # numpy would make it NaN
        with pytest.raises(ValueError, match="could not convert string to float"):
            v.load(["a", "b"], sess)
        assert sess.run(v).tolist() == [1.0, 2.0] and sess.run(s) == 3.0
        v.load([5, 6], sess)
        assert sess.run(v).tolist() == [5.0, 6.0]
    with pytest.raises(ValueError, match="Either session argument should be provided or default session"):
        v.load([1.0, 2.0])


# -- 3. checkpoints ---------------------------------------------------------------------------------
@pytest.fixture
def checkpoint(tmp_path):
    """A checkpoint of v=[1,2] (float32) and w=[7,8] (int32); returns its path prefix."""
    with tf.Graph().as_default():
        v = tf.Variable([1.0, 2.0], name="v")
        w = tf.Variable([7, 8], name="w")
        with tf.Session() as s:
            s.run(tf.global_variables_initializer())
            return tf.train.Saver().save(s, str(tmp_path / "ck"))


def _two_variables(v_value=(5.0, 6.0), w_value=(3, 4), v_dtype=tf.float32):
    v = tf.Variable(list(v_value), name="v", dtype=v_dtype)
    w = tf.Variable(list(w_value), name="w")
    s = tf.Session()
    s.run(tf.global_variables_initializer())
    return s, v, w


@pytest.mark.parametrize("entry, name", [
    (np.array([1, 2], np.int64), "int64"), (np.array([1, 2], np.float16), "half"),
    (np.array([1 + 2j, 3]), "complex128"), (np.array(["1", "2"]), "string"), (np.array([1.0, 2.0]), "double"),
])
def test_restore_refuses_silent_casts_and_changes_nothing(tmp_path, entry, name):
    np.savez(tmp_path / "ck.npz", v=entry, w=np.array([9, 9], np.int32))
    s, v, w = _two_variables()
    with pytest.raises(tf.errors.InvalidArgumentError, match=re.escape(
            f"tensor_name = v; expected dtype float does not equal original dtype {name}")):
        tf.train.Saver().restore(s, str(tmp_path / "ck"))
    assert s.run(v).tolist() == [5.0, 6.0] and s.run(w).tolist() == [3, 4]  # w was fine, and still untouched


def test_restore_is_all_or_nothing_and_uses_tf_texts(checkpoint, tmp_path):
    s, v, w = _two_variables(v_value=(5.0, 6.0, 7.0))
    with pytest.raises(tf.errors.InvalidArgumentError, match=re.escape(
            "Restoring from checkpoint failed. This is most likely due to a mismatch between the current graph "
            "and the graph from the checkpoint.")) as e:
        tf.train.Saver().restore(s, checkpoint)
    assert "Assign requires shapes of both tensors to match. lhs shape= [3] rhs shape= [2]" in str(e.value)
    assert s.run(v).tolist() == [5.0, 6.0, 7.0] and s.run(w).tolist() == [3, 4]
    with tf.Graph().as_default():
        x = tf.Variable([1, 2], name="x")
        s2 = tf.Session()
        s2.run(x.initializer)
        with pytest.raises(tf.errors.NotFoundError, match="Key x not found in checkpoint"):
            tf.train.Saver([x]).restore(s2, checkpoint)
    with pytest.raises(ValueError, match="The passed save_path is not a valid checkpoint: .*nope"):
        tf.train.Saver().restore(s, str(tmp_path / "nope"))
    with pytest.raises(ValueError, match="Can't load save_path when it is None."):
        tf.train.Saver().restore(s, None)


def test_truncated_or_corrupt_checkpoints_are_data_loss(checkpoint, tmp_path):
    data = open(checkpoint + ".npz", "rb").read()
    flipped = bytearray(data)
    flipped[data.index(np.float32(2.0).tobytes())] ^= 0xFF  # inside v's stored values: a CRC mismatch
    for name, content in (("truncated", data[: len(data) // 2]), ("flipped", bytes(flipped)), ("garbage", b"x" * 500)):
        (tmp_path / f"{name}.npz").write_bytes(content)
        with tf.Graph().as_default():
            s, v, w = _two_variables()
            with pytest.raises(tf.errors.DataLossError, match="truncated or corrupt"):
                tf.train.Saver().restore(s, str(tmp_path / name))
            assert s.run(v).tolist() == [5.0, 6.0]
    s, v, w = _two_variables()
    tf.train.Saver().restore(s, checkpoint)  # the good one still restores
    assert s.run(v).tolist() == [1.0, 2.0] and s.run(w).tolist() == [7, 8]


def test_a_checkpoint_entry_is_never_read_past_what_its_variable_needs(tmp_path):
    # An entry whose header claims a huge array (a "zip bomb") is refused from its header alone.
    header = io.BytesIO()
    np.lib.format.write_array_header_1_0(header, {"descr": "<f4", "fortran_order": False, "shape": (10 ** 9,)})
    with zipfile.ZipFile(tmp_path / "bomb.npz", "w") as z:
        z.writestr("v.npy", header.getvalue() + b"\0" * 64)
    s, v, w = _two_variables()
    with pytest.raises(tf.errors.InvalidArgumentError, match=re.escape("lhs shape= [2] rhs shape= [1000000000]")):
        tf.train.Saver([v]).restore(s, str(tmp_path / "bomb"))
    assert s.run(v).tolist() == [5.0, 6.0]


def test_save_checks_its_arguments_like_tf(tmp_path):
    s, v, w = _two_variables()
    saver = tf.train.Saver()
    with pytest.raises(ValueError, match="Parent directory of .* doesn't exist, can't save."):
        saver.save(s, str(tmp_path / "no" / "such" / "ck"))
    with pytest.raises(TypeError, match="'sess' must be a Session; None"):
        saver.save(None, str(tmp_path / "ck"))
    with pytest.raises(TypeError, match="Expected binary or unicode string, got None"):
        saver.save(s, None)
    with pytest.raises(TypeError, match="Variable to save is not a Variable: 5"):
        tf.train.Saver([5])
    assert not os.listdir(tmp_path)


# -- 4. saved graphs ------------------------------------------------------------------------------
def _saved_graph():
    with tf.Graph().as_default() as g:
        x = tf.placeholder(tf.float32, [None, 3], name="x")
        w = tf.Variable(tf.ones([3, 2]), name="w")
        y = tf.reduce_sum(tf.matmul(x, w), name="y")
        with tf.control_dependencies([y]):
            tf.identity(y, name="z")
        with tf.device("/cpu:0"):
            tf.train.MomentumOptimizer(0.1, 0.9).minimize(y)
        tf.add_to_collection("mine", y)
        return mg.export_meta_graph(graph=g)


def _paths(obj, prefix=()):
    yield prefix
    if isinstance(obj, dict):
        for k, v in obj.items():
            yield from _paths(v, prefix + (k,))
    elif isinstance(obj, list):
        for i, v in enumerate(obj):
            yield from _paths(v, prefix + (i,))


def test_any_one_field_change_gives_a_clear_error_or_a_working_graph_never_half_built():
    import copy
    import random
    meta = _saved_graph()
    rng = random.Random(14)
    junk = [None, True, 0, -1, 2 ** 70, 1.5, "", "x", "y:0", "nope:0", [], [1], {}, {"value": 1}, {"value": [1]},
            {"dtype": "float32"}, {"array": [1], "dtype": "float32", "shape": [2]}, [None], "w", "/gpu:0/cpu:0",
            {"bytes": "loc:@nope"}, {"list": [{"bytes": "loc:@w"}]}, float("nan"), {"dtype": ["float32"]}]
    paths = [p for p in _paths(meta) if p]
    outcomes = {}
    for _ in range(600):
        bad = copy.deepcopy(meta)
        path = rng.choice(paths)
        parent = bad
        for key in path[:-1]:
            parent = parent[key]
        if rng.random() < 0.2:
            del parent[path[-1]]
        else:
            parent[path[-1]] = copy.deepcopy(rng.choice(junk))
        with tf.Graph().as_default() as g:
            tf.constant(1.0, name="keep")
            try:
                mg.import_meta_graph(bad)
            except (ValueError, OSError, tf.errors.OpError) as e:
                outcomes[type(e).__name__] = outcomes.get(type(e).__name__, 0) + 1
                assert str(e), path
                assert [op.name for op in g.get_operations()] == ["keep"] and not g.get_all_collection_keys(), path
                continue
            outcomes["loaded"] = outcomes.get("loaded", 0) + 1
            with tf.Session() as s:  # a file that loads also runs: no surprise at run time
                s.run(tf.global_variables_initializer())
                if path[0] == "variables" and len(tf.global_variables()) < 2:
                    # a variable's record was dropped: its ops load, but no initializer knows it (as in TF)
                    with pytest.raises(tf.errors.FailedPreconditionError, match="uninitialized value"):
                        s.run(["y:0", "z:0"], {"x:0": [[1.0, 2.0, 3.0]]})
                    continue
                s.run(["y:0", "z:0"], {"x:0": [[1.0, 2.0, 3.0]]})
    assert outcomes.get("ValueError", 0) > 400 and outcomes.get("loaded", 0) > 0


def _node(meta, name):
    return next(n for n in meta["nodes"] if n["name"] == name)


@pytest.mark.parametrize("mutate, message", [
    (lambda m: _node(m, "ones")["attrs"].pop("value"), "a Const op needs the attrs \\['value'\\]"),
    (lambda m: _node(m, "ones")["attrs"]["value"].update(array=[[1.0, "a"]]), "not a well-formed float32 array"),
    (lambda m: _node(m, "ones")["attrs"]["value"].update(shape=[5, 5]), "has 6 elements but shape \\[5, 5\\] needs 25"),
    (lambda m: _node(m, "ones")["attrs"].update(dtype={"dtype": "int32"}), "Const value is float32 but its dtype attr is int32"),
    (lambda m: _node(m, "w/read").update(inputs=["w:0", "ones:0", "x:0"]), "takes 1 inputs, the file gives 3"),
    (lambda m: _node(m, "w/Assign").update(inputs=["ones:0", "ones:0"]), "Input 0 of node w/Assign was passed float"),
    (lambda m: _node(m, "MatMul").update(inputs=["w/read:0", "w/read:0"]), "do not make a valid MatMul op"),
    (lambda m: _node(m, "w/read").update(name="a b"), "Node name contains invalid characters"),
    (lambda m: _node(m, "w/read").update(outputs=[{"dtype": "int32", "shape": [3, 2]}]), "output 0 is int32 in the file"),
    (lambda m: _node(m, "w/read")["attrs"].update(_class={"list": [{"bytes": "loc:@nope"}]}), "not a node of the file"),
    (lambda m: _node(m, "y")["attrs"].update(keep_dims={"value": "yes"}), "attr 'keep_dims': must be true or false"),
    (lambda m: _node(m, "w")["attrs"].pop("shape"), "a VariableV2 op needs the attrs \\['shape'\\]"),
    (lambda m: m["variables"][0].update(snapshot="w/read:7"), "snapshot does not name an earlier op's output"),
    (lambda m: m["variables"].append(dict(m["variables"][0])), "listed twice"),
    (lambda m: m["collections"].update(mine=["var:nope"]), "does not name a variable record"),
    (lambda m: m["nodes"].append(m["nodes"][0]), "duplicate name"),
    (lambda m: m.update(extra=1), "unknown fields \\['extra'\\]"),
])
def test_bad_fields_are_named_and_the_graph_is_untouched(mutate, message):
    meta = _saved_graph()
    mutate(meta)
    with tf.Graph().as_default() as g:
        with pytest.raises(ValueError, match=message):
            tf.train.import_meta_graph(meta)
        assert g.get_operations() == [] and not g.get_all_collection_keys()


def test_unreadable_meta_graph_files_fail_fast_with_tf_errors(tmp_path):
    (tmp_path / "junk.meta").write_bytes(b"\x00\x01garbage{{{")
    (tmp_path / "deep.meta").write_text("[" * 100_000)
    with open(tmp_path / "huge.meta", "wb") as f:
        f.truncate(mg.MAX_FILE_BYTES + 1)  # sparse: no disk used
    cases = [(str(tmp_path / "nope.meta"), OSError, "File does not exist. Received: .*nope.meta."),
             (str(tmp_path), tf.errors.FailedPreconditionError, "; Is a directory"),
             ("/dev/zero", tf.errors.FailedPreconditionError, "Not a regular file"),
             (str(tmp_path / "junk.meta"), OSError, "Cannot parse file .*junk.meta: not a devlab meta graph"),
             (str(tmp_path / "deep.meta"), OSError, "Cannot parse file .*RecursionError"),
             (str(tmp_path / "huge.meta"), OSError, f"more than the {mg.MAX_FILE_BYTES}"),
             (5, TypeError, "Expected binary or unicode string, got 5")]
    for source, error, message in cases:
        with pytest.raises(error, match=message):
            tf.train.import_meta_graph(source)
    assert tf.get_default_graph().get_operations() == []


def test_dev_zero_fails_fast_in_a_fresh_process():
    done = run_python("import devlab as tf\ntry:\n    tf.train.import_meta_graph('/dev/zero')\n"
                      "except tf.errors.FailedPreconditionError as e:\n    print('refused:', e)\n", timeout=60)
    assert "refused: /dev/zero; Not a regular file" in done.stdout, done.stderr[-2000:]


def test_every_graph_devlab_builds_passes_validation_and_import_scope_prefixes_names():
    tf.config.simulate_gpus(2)
    x = tf.placeholder(tf.float32, [None, 3], name="x")
    w = tf.Variable(tf.random_normal([3, 2], seed=1), name="w")
    b = tf.get_variable("b", shape=[2], initializer=tf.zeros_initializer())
    y = tf.layers.batch_normalization(tf.nn.relu(tf.matmul(x, w) + b), training=True)
    loss = tf.reduce_mean(tf.square(y)) + tf.reduce_sum(tf.reshape(tf.transpose(w), [-1]))
    tf.train.AdamOptimizer(0.1).minimize(loss, global_step=tf.train.get_or_create_global_step())
    tf.train.MomentumOptimizer(0.1, 0.9).minimize(loss)
    tf.train.ExponentialMovingAverage(0.9).apply([w])
    tf.summary.scalar("loss", loss)
    tf.concat([w, w], axis=0), tf.stack([b, b]), tf.one_hot([1, 0], 3), tf.argmax(w, axis=1)
    tf.strings.join([tf.strings.as_string(loss), tf.constant("!")])
    with tf.distribute.MirroredStrategy(["/gpu:0", "/gpu:1"]).scope():
        tf.Variable(1.0, name="mirrored")
    meta = mg.export_meta_graph()
    mg.validate_meta_graph(meta)
    with tf.Graph().as_default() as g:
        saver = tf.train.import_meta_graph(meta, import_scope="imported")
        # a file without a saver gets a new one, as in TF: its ops are the only ones outside the scope
        assert all(op.name.startswith(("imported/", "save/")) for op in g.get_operations())
        assert saver.saver_def.restore_op_name == "save/restore_all"
        assert g.get_operation_by_name("imported/w/read").get_attr("_class") == [b"loc:@imported/w"]
        with tf.Session() as s:
            s.run(tf.global_variables_initializer())
            assert np.isfinite(s.run("imported/" + loss.name, {"imported/x:0": np.ones((4, 3))}))


# -- 5. control inputs ------------------------------------------------------------------------------
def test_control_inputs_from_another_graph_are_rejected_at_once():
    with tf.Graph().as_default():
        a = tf.constant(1.0, name="a")
    b = tf.constant(2.0, name="b")
    with pytest.raises(ValueError, match=re.escape('Tensor Tensor("a:0", shape=(), dtype=float32) is not an element '
                                                   'of this graph.')):  # TF's words: the tensor as str() shows it
        with tf.control_dependencies([a]):
            tf.identity(b)
    # TF prints the op as its NodeDef text
    with pytest.raises(ValueError, match=r'^Operation name: "a"\nop: "Const"\n(.|\n)* is not an element of this graph\.$'):
        with tf.control_dependencies([a.op]):
            tf.identity(b)
    with pytest.raises(ValueError, match="must be from the same graph as"):
        b.op._add_control_input(a.op)
    with pytest.raises(TypeError, match="op must be an Operation: 5"):
        b.op._add_control_input(5)
    assert b.op.control_inputs == [] and [op.name for op in tf.get_default_graph().get_operations()] == ["b"]
    assert tf.Session().run(b) == 2.0


def test_control_edges_added_after_a_run_are_honoured_and_cycles_name_their_ops():
    v = tf.Variable(0.0, name="v")
    inc = v.assign_add(1.0)
    read = v.read_value()  # an Identity of the variable itself, made after `inc`
    x = tf.constant(1.0, name="x")
    y = tf.identity(x, name="y")
    z = tf.identity(y, name="z")
    with tf.Session() as s:
        s.run(v.initializer)
        assert s.run(read) == 0.0 and s.run(z) == 1.0  # both plans are cached now
        read.op._add_control_input(inc.op)  # the cached plan must not be reused
        assert s.run(read) == 1.0
        x.op._add_control_input(z.op)
        with pytest.raises(tf.errors.InvalidArgumentError,
                           match=r"^Graph is invalid, contains a cycle with 3 nodes, including: x, y, z"):
            s.run(z)
        assert s.run(v) == 1.0


# -- 6. device counts ---------------------------------------------------------------------------------
def test_device_counts_are_checked_and_bounded():
    cases = [({"CPU": 0}, tf.errors.NotFoundError, "^No CPU devices are available in this process$"),
             ({"CPU": -1}, tf.errors.NotFoundError, "^No CPU devices are available in this process$"),
             ({"GPU": 65}, tf.errors.InvalidArgumentError, "devlab simulates at most 64 devices of each type"),
             ({"GPU": 10 ** 5}, tf.errors.InvalidArgumentError, "asks for 100000 GPU devices"),
             ({"CPU": 10 ** 10}, ValueError, r"^Value out of range: 10000000000 \(device_count\['CPU'\]\)$"),
             ({"CPU": "2"}, TypeError, "^'str' object cannot be interpreted as an integer"),
             ([1], TypeError, "device_count must be a dict")]
    for count, error, message in cases:
        with pytest.raises(error, match=message):
            tf.Session(config=tf.ConfigProto(device_count=count))
    assert len(tf.Session(config=tf.ConfigProto(device_count={"GPU": -1})).list_devices()) == 1  # as TF: none
    assert sum(d.device_type == "GPU" for d in tf.Session(config=tf.ConfigProto(device_count={"GPU": 64})).devices) == 64
    with pytest.raises(ValueError, match="must be between 0 and 64"):
        tf.config.simulate_gpus(10 ** 6)


def test_simulated_gpu_environment_variable_is_checked(monkeypatch):
    monkeypatch.setenv("DEVLAB_SIMULATED_GPUS", "lots")
    with pytest.raises(ValueError, match="DEVLAB_SIMULATED_GPUS must be a number of GPUs, got 'lots'"):
        tf.Session()
    monkeypatch.setenv("DEVLAB_SIMULATED_GPUS", "1000")
    with pytest.raises(ValueError, match="DEVLAB_SIMULATED_GPUS must be between 0 and 64"):
        tf.Session()


# -- 7. argument types and default sessions --------------------------------------------------------
def test_wrong_argument_types_get_tf_type_errors():
    x = tf.placeholder(tf.float32, [2], name="x")
    y = tf.identity(x, name="y")
    s = tf.Session()
    cases = [(lambda: tf.Session(config=5), 'Argument `config` must be a tf.ConfigProto, but got "int"'),
             (lambda: tf.Session(graph="g"), 'Argument `graph` must be a tf.Graph, but got "str"'),
             (lambda: tf.Session(target=5), 'Argument `target` must be a string, but got "int"'),
             (lambda: s.run(y, feed_dict=[1]), "FlattenDictItems: 'dict' must be a dictionary or "
                                               "collection.Mapping type object, instead of 'list'."),
             (lambda: s.run(5), 'Argument `fetch` = 5 has invalid type "int" must be a string or Tensor. '
                                "(Can not convert a int into a Tensor or Operation.)"),
             (lambda: s.run([y, None]), 'Argument `fetch` = None has invalid type "NoneType". Cannot be None'),
             (lambda: s.run({y}), 'has invalid type "set" must be a string or Tensor.'),
             (lambda: s.run(y, {5: [1.0, 2.0]}), "Cannot interpret feed_dict key as Tensor: Can not convert a int "
                                                 "into a Tensor."),
             (lambda: s.run(y, {"x": [1.0, 2.0]}), "Cannot interpret feed_dict key as Tensor: The name 'x' refers "
                                                   "to an Operation, not a Tensor."),
             (lambda: s.run(y, {x: tf.constant([1.0, 2.0])}), "The value of a feed cannot be a tf.Tensor object."),
             (lambda: s.run(y, {x: [1, 2]}, options=5), 'Argument `options` must be a tf.RunOptions, but got "int"')]
    for fn, message in cases:
        with pytest.raises(TypeError) as e:
            fn()
        assert message in str(e.value)
    with pytest.raises(ValueError, match=re.escape("Argument `fetch` = nope:0 cannot be interpreted as a Tensor.")):
        s.run("nope:0")
    with pytest.raises(ValueError, match=re.escape("Cannot feed value of shape (3,) for Tensor x:0, which has shape (2,)")):
        s.run(y, {x: [1.0, 2.0, 3.0]})
    q = tf.placeholder(tf.int32, name="q")
    with pytest.raises(TypeError, match="Type of feed value 1099511627776 with type <class 'int'> is not compatible"):
        s.run(tf.identity(q), {q: 2 ** 40})
    assert s.run(y, {x: [1.0, 2.0]}).tolist() == [1.0, 2.0]


def test_leaving_default_sessions_out_of_order_is_tf_nesting_error_and_leaves_none():
    s1, s2 = tf.Session(), tf.Session()
    c1, c2 = s1.as_default(), s2.as_default()
    c1.__enter__()
    c2.__enter__()
    with pytest.raises(AssertionError, match="Nesting violated for default stack of .*Session'> objects"):
        c1.__exit__(None, None, None)
    assert tf.get_default_session() is s2
    c2.__exit__(None, None, None)
    assert tf.get_default_session() is None


# -- 8. the magic, unloading and towers -----------------------------------------------------------------
@pytest.fixture(scope="module")
def ip():
    from IPython.core.getipython import get_ipython
    from IPython.testing.globalipapp import start_ipython
    shell = start_ipython() or get_ipython()  # one shell per process, whichever module starts it
    shell.run_line_magic("load_ext", "devlab")
    return shell


def test_errors_in_a_placement_cell_show_the_users_frames_by_cell_and_line(ip):
    ip.run_cell("def helper(t):\n    return t.no_such_attribute\n", store_history=True)
    helper_cell = ip.execution_count - 1
    result = ip.run_cell("%%placement --no-draw\na = tf.constant(1.0)\nhelper(a)\n", store_history=True)
    cell = ip.execution_count - 1
    lines = result.error_in_exec._render_traceback_()
    assert lines == ["Traceback (your code only, most recent call last):",
                     f"  cell {cell}, line 3", "    helper(a)",
                     f"  cell {helper_cell}, line 2, in helper", "    return t.no_such_attribute",
                     "AttributeError: 'Tensor' object has no attribute 'no_such_attribute'"]
    assert not any("devlab" in line and "site-packages" in line for line in lines)
    result = ip.run_cell("%%placement --no-draw\nwith tf.device('/device:CPU:1'):\n"
                         "    b = tf.add(1.0, 2.0, name='b')\ntf.Session().run(b)\n", store_history=True)
    lines = result.error_in_exec._render_traceback_()
    assert lines[0].startswith("InvalidArgumentError: Cannot assign a device for operation b")
    assert f"defined at cell {ip.execution_count - 1}, line 3" in lines[-2] and "tf.add(1.0, 2.0" in lines[-1]


def test_unload_ext_leaves_nothing_registered_and_load_works_again(ip):
    from devlab.notebook.reprs import REPRS
    manager, html = ip.magics_manager, ip.display_formatter.formatters["text/html"]
    ip.run_line_magic("unload_ext", "devlab")
    try:
        assert "placement" not in manager.magics["cell"] and "placement_log" not in manager.magics["line"]
        assert "PlacementMagics" not in manager.registry
        assert not any(cls in html.type_printers for cls in REPRS)
    finally:
        ip.run_line_magic("load_ext", "devlab")
    assert "placement" in manager.magics["cell"] and "PlacementMagics" in manager.registry


def test_magic_device_counts_are_bounded(ip):
    from IPython.core.error import UsageError
    with pytest.raises(UsageError, match="--gpus must be at most 64"):
        ip.run_cell_magic("placement", "--gpus 99999999999999999999999", "x = 1")
    with pytest.raises(UsageError, match="--cpus must be at most 64"):
        ip.run_cell_magic("placement", "--cpus 65", "x = 1")


def _tower_threads():
    from devlab.distribute.mirrored import _TowerThread
    return [t for t in threading.enumerate() if isinstance(t, _TowerThread)]


@pytest.mark.parametrize("tower_fn", ["fails_before_merge", "fails_after_merge", "uneven_merges", "merge_fn_fails"])
def test_a_failing_tower_leaves_no_thread_blocked(tower_fn):
    tf.config.simulate_gpus(2)
    strategy = tf.distribute.MirroredStrategy(["/gpu:0", "/gpu:1"])

    def fn():
        ctx = tf.get_tower_context()
        if tower_fn == "fails_before_merge" and ctx.tower_id == 0:
            raise ValueError("tower failed")
        if tower_fn == "uneven_merges" and ctx.tower_id == 1:
            return 1
        ctx.merge_call(lambda s: 1 / 0 if tower_fn == "merge_fn_fails" else 1)
        if tower_fn == "fails_after_merge" and ctx.tower_id == 1:
            raise ValueError("tower failed")
        ctx.merge_call(lambda s: 2)

    with pytest.raises((ValueError, RuntimeError, ZeroDivisionError)):
        strategy.call_for_each_tower(fn)
    assert _tower_threads() == []
    result = strategy.call_for_each_tower(lambda: tf.get_tower_context().merge_call(lambda s: 3))
    assert result == 3 and _tower_threads() == []


# -- 9. the command line -------------------------------------------------------------------------------
def devlab_cli(*args, timeout=120):
    return subprocess.run([sys.executable, "-m", "devlab", *args], cwd=ROOT, capture_output=True, text=True,
                          timeout=timeout)


def one_line_error(done, code, text):
    assert done.returncode == code, (done.returncode, done.stderr)
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and text in lines[0] and "Traceback" not in done.stderr, done.stderr


def usage_error(done, text):
    """A bad command line: the usage (argparse wraps it), then one line saying what is wrong (exit 2)."""
    assert done.returncode == 2, (done.returncode, done.stderr)
    lines = done.stderr.strip().splitlines()
    assert lines[0].startswith("usage: devlab") and text in lines[-1] and "Traceback" not in done.stderr, done.stderr
    assert all(line.startswith(" ") for line in lines[1:-1]), done.stderr


def test_cli_failures_are_one_line_and_non_zero(tmp_path):
    script = tmp_path / "boom.py"
    script.write_text("import tensorflow as tf\n\ndef f():\n    raise ValueError('the script failed')\nf()\n")
    one_line_error(devlab_cli("place", str(tmp_path / "missing.py")), 2, "no such file")
    one_line_error(devlab_cli("place", str(script)), 1, f"boom.py failed: ValueError: the script failed (at {script}, line 4)")
    seed = "examples/seed004_mixed_sum.py"
    one_line_error(devlab_cli("place", seed, "--svg", str(tmp_path / "no" / "g.svg")), 2, "--svg")
    one_line_error(devlab_cli("place", seed, "--trace", str(tmp_path)), 2, "cannot write there (it is a folder)")
    usage_error(devlab_cli("place", seed, "--cpus", "0"), "--cpus: must be between 1 and 64")
    usage_error(devlab_cli("place", seed, "--gpus", "-3"), "--gpus: must be between 0 and 64")
    usage_error(devlab_cli("place", seed, "--gpus", "1000000000"), "--gpus: must be between 0 and 64")
    usage_error(devlab_cli("nonsense"), "invalid choice")
    usage_error(devlab_cli("run", str(script)), "invalid choice: 'run'")
    usage_error(devlab_cli("place"), "the following arguments are required: script")
    bad = tmp_path / "bad.py"
    bad.write_text("import tensorflow as tf\nx = (\n")
    one_line_error(devlab_cli("place", str(bad)), 1, f"bad.py failed: SyntaxError: '(' was never closed (at {bad}, line 2)")


def test_cli_timeout_stops_a_script_that_never_ends(tmp_path):
    script = tmp_path / "forever.py"
    script.write_text("import time\nwhile True:\n    time.sleep(0.1)\n")
    done = devlab_cli("place", str(script), "--timeout", "1", timeout=60)
    one_line_error(done, 124, "did not finish within 1 s (--timeout 1), so it was stopped")
    assert cli.DEFAULT_TIMEOUT == 120


def test_cli_version_help_and_python_dash_m():
    assert devlab_cli("--version").stdout.strip() == f"devlab {tf.__version__}"
    assert tf.__version__ not in ("", "0+unknown")
    done = devlab_cli("--help")
    assert done.returncode == 0 and "place" in done.stdout
    assert devlab_cli("place", "--help").returncode == 0
    assert devlab_cli().returncode == 2


def test_cli_version_is_the_one_readme_states():
    with open(os.path.join(ROOT, "README.md")) as f:
        readme = f.read()
    assert f"`tf.__version__` is `{tf.__version__}`" in readme
    assert tf.__version__ == f"1.15.0+devlab.{importlib.metadata.version('devlab')}"


def test_cli_each_drawing_flag_writes_its_format_and_a_mismatched_name_is_one_line(tmp_path):
    seed = "examples/seed004_mixed_sum.py"
    one_line_error(devlab_cli("place", seed, "--svg", str(tmp_path / "g.png")), 2,
                   f"--svg {tmp_path / 'g.png'}: --svg writes SVG, so the file name should end in .svg (for PNG, use "
                   f"--png {tmp_path / 'g.png'})")
    one_line_error(devlab_cli("place", seed, "--png", str(tmp_path / "g")), 2, "should end in .png")
    done = devlab_cli("place", seed, "--gpus", "4", "--png", str(tmp_path / "g.png"), "--svg", str(tmp_path / "g.svg"))
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "g.png").read_bytes().startswith(b"\x89PNG\r\n")
    svg = (tmp_path / "g.svg").read_text()
    assert "<svg" in svg and "GPU:3" in svg


def test_cli_draws_a_script_whose_sessions_only_model_their_runs(tmp_path):
    """README's graph-file walkthrough runs only ``sess.modelled_run``: its sessions are recorded too."""
    out = tmp_path / "walkthrough.svg"
    done = devlab_cli("place", "examples/debug_a_model_graph.py", "--svg", str(out), "--trace", str(tmp_path / "t.json"))
    assert done.returncode == 0, done.stderr
    assert "the script ran no session" not in done.stderr
    svg = out.read_text()
    # above 150 ops, one node per device: the four towers' GPUs and the host
    assert svg.replace("&#45;", "-").count('class="node devlab-device"') == 5 and ">GPU:3<" in svg and ">CPU:0<" in svg
    assert "click to open" not in svg  # a static drawing: nothing to click
    assert "modelled timeline written" in done.stdout and json.loads((tmp_path / "t.json").read_text())["traceEvents"]
    done = devlab_cli("place", "examples/debug_a_model_graph.py", "--svg", str(out), "--ops")  # the ops, folded
    assert done.returncode == 0, done.stderr
    assert "cluster_GPU:3" in out.read_text() and "devlab&#45;device" not in out.read_text()


def test_cli_svg_without_graphviz_says_how_to_install(monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "graphviz", None)  # the Python package is not needed: drawing writes DOT itself
    monkeypatch.setattr(cli.shutil, "which", lambda name: None)  # no `dot` on PATH
    assert cli.main(["place", "examples/seed004_mixed_sum.py", "--svg", "g.svg", "--timeout", "0"]) == 2
    assert "apt-get install graphviz" in capsys.readouterr().err


# -- the table: bad inputs across the public API ------------------------------------------------------
TF_CLASSES = tuple(getattr(tf.errors, n) for n in dir(tf.errors) if isinstance(getattr(tf.errors, n), type)
                   and issubclass(getattr(tf.errors, n), tf.errors.OpError))


def _graph_with_variable():
    v = tf.Variable([1.0, 2.0], name="v")
    p = tf.placeholder(tf.float32, name="p")
    s = tf.Session()
    s.run(v.initializer)
    return v, p, s


def _magic(line, cell):
    from IPython.core.getipython import get_ipython
    from IPython.testing.globalipapp import start_ipython
    shell = start_ipython() or get_ipython()
    shell.run_line_magic("load_ext", "devlab")
    return shell.run_cell_magic("placement", line, cell)


def _misnested():
    first, second = tf.Session().as_default(), tf.Session().as_default()
    first.__enter__()
    second.__enter__()
    try:
        first.__exit__(None, None, None)
    finally:
        second.__exit__(None, None, None)


def _device(spec):
    with tf.device(spec):
        tf.constant(1.0)


def _placed(spec, soft=False):
    with tf.device(spec):
        c = tf.constant(1.0, name="c")
    tf.Session(config=tf.ConfigProto(allow_soft_placement=soft)).run(c)


def _device_fn(result):
    with tf.device(lambda op: result):
        tf.constant(1.0)


def _write(op_builder, value):
    v, p, s = _graph_with_variable()
    s.run(op_builder(v, p), {p: value})


def _meta(mutate):
    meta = json.loads(json.dumps(_saved_graph()))
    mutate(meta)
    with tf.Graph().as_default():
        tf.train.import_meta_graph(meta)


def _restore_from(tmp_path, content):
    (tmp_path / "t.npz").write_bytes(content)
    v, p, s = _graph_with_variable()
    tf.train.Saver([v]).restore(s, str(tmp_path / "t"))


def _npz(**arrays):
    buf = io.BytesIO()
    np.savez(buf, **arrays)
    return buf.getvalue()


def _enter_twice(sess):
    with sess:
        with sess:
            pass


BAD_INPUTS = [
    # device strings and functions
    ("device: unknown attribute", lambda t: _device("/job:foo/bar"), ValueError, "Unknown attribute 'bar'"),
    ("device: two types", lambda t: _device("/gpu:0/cpu:0"), ValueError, "Multiple device types"),
    ("device: bad task", lambda t: _device("/task:x"), ValueError, "invalid literal for int"),
    ("device fn returns None", lambda t: _device_fn(None), TypeError, "Expected binary or unicode string, got None"),
    ("device: missing GPU", lambda t: _placed("/device:GPU:7"), tf.errors.InvalidArgumentError,
     "was explicitly assigned to /device:GPU:7 but available devices are"),
    ("colocate_with(None)", lambda t: tf.colocate_with(None).__enter__(), ValueError, "ignore_existing is not True"),
    # feeds and fetches
    ("feed: missing", lambda t: _write(lambda v, p: tf.identity(tf.placeholder(tf.float32, [2], name="q")), 0),
     tf.errors.InvalidArgumentError, "You must feed a value for placeholder tensor 'q'"),
    ("feed: wrong shape", lambda t: tf.Session().run(tf.identity(tf.placeholder(tf.float32, [2], name="r")),
                                                      {"r:0": [1.0]}), ValueError,
     "Cannot feed value of shape \\(1,\\) for Tensor r:0, which has shape \\(2,\\)"),
    ("feed: list", lambda t: tf.Session().run(tf.constant(1.0), [1.0]), TypeError, "FlattenDictItems"),
    ("Session(graph=...)", lambda t: tf.Session(graph="g"), TypeError, "Argument `graph` must be a tf.Graph"),
    ("nesting", lambda t: _misnested(), AssertionError, "Nesting violated for default stack"),
    ("feed: ragged", lambda t: tf.Session().run(tf.identity(tf.placeholder(tf.float32, name="r")),
                                                 {"r:0": [[1.0], [1.0, 2.0]]}), ValueError, "inhomogeneous"),
    ("feed: None", lambda t: tf.Session().run(tf.identity(tf.placeholder(tf.float32, name="r")), {"r:0": None}),
     ValueError, "Cannot feed value None for Tensor r:0"),
    ("feed: object", lambda t: tf.Session().run(tf.identity(tf.placeholder(tf.float32, name="r")), {"r:0": object()}),
     TypeError, "float\\(\\) argument must be"),
    ("feed: bad key name", lambda t: tf.Session().run(tf.constant(1.0), {"nope:0": 1.0}), TypeError,
     "Cannot interpret feed_dict key as Tensor: The name 'nope:0' refers to a Tensor which does not exist"),
    ("feed: key tuple mismatch", lambda t: tf.Session().run(tf.constant(1.0), {("a:0", "b:0"): [1.0]}), ValueError,
     "Could not flatten dictionary. Key had 2 elements, but value had 1 elements"),
    ("feed: key tuple, values nested deeper", lambda t: tf.Session().run(tf.constant(1.0), {("a:0", "b:0"): ([1, 2], [3, 4])}),
     ValueError, "Could not flatten dictionary. Key had 2 elements, but value had 4 elements. Key: \\['a:0', 'b:0'\\], "
     "value: \\[1, 2, 3, 4\\]."),
    ("fetch: bad name", lambda t: (tf.constant(1.0), tf.Session().run("nope"))[1], ValueError,
     "The name 'nope' refers to an Operation not in the graph."),
    ("run: empty graph", lambda t: tf.Session().run("nope"), RuntimeError,
     "The Session graph is empty. Add operations to the graph before calling run\\(\\)."),
    ("session: re-entered", lambda t: _enter_twice(tf.Session()), RuntimeError, "Session context managers are not re-entrant. Use `Session.as_default\\(\\)`"),
    ("fetch: bad index", lambda t: (tf.constant(1.0, name="c"), tf.Session().run("c:3"))[1], ValueError,
     "exists but only has 1 outputs"),
    ("fetch: object", lambda t: (tf.constant(1.0), tf.Session().run(object()))[1], TypeError, 'has invalid type "object"'),
    ("run_metadata type", lambda t: tf.Session().run(tf.constant(1.0), run_metadata={}), TypeError,
     "Argument `run_metadata` must be a tf.RunMetadata"),
    ("closed session", lambda t: (lambda s: (s.close(), s.run(tf.constant(1.0))))(tf.Session()), RuntimeError,
     "Attempted to use a closed Session."),
    # variable writes and load
    ("assign: longer", lambda t: _write(lambda v, p: tf.assign(v, p), [1.0, 2.0, 3.0]),
     tf.errors.InvalidArgumentError, "Assign requires shapes of both tensors to match"),
    ("assign_add: broadcast", lambda t: _write(lambda v, p: tf.assign_add(v, p), 1.0),
     tf.errors.InvalidArgumentError, "Parameters and update must be the same size"),
    ("uninitialized read", lambda t: tf.Session().run(tf.Variable(1.0, name="u")), tf.errors.FailedPreconditionError,
     "Attempting to use uninitialized value u"),
    ("load: shape", lambda t: (lambda v, p, s: v.load([1.0], s))(*_graph_with_variable()), ValueError,
     "Cannot feed value of shape \\(1,\\) for Tensor v/initial_value:0"),
    ("load: not a dict", lambda t: tf.Session().load_variables([1]), TypeError, "load_variables takes a dict"),
    # saved graphs
    ("meta: format", lambda t: _meta(lambda m: m.update(format="pickle")), ValueError, "not a devlab meta graph"),
    ("meta: op type", lambda t: _meta(lambda m: m["nodes"][0].update(op="os.system")), ValueError, "unknown op type"),
    ("meta: device", lambda t: _meta(lambda m: m["nodes"][0].update(device=7)), ValueError, "field 'device'"),
    ("meta: nodes", lambda t: _meta(lambda m: m.update(nodes={"a": 1})), ValueError, "'nodes' is missing or not a list"),
    ("meta: dtype", lambda t: _meta(lambda m: m["nodes"][0]["outputs"][0].update(dtype=["x"])), ValueError,
     "output 0 must be"),
    ("meta: import_scope", lambda t: tf.train.import_meta_graph(_saved_graph(), import_scope="a b"), ValueError,
     "'a b' is not a valid scope name"),
    ("meta: clash", lambda t: (tf.train.import_meta_graph(_saved_graph()), tf.train.import_meta_graph(_saved_graph())),
     ValueError, "already has ops named"),
    ("meta: missing file", lambda t: tf.train.import_meta_graph(str(t / "nope.meta")), OSError, "File does not exist"),
    # checkpoints
    ("restore: truncated", lambda t: _restore_from(t, _npz(v=np.zeros(2, np.float32))[:40]), tf.errors.DataLossError,
     "truncated or corrupt"),
    ("restore: pickled", lambda t: _restore_from(t, _npz(v=np.array([object(), 1]))), tf.errors.InvalidArgumentError,
     "original dtype object"),
    ("restore: int64", lambda t: _restore_from(t, _npz(v=np.zeros(2, np.int64))), tf.errors.InvalidArgumentError,
     "expected dtype float does not equal original dtype int64"),
    ("restore: missing key", lambda t: _restore_from(t, _npz(x=np.zeros(2, np.float32))), tf.errors.NotFoundError,
     "Key v not found in checkpoint"),
    ("saver: nothing", lambda t: tf.train.Saver(), ValueError, "No variables to save"),
    ("saver: dict of junk", lambda t: tf.train.Saver({"a": 5}), TypeError, "names_to_saveables must be a dict"),
    # control inputs
    ("control_dependencies: junk", lambda t: tf.control_dependencies([5]).__enter__(), TypeError,
     "Can not convert a int into a Tensor or Operation."),
    # device counts and settings
    ("device_count: zero CPUs", lambda t: tf.Session(config=tf.ConfigProto(device_count={"CPU": 0})),
     tf.errors.NotFoundError, "No CPU devices are available"),
    ("device_count: float", lambda t: tf.Session(config=tf.ConfigProto(device_count={"GPU": 2.5})), TypeError,
     "'float' object cannot be interpreted as an integer"),
    ("simulate_gpus: str", lambda t: tf.config.simulate_gpus("2"), ValueError, "must be a whole number of devices"),
    ("override: CPUs", lambda t: tf.config.override(default_cpus=0).__enter__(), ValueError,
     "default_cpus must be between 1 and 64"),
    ("MirroredStrategy: no devices", lambda t: tf.distribute.MirroredStrategy([]), ValueError,
     "Must specify at least one device."),
    # the %%placement magic (IPython's UsageError for its own arguments, TF's errors for the cell's)
    ("magic: --cpus 0", lambda t: _magic("--cpus 0", "x = 1"), UsageError, "--cpus must be at least 1"),
    ("magic: --gpus huge", lambda t: _magic("--gpus 99999999999999999999999", "x = 1"), UsageError,
     "--gpus must be at most 64"),
    ("magic: unknown flag", lambda t: _magic("--nonsense", "x = 1"), UsageError, "unrecognized arguments"),
    ("magic: bad device", lambda t: _magic("--no-draw", "with tf.device('/gpu:3'):\n    c = tf.constant(1.0)\n"
                                                        "tf.Session().run(c)"),
     tf.errors.InvalidArgumentError, "was explicitly assigned to /device:GPU:3"),
    ("magic: bad config", lambda t: _magic("--no-draw", "tf.Session(config={'GPU': 1})"), TypeError,
     "Argument `config` must be a tf.ConfigProto"),
]


@pytest.mark.parametrize("case, fn, error, message", BAD_INPUTS, ids=[c[0] for c in BAD_INPUTS])
def test_bad_inputs_get_only_tf_error_classes_naming_what_was_wrong(tmp_path, case, fn, error, message):
    tf.config.simulate_gpus(None)
    with pytest.raises(Exception) as e:
        fn(tmp_path)
    assert type(e.value) is error, f"{case}: {type(e.value).__name__}: {e.value}"
    assert issubclass(error, TF_CLASSES + (ValueError, TypeError, OSError, RuntimeError, AssertionError, UsageError))
    assert re.search(message, str(e.value)), f"{case}: {e.value}"
