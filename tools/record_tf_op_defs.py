"""Record every registered TensorFlow OpDef as devlab/ops/data/tf_op_defs.json.

    /work/tfgpu/bin/python tools/record_tf_op_defs.py devlab/ops/data/tf_op_defs.json

(tensorflow-cpu==2.21.0 gives the same file less two ops, _CopyFromGpuToHost and
_CopyFromHostToGpu, which only the GPU-capable wheel registers.)
devlab reads it to infer the output dtypes of ops it cannot execute when it loads a TF
graph file. TensorFlow is not a dependency of devlab.

Per op (keys left out when empty or false):
  inputs / outputs  [{"name", one of "type" (fixed dtype name) | "type_attr" |
                      "type_list_attr", optional "number_attr" (the arg is a list of N
                      tensors of one type), "is_ref": true}]
  attrs             [{"name", "type" (OpDef attr type: type, list(type), int, float, bool,
                      string, shape, tensor, func, ...), "default" when simple (scalars,
                      short lists, shapes as a dim list or null for unknown rank),
                      "has_default": true when the default is not simple, "allowed"
                      (allowed values of a type/list(type)/string attr), "minimum"}]
  stateful, allows_uninitialized_input, is_commutative, is_aggregate: true when set
"""
import os
import sys

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402
from tensorflow.core.framework import op_def_pb2  # noqa: E402
from tensorflow.python.client import pywrap_tf_session as c_api  # noqa: E402
from tensorflow.python.framework import op_def_registry  # noqa: E402

import per_op_json  # noqa: E402  (tools/per_op_json.py)


def dtype_name(enum):
    return tf.dtypes.as_dtype(enum).name


def all_op_names():
    buf = c_api.TF_GetAllOpList()
    data = c_api.TF_GetBuffer(buf) if not isinstance(buf, bytes) else buf
    return sorted(op.name for op in op_def_pb2.OpList.FromString(data).op)


def arg(a):
    out = {"name": a.name}
    if a.type_list_attr:
        out["type_list_attr"] = a.type_list_attr
    elif a.type_attr:
        out["type_attr"] = a.type_attr
    else:
        out["type"] = dtype_name(a.type)
    if a.number_attr:
        out["number_attr"] = a.number_attr
    if a.is_ref:
        out["is_ref"] = True
    return out


def f32(x):
    """A float attr as the shortest decimal that round-trips through float32."""
    return float(str(np.float32(x)))


def shape(s):
    return None if s.unknown_rank else [d.size for d in s.dim]


def attr_value(v):
    """A default AttrValue as JSON, or raise ValueError when it is not simple."""
    kind = v.WhichOneof("value")
    if kind == "type":
        return dtype_name(v.type)
    if kind in ("i", "b"):
        return getattr(v, kind)
    if kind == "f":
        return f32(v.f)
    if kind == "s":
        return v.s.decode("utf-8", "backslashreplace")
    if kind == "shape":
        return shape(v.shape)
    if kind == "list":
        lv = v.list
        if lv.type:
            return [dtype_name(t) for t in lv.type]
        if lv.i:
            return list(lv.i)
        if lv.f:
            return [f32(x) for x in lv.f]
        if lv.s:
            return [s.decode("utf-8", "backslashreplace") for s in lv.s]
        if lv.b:
            return list(lv.b)
        if lv.shape:
            return [shape(s) for s in lv.shape]
        if lv.tensor or lv.func:
            raise ValueError(kind)
        return []
    raise ValueError(kind)


def attr(a):
    out = {"name": a.name, "type": a.type}
    if a.HasField("default_value"):
        try:
            out["default"] = attr_value(a.default_value)
        except ValueError:
            out["has_default"] = True
    if a.HasField("allowed_values"):
        allowed = attr_value(a.allowed_values)
        if allowed:
            out["allowed"] = allowed
    if a.has_minimum:
        out["minimum"] = a.minimum
    return out


def op_def(od):
    out = {}
    if od.input_arg:
        out["inputs"] = [arg(a) for a in od.input_arg]
    if od.output_arg:
        out["outputs"] = [arg(a) for a in od.output_arg]
    if od.attr:
        out["attrs"] = [attr(a) for a in od.attr]
    for flag in ("is_stateful", "allows_uninitialized_input", "is_commutative", "is_aggregate"):
        if getattr(od, flag):
            out[flag.replace("is_stateful", "stateful")] = True
    return out


def record():
    ops = {}
    for name in all_op_names():
        od = op_def_registry.get(name)
        if od is None:
            raise KeyError(name)
        ops[name] = op_def(od)
    meta = {
        "tensorflow_version": tf.__version__,
        "generated_by": "tools/record_tf_op_defs.py under tensorflow==%s (GPU-capable Linux "
                        "wheel); OpDefs from "
                        "tensorflow.python.framework.op_def_registry.get() for every name in "
                        "TF_GetAllOpList()" % tf.__version__,
        "ops": len(ops),
        "dtype_names": "tf.dtypes.DType.name (float16, float64, resource, variant, ...)",
        "float_defaults": "float attrs are float32 in TF; written as the shortest decimal "
                          "that round-trips through float32",
    }
    return meta, ops


if __name__ == "__main__":
    out = sys.argv[1] if len(sys.argv) > 1 else "devlab/ops/data/tf_op_defs.json"
    meta, ops = record()
    per_op_json.write(meta, ops, out)
    print("%s: %d ops, %d bytes" % (out, len(ops), os.path.getsize(out)))
