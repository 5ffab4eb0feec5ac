"""``Operation.op_def``: TF's OpDef proto of the op's type, built from devlab's record of TF 2.21's
op definitions, equal to the protos TF 2.21 itself gives (``tools/record_op_def_protos.py``)."""
import json
import pathlib

import pytest

import devlab as tf

pytest.importorskip("tensorboard")
from devlab.framework.tf_protos import pb  # noqa: E402
from devlab.graphs.op_def import _op_def  # noqa: E402

RECORDED = json.loads((pathlib.Path(__file__).parent / "data" / "op_def_protos.json").read_text())


@pytest.mark.parametrize("op_type", sorted(RECORDED))
def test_op_def_equals_tfs(op_type):
    want = pb().OpDef()
    want.ParseFromString(bytes.fromhex(RECORDED[op_type]))
    assert _op_def(op_type) == want


def test_an_ops_op_def_describes_its_arguments():
    with tf.Graph().as_default():
        x = tf.constant(0)
        z = x + tf.constant(1)
    assert (x.op.op_def.name, len(x.op.op_def.input_arg), len(x.op.op_def.output_arg)) == ("Const", 0, 1)
    assert (z.op.op_def.name, len(z.op.op_def.input_arg), len(z.op.op_def.output_arg)) == ("AddV2", 2, 1)
    z.op.op_def.name = "changed"  # a copy: the next read is TF's again
    assert z.op.op_def.name == "AddV2"


def test_str_of_an_op_is_tfs_node_def_text():
    # TF 2.21 prints a Const's tensor as its TensorProto, and MatMul's default attrs
    with tf.Graph().as_default():
        c = tf.constant(1.0, name="c")
        p = tf.placeholder(tf.float32, [None, 2], name="p")
        m = tf.matmul(p, tf.ones([2, 2]))
    assert str(c.op) == ('name: "c"\nop: "Const"\nattr {\n  key: "value"\n  value {\n    tensor {\n      dtype: DT_FLOAT\n'
                         '      tensor_shape {\n      }\n      float_val: 1\n    }\n  }\n}\nattr {\n  key: "dtype"\n'
                         '  value {\n    type: DT_FLOAT\n  }\n}\n')
    assert str(p.op).startswith('name: "p"\nop: "Placeholder"\nattr {\n  key: "shape"\n  value {\n    shape {\n'
                                '      dim {\n        size: -1\n      }\n      dim {\n        size: 2\n      }\n')
    text = str(m.op)
    assert text.startswith('name: "MatMul"\nop: "MatMul"\ninput: "p"\ninput: "ones"\n')
    assert all(f'key: "{k}"' in text for k in ("transpose_a", "transpose_b", "grad_a", "grad_b", "T"))
