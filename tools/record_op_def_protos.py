"""Records TensorFlow 2.21's OpDef protos (serialized, hex) of a few op types, for
tests/test_op_def.py to compare ``Operation.op_def`` with (TF's own venv):

    /path/to/tf-venv/bin/python tools/record_op_def_protos.py
"""
import json
import os

from tensorflow.python.framework import op_def_registry

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OPS = ("AddV2", "AddN", "Assign", "Barrier", "ConcatV2", "Const", "Conv2D", "DecodeJpeg", "FIFOQueueV2", "Identity",
       "MaxPool", "ParseExample", "Placeholder", "RandomUniform", "SparseToDense", "StridedSlice", "Unique",
       "VariableV2")

if __name__ == "__main__":
    out = {name: op_def_registry.get(name).SerializeToString().hex() for name in OPS}
    with open(os.path.join(ROOT, "tests", "data", "op_def_protos.json"), "w") as f:
        json.dump(out, f, indent=1, sort_keys=True)
        f.write("\n")
