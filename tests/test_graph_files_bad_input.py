"""Hostile graph files: each gets a clear error naming what is wrong, and nothing changes.

A table of damaged files (truncated, huge, cyclic, unknown ops, wrong types, nested too deep, a
device instead of a file...), each loaded with ``devlab.load_graph`` and imported with
``tf.import_graph_def`` into a graph that must stay as it was; then a hypothesis property: any
byte-level damage to a real TensorFlow GraphDef loads, or raises ``GraphFileError``, never
anything else.
"""
import os
import subprocess
import sys

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import devlab as tf
from devlab.graphs import GraphFileError, files, load_graph

pytest.importorskip("tensorboard", reason="the graphs extra (TensorBoard's protos) is not installed")

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DATA = os.path.join(ROOT, "tests", "data", "tf_graphs")


def const(name, dtype="DT_FLOAT", value="float_val: 1", shape="", extra=""):
    return (f'node {{ name: "{name}" op: "Const" {extra} attr {{ key: "dtype" value {{ type: {dtype} }} }} '
            f'attr {{ key: "value" value {{ tensor {{ dtype: {dtype} tensor_shape {{ {shape} }} {value} }} }} }} }}\n')


def node(name, op, inputs=(), t="DT_FLOAT", extra=""):
    ins = " ".join(f'input: "{i}"' for i in inputs)
    return f'node {{ name: "{name}" op: "{op}" {ins} attr {{ key: "T" value {{ type: {t} }} }} {extra} }}\n'


GOOD = const("a") + const("b") + node("c", "AddV2", ["a", "b"])
TEXT_CASES = [
    ("unknown op", const("a") + node("c", "FancyOp", ["a"]), "Op type not registered 'FancyOp'"),
    ("cycle", const("a") + node("c", "AddV2", ["a", "d"]) + node("d", "AddV2", ["a", "c"]),
     "Graph is invalid, contains a cycle with 2 nodes, including: c, d"),
    ("self loop", node("c", "Identity", ["c"]), "contains a cycle with 1 nodes, including: c"),
    ("wrong input type", const("a") + const("i", "DT_INT32", "int_val: 1") + node("c", "AddV2", ["a", "i"]),
     "Input 1 of node c was passed int32 from i:0 incompatible with expected float."),
    ("attr of the wrong kind", const("a") + 'node { name: "c" op: "Identity" input: "a" attr { key: "T" value { i: 3 } } }\n',
     "AttrValue had value with type 'int' when 'type' expected"),  # TF's words (checked on TF 2.21)
    ("shape given as a list of ints", 'node { name: "p" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } '
     'attr { key: "shape" value { list { i: 1 i: 2 } } } }\n',
     "AttrValue had value with type 'list(int)' when 'shape' expected"),  # TF's ValueError, not shape (1, 2)
    ("type not allowed", const("a", "DT_STRING", 'string_val: "x"') + node("c", "Relu", ["a"], "DT_STRING"),
     "Value for attr 'T' of string is not in the list of allowed values"),
    ("missing attr", const("a") + 'node { name: "c" op: "Identity" input: "a" }\n',
     "NodeDef missing attr 'T' from Op<name=Identity>"),
    ("dangling input", const("a") + node("c", "AddV2", ["a", "zz"]), "Unknown input node 'zz'"),
    ("bad output index", const("a") + node("c", "AddV2", ["a", "a:3"]), "Connecting to invalid output 3 of source node a"),
    ("too many inputs", const("a") + node("c", "AddV2", ["a", "a", "a"]), "do not match 3 inputs specified"),
    ("duplicate name", const("a") + const("a"), "Node 'a' is not unique"),
    ("bad name", const("a b"), "Node name contains invalid characters"),
    ("bad device", const("a", extra='device: "/foo:bar:baz"'), "Malformed device specification '/foo:bar:baz'"),
    ("colocation with nothing", const("a", extra='attr { key: "_class" value { list { s: "loc:@zz" } } }'),
     "attr '_class' names b'loc:@zz', which is not a node of the file"),
    ("content of the wrong size", const("a", value='tensor_content: "abc"', shape="dim { size: 2 }"),
     "tensor_content has 3 bytes, but shape [2] of float32 needs 8"),
    ("too many values", const("a", value="float_val: 1 float_val: 2", shape="dim { size: 1 }"),
     "2 values for a shape [1] of 1 elements"),
    ("a constant that expands past the bound", const("a", shape="dim { size: 1099511627776 }"),
     "expand to more than"),
    ("control input first", const("a") + node("c", "Identity", ["^a", "a"]), "comes after a control input"),
    ("negative dimension", const("a", shape="dim { size: -5 }"), "dimension -5 in a shape"),
    ("unsupported dtype", const("a", "DT_FLOAT8_E5M2", ""), "unsupported dtype (DataType enum 24)"),
    ("not a graph", "this is { not a graph", "Cannot parse file"),
    ("empty", "", "it is empty, not a GraphDef"),
]


def nested_func(depth):
    inner = 'value { i: 1 }'
    for _ in range(depth):
        inner = f'value {{ func {{ name: "f" attr {{ key: "x" {inner} }} }} }}'
    return const("a") + f'node {{ name: "c" op: "Identity" input: "a" attr {{ key: "T" value {{ type: DT_FLOAT }} }} ' \
                        f'attr {{ key: "_f" {inner} }} }}\n'


