"""The few ``test_util.TensorFlowTestCase`` helpers the ported TensorFlow tests use, for pytest.

TensorFlow's tests compare GraphDef protos written as text; devlab has no protobuf, so
``assert_graph_nodes`` compares each node's name, op, inputs, device and attrs as plain
values with the same expected strings. ``assert_device_equal`` canonicalises both sides,
as ``TensorFlowTestCase.assertDeviceEqual`` does.
"""
import numpy as np

from devlab.framework.device_spec import canonical_name


def assert_device_equal(device1, device2):
    """``assertDeviceEqual``: equal after canonicalisation (``/cpu:0`` == ``/device:CPU:0``)."""
    assert canonical_name(device1) == canonical_name(device2), f"{device1!r} != {device2!r}"


def assert_graph_nodes(graph, expected):
    """``assertProtoEqualsVersion(text, graph.as_graph_def())`` for graphs of attr-less test ops:
    ``expected`` holds one dict per node (name, op, and device, input, attr where set)."""
    got = [dict(name=n.name, op=n.op, device=n.device, input=list(n.input),
                attr={k: _attr_value(v) for k, v in n.attr.items()})
           for n in (op.node_def for op in graph.get_operations())]
    want = [dict(name=e["name"], op=e["op"], device=e.get("device", ""), input=list(e.get("input", [])),
                 attr=dict(e.get("attr", {}))) for e in expected]
    assert got == want


def _attr_value(value):
    """An attr as a plain value (so that the same test also runs against TensorFlow, whose
    attrs are AttrValue protos: a string list becomes a list, a bool a bool)."""
    if not hasattr(value, "WhichOneof"):
        return value
    kind = value.WhichOneof("value")
    return list(value.list.s) if kind == "list" else getattr(value, kind)


def assert_items_equal(a, b):
    """``assertItemsEqual``: the same elements, in any order (by identity for graph objects)."""
    a, b = list(a), list(b)
    assert len(a) == len(b), f"{a} != {b}"
    for x in a:
        assert sum(y is x for y in b) == sum(y is x for y in a), f"{a} != {b}"


def assert_all_close(a, b, rtol=1e-6, atol=1e-6):
    np.testing.assert_allclose(np.asarray(a, dtype=float), np.asarray(b, dtype=float), rtol=rtol, atol=atol)
