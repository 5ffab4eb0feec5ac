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
