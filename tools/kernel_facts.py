"""Answer "does TensorFlow have a kernel for this op on this device?" from the recorded JSON.

Reads devlab/ops/data/tf_kernels.json and tf_op_defs.json (standard library only, no
TensorFlow) and prints the facts quoted in tests/data/tf_graphs/README.md:

    python3 tools/kernel_facts.py                 # the summary
    python3 tools/kernel_facts.py MatMul T=int32  # one query: the matching kernel per device

The lookup follows TensorFlow's FindKernelRegistration: a device type's own kernels first,
then the DEFAULT kernels when none of them matches; a labelled kernel matches only a node
whose _kernel attr equals the label. Attrs a query leaves out take the OpDef default, and
a constraint on an attr that has neither is treated as satisfied.
"""
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, "..", "devlab", "ops", "data")
KERNELS = json.load(open(os.path.join(DATA, "tf_kernels.json")))
OP_DEFS = json.load(open(os.path.join(DATA, "tf_op_defs.json")))


def node_attrs(op, attrs):
    full = {a["name"]: a["default"] for a in OP_DEFS.get(op, {}).get("attrs", []) if "default" in a}
    full.update(attrs)
    return full


def matches(alt, attrs, label=""):
    if alt.get("label", "") != label:
        return False
    return all(k not in attrs or attrs[k] in v for k, v in alt.get("constraints", {}).items())


def find_kernel(op, device, attrs, label=""):
    """The matching alternative for device type 'CPU' or 'GPU' (None if none), and where it came from."""
    entry = KERNELS.get(op, {})
    attrs = node_attrs(op, attrs)
    for source in (device, "DEFAULT"):
        for alt in entry.get(source, []):
            if matches(alt, attrs, label):
                return alt, source
    return None, None


def describe(op, attrs):
    parts = []
    for dev in ("GPU", "CPU"):
        alt, src = find_kernel(op, dev, attrs)
        if alt is None:
            parts.append("%s: none" % dev)
        else:
            hm = alt.get("host_memory")
            parts.append("%s: yes%s%s" % (dev, " (via DEFAULT)" if src == "DEFAULT" else "",
                                          ", host memory %s" % hm if hm else ""))
    return "; ".join(parts)


def float_ops_without_gpu():
    """Ops whose type attr allows float32, with a float32 CPU kernel but none on GPU."""
    out = []
    for op, d in OP_DEFS.items():
        if op == "_meta" or op.startswith("_"):
            continue
        tattrs = [a["name"] for a in d.get("attrs", []) if a["type"] == "type"
                  and "float32" in a.get("allowed", ["float32"]) and "default" not in a]
        attrs = {a: "float32" for a in tattrs}
        if find_kernel(op, "CPU", attrs)[0] is not None and find_kernel(op, "GPU", attrs)[0] is None:
            out.append(op)
    return sorted(out)


COMMON = ["MatMul", "AddV2", "Add", "Sub", "Mul", "RealDiv", "AddN", "Const", "Identity",
          "Placeholder", "VariableV2", "Assign", "AssignAdd", "NoOp", "Relu", "Conv2D",
          "MaxPool", "BiasAdd", "Softmax", "SoftmaxCrossEntropyWithLogits",
          "SparseSoftmaxCrossEntropyWithLogits", "Sum", "Mean", "ArgMax", "Cast", "Shape",
          "Reshape", "ConcatV2", "Split", "Pack", "Fill", "RandomUniform",
          "RandomStandardNormal", "TruncatedNormal", "ApplyGradientDescent", "ApplyMomentum",
          "ApplyAdam", "Switch", "Merge", "Enter", "Exit", "NextIteration", "LoopCond",
          "Less", "Equal", "IsVariableInitialized", "AsString", "StringJoin",
          "ScalarSummary", "OneHot", "Transpose", "Tanh", "Sigmoid", "Exp", "Log", "Sqrt",
          "_Send", "_Recv", "_Arg", "_Retval"]


def query_attrs(op_def, tattrs, t):
    """Set each open type attr to t where the OpDef allows it, else to its first allowed type."""
    allowed = {a["name"]: a.get("allowed") for a in op_def.get("attrs", [])}
    return {a: t if not allowed[a] or t in allowed[a] else allowed[a][0] for a in tattrs}


def summary():
    print("TensorFlow", KERNELS["_meta"]["tensorflow_version"])
    for op in COMMON:
        print("%-38s" % op)
        for t in ("float32", "int32", "int64", "string", "bool"):
            d = OP_DEFS.get(op, {})
            tattrs = [a["name"] for a in d.get("attrs", []) if a["type"] == "type" and "default" not in a]
            if not tattrs:
                print("    (no type attr)  %s" % describe(op, {}))
                break
            allowed = [a.get("allowed") for a in d["attrs"] if a["name"] == tattrs[0]][0]
            if allowed and t not in allowed:
                continue
            print("    %-8s %s" % (t, describe(op, query_attrs(d, tattrs, t))))
    no_gpu = float_ops_without_gpu()
    print("\nops with a float32 CPU kernel and no float32 GPU kernel: %d" % len(no_gpu))
    print(" ".join(no_gpu))


if __name__ == "__main__":
    if len(sys.argv) > 1:
        attrs = dict(kv.split("=", 1) for kv in sys.argv[2:])
        attrs = {k: (v == "true" if v in ("true", "false") else v) for k, v in attrs.items()}
        print(sys.argv[1], attrs, "->", describe(sys.argv[1], attrs))
    else:
        summary()