TEXT_CASES.append(("attrs nested deep", nested_func(40), "nested more than 16 deep"))
TEXT_CASES.append(("nested past protobuf's limit", "node { attr { key: \"x\" value { func { attr { key: \"y\" value "
                   * 200 + "", "Cannot parse file"))


@pytest.mark.parametrize("label, text, message", TEXT_CASES, ids=[c[0] for c in TEXT_CASES])
def test_hostile_text_graph_defs_get_a_clear_error_and_change_nothing(tmp_path, label, text, message):
    path = tmp_path / "g.pbtxt"
    path.write_text(text)
    with pytest.raises(GraphFileError) as e:
        load_graph(path)
    assert message in str(e.value), str(e.value)
    graph_def = None
    try:
        graph_def = files.parse_graph_def(text.encode())
    except GraphFileError:
        return  # not even a GraphDef: nothing to import
    with tf.Graph().as_default() as g:
        tf.constant(1.0, name="keep")
        with pytest.raises(GraphFileError) as again:
            tf.import_graph_def(graph_def)
        assert message in str(again.value)
        assert [op.name for op in g.get_operations()] == ["keep"]


def test_the_good_graph_of_the_table_loads_and_runs():
    g = tf.Graph()
    with g.as_default():
        tf.import_graph_def(files.parse_graph_def(GOOD.encode()), name="")
    assert [op.type for op in g.get_operations()] == ["Const", "Const", "AddV2"]
    with tf.Session(graph=g) as s:
        assert s.run("c:0") == 2.0


def test_truncated_huge_and_unreadable_files(tmp_path):
    data = open(os.path.join(DATA, "tower_cnn.pb"), "rb").read()
    (tmp_path / "cut.pb").write_bytes(data[: len(data) // 2])
    with open(tmp_path / "huge.pb", "wb") as f:
        f.truncate(files.MAX_FILE_BYTES + 1)  # sparse: no disk used
    cases = [(tmp_path / "cut.pb", GraphFileError, "Cannot parse file .*cut.pb: not a GraphDef"),
             (tmp_path / "huge.pb", GraphFileError, f"more than the {files.MAX_FILE_BYTES}"),
             (tmp_path / "nope.pb", OSError, "File does not exist"),
             (tmp_path, tf.errors.FailedPreconditionError, "Is a directory"),
             ("/dev/zero", tf.errors.FailedPreconditionError, "Not a regular file"),
             (5, TypeError, "Expected binary or unicode string, got 5")]
    for source, error, message in cases:
        with pytest.raises(error, match=message):
            load_graph(source)
    with pytest.raises(OSError, match="Cannot parse file .*cut.meta: not a devlab meta graph"):
        (tmp_path / "cut.meta").write_bytes(open(os.path.join(DATA, "tower_cnn.meta"), "rb").read()[:5000])
        tf.train.import_meta_graph(str(tmp_path / "cut.meta"))
    assert tf.get_default_graph().get_operations() == []


def test_dev_zero_and_a_fifo_fail_fast_in_a_fresh_process(tmp_path):
    fifo = tmp_path / "pipe.pb"
    os.mkfifo(fifo)
    code = ("import resource; resource.setrlimit(resource.RLIMIT_AS, (2 << 30, 2 << 30))\n"
            "import devlab as tf\n"
            f"for p in ['/dev/zero', {str(fifo)!r}]:\n"
            "    try:\n        tf.load_graph(p)\n"
            "    except tf.errors.FailedPreconditionError as e:\n        print('refused:', e)\n")
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert done.stdout.count("Not a regular file") == 2, done.stderr[-2000:]


BASE = open(os.path.join(DATA, "control_flow.pb"), "rb").read()


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.tuples(st.sampled_from(["flip", "cut", "insert", "delete"]), st.integers(0, len(BASE) - 1),
                          st.integers(0, 255)), min_size=1, max_size=4))
def test_any_damage_to_a_real_graph_def_loads_or_is_a_graph_file_error(tmp_path_factory, edits):
    data = bytearray(BASE)
    for kind, pos, byte in edits:
        pos = min(pos, len(data) - 1)
        if kind == "flip":
            data[pos] = byte
        elif kind == "cut":
            del data[pos:]
        elif kind == "insert":
            data.insert(pos, byte)
        elif len(data) > 1:
            del data[pos]
        if not data:
            data = bytearray(b"\x0a")
    try:
        graph_def = files.parse_graph_def(bytes(data))
    except GraphFileError:
        return
    with tf.Graph().as_default() as g:
        tf.constant(1.0, name="keep")
        try:
            tf.import_graph_def(graph_def, name="x")
        except GraphFileError:
            assert [op.name for op in g.get_operations()] == ["keep"]
            return
    # it loaded: every op has a type devlab or TensorFlow knows, and the graph can be placed
    assert len(g.get_operations()) >= 1
    tf.Session(graph=g, config=tf.ConfigProto(device_count={"CPU": 2}, allow_soft_placement=True))
