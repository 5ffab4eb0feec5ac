"""Record TensorFlow's kernel registry as devlab/ops/data/tf_kernels.json.

Run it under a venv that has the GPU-capable Linux wheel (the CPU wheel registers no GPU
kernels); TensorFlow is never a dependency of devlab itself:

    python3 -m venv /work/tfgpu && /work/tfgpu/bin/pip install tensorflow==2.21.0
    /work/tfgpu/bin/python tools/record_tf_kernels.py devlab/ops/data/tf_kernels.json

The CUDA kernels are registered statically when the library loads, so no GPU or CUDA
driver is needed to record them.

What it writes: for each op and device type (CPU, GPU, DEFAULT) the list of registered
kernels ("alternatives"). Each alternative may carry
  constraints  {attr: [allowed values]}  -- a type attr lists TF dtype names (float32,
               int32, string, resource, ...); a few kernels constrain string/int/bool attrs;
               no key means the kernel accepts any value of that attr.
  host_memory  [arg names]  -- input/output args this kernel keeps in host memory
  label        the kernel matches only a node with attr _kernel=<label>
  priority     kernel priority (placement prefers higher kernel priority first)
Kernels registered once per dtype are merged: two kernels whose other fields are equal and
whose constraints differ in the values of a single attr become one alternative listing the
union (exact: the allowed combinations are unchanged).
"""
import json
import os
import sys
from collections import defaultdict

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import tensorflow as tf  # noqa: E402
from tensorflow.python.framework import kernels  # noqa: E402

import per_op_json  # noqa: E402  (tools/per_op_json.py)

DEVICE_TYPES = ("CPU", "GPU", "DEFAULT")
# Internal ops (leading underscore) that matter for placement and partitioning.
KEEP_INTERNAL = {
    "_Send", "_Recv", "_HostSend", "_HostRecv",          # cross-device transfers
    "_Arg", "_Retval", "_DeviceArg", "_DeviceRetval",    # function arguments / results
    "_SwitchN", "_ListToArray", "_ArrayToList",           # control flow / list plumbing
    "_HostCast", "_CopyFromGpuToHost", "_CopyFromHostToGpu", "_EagerConst",
    "_ReadVariablesOp", "_VarHandlesOp", "_If", "_While",
}


def dtype_name(enum):
    return tf.dtypes.as_dtype(enum).name


def dtype_rank(name):
    return tf.dtypes.as_dtype(name).as_datatype_enum


def constraint_values(attr_value):
    """The allowed values of one KernelDef.AttrConstraint, as JSON scalars."""
    lv = attr_value.list
    if lv.type:
        types = [dtype_name(t) for t in lv.type]
        if any(t.endswith("_ref") for t in types):
            raise ValueError("reference dtype in a kernel constraint: %r" % types)
        return types
    if lv.s:
        return [s.decode() for s in lv.s]
    if lv.i:
        return list(lv.i)
    if lv.b:
        return list(lv.b)
    raise ValueError("unexpected constraint %r" % attr_value)


def sort_values(values):
    if values and isinstance(values[0], str):
        try:
            return sorted(set(values), key=dtype_rank)
        except TypeError:
            return sorted(set(values))
    return sorted(set(values))


def merge(alts):
    """Merge alternatives that differ in the values of exactly one constraint attr."""
    alts = [dict(a) for a in alts]
    changed = True
    while changed:
        changed = False
        out = []
        for a in alts:
            for b in out:
                if set(a) != set(b):
                    continue
                diff = [k for k in a if set(a[k]) != set(b[k])]
                if len(diff) <= 1:
                    for k in diff:
                        b[k] = sort_values(list(b[k]) + list(a[k]))
                    changed = changed or bool(diff)
                    break
            else:
                out.append(a)
        alts = out
    return alts


def record():
    registry = kernels.get_all_registered_kernels()
    # (op, device) -> {(host_memory, label, priority): [constraint dicts]}
    grouped = defaultdict(lambda: defaultdict(list))
    skipped_types = defaultdict(int)
    dropped_internal = set()
    for kd in registry.kernel:
        if kd.device_type not in DEVICE_TYPES:
            skipped_types[kd.device_type] += 1
            continue
        if kd.op.startswith("_") and kd.op not in KEEP_INTERNAL:
            dropped_internal.add(kd.op)
            continue
        cons = {c.name: constraint_values(c.allowed_values) for c in kd.constraint}
        host = tuple(dict.fromkeys(kd.host_memory_arg))  # dedupe, keep order
        grouped[(kd.op, kd.device_type)][(host, kd.label, kd.priority)].append(cons)

    ops = defaultdict(dict)
    for (op, dev), by_extra in grouped.items():
        alts = []
        for (host, label, priority), cons_list in by_extra.items():
            for cons in merge(cons_list):
                alt = {}
                if cons:
                    alt["constraints"] = {k: sort_values(v) for k, v in sorted(cons.items())}
                if host:
                    alt["host_memory"] = list(host)
                if label:
                    alt["label"] = label
                if priority:
                    alt["priority"] = priority
                alts.append(alt)
        alts.sort(key=lambda a: json.dumps(a, sort_keys=True))
        ops[op][dev] = alts

    meta = {
        "tensorflow_version": tf.__version__,
        "built_with_cuda": tf.test.is_built_with_cuda(),
        "generated_by": "tools/record_tf_kernels.py under a venv with tensorflow==%s "
                        "(GPU-capable Linux wheel, no GPU present); source: "
                        "tensorflow.python.framework.kernels.get_all_registered_kernels()"
                        % tf.__version__,
        "device_types": list(DEVICE_TYPES),
        "omitted_device_types": dict(sorted(skipped_types.items())),
        "dropped_internal_ops": len(dropped_internal),
        "kept_internal_ops": sorted(KEEP_INTERNAL & set(ops)),
        "registered_kernels": len(registry.kernel),
        "ops": len(ops),
        "lookup_rule": (
            "A node is supported on device type D if one of D's alternatives matches its "
            "attrs (every constraint attr's value is in the list; label must equal the "
            "node's _kernel attr, empty label when there is none). If none of D's own "
            "alternatives matches, TensorFlow falls back to the DEFAULT alternatives (for "
            "CPU and GPU alike). The placer orders a node's supported device types by the "
            "matched kernel's priority (descending), then by device priority (GPU before "
            "CPU)."),
        "dtype_names": "tf.dtypes.DType.name (float16 for DT_HALF, float64 for DT_DOUBLE, "
                       "resource, variant, ...); _ref types never appear as constraint values",
    }
    return meta, ops


if __name__ == "__main__":
    out = sys.argv[1] if len(sys.argv) > 1 else "devlab/ops/data/tf_kernels.json"
    meta, ops = record()
    per_op_json.write(meta, ops, out)
    print("%s: %d ops, %d bytes" % (out, len(ops), os.path.getsize(out)))
