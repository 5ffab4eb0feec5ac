"""TensorFlow's kernel registry, as TensorFlow 2.21 recorded it: on which device types an op has a
kernel *for its dtypes*. The placer asks here, so placement, soft placement and "no supported
kernel" errors follow TF op by op and dtype by dtype (``MatMul`` on int32 has no GPU kernel;
``Const`` of strings is CPU-only; ``NoOp`` runs anywhere through a DEFAULT kernel).

The data (``data/tf_kernels.json``) was written once by ``tools/record_tf_kernels.py`` from
``tensorflow.python.framework.kernels.get_all_registered_kernels()`` in a separate environment
with TensorFlow's GPU-capable wheel; devlab never imports TensorFlow. TF's lookup rule: a device
type's own kernels are tried first, then the DEFAULT kernels, and a kernel matches when every
constrained attr's value is in its list. Ops the registry does not know (devlab's own, such as
the in-memory dataset) keep the device types of their entry in the op table.
"""
import functools

from ..framework.dtypes import DType
from .recorded import KERNELS, OP_DEFS

# TF's device-type priorities: of two device types with a kernel, the placer picks the higher.
PRIORITY = {"GPU": 210, "CPU": 60}


def priority(device_type):
    """TF's registration priority of ``device_type`` (50 for a type TF does not name here)."""
    return PRIORITY.get(device_type, 50)


def knows(op_type):
    """Whether TensorFlow registers kernels for ``op_type``."""
    return op_type in KERNELS


def type_attrs(attrs):
    """The attrs a kernel can be constrained on: dtypes, by TF's names."""
    return tuple(sorted((k, v.base_dtype.name) for k, v in attrs.items() if isinstance(v, DType)))


def supported_types(op_type, attrs, present):
    """The device types among ``present`` with a kernel for ``op_type`` with ``attrs``, in the
    order TF's placer prefers them (kernel priority, then GPU before CPU); None if TF does not
    know the op."""
    if not knows(op_type):
        return None
    return _supported(op_type, type_attrs(attrs), tuple(sorted(present)))


@functools.lru_cache(maxsize=4096)
def _supported(op_type, type_attrs, present):
    entry = KERNELS.get(op_type)
    attrs = dict(type_attrs)
    found = []
    for device_type in present:
        kernel = _match(entry.get(device_type, ()), attrs)
        if kernel is None:
            kernel = _match(entry.get("DEFAULT", ()), attrs)
        if kernel is not None:
            found.append((-kernel.get("priority", 0), -priority(device_type), device_type))
    return [t for *_, t in sorted(found)]


def _match(alternatives, attrs):
    for alt in alternatives:
        if alt.get("label"):
            continue  # a labelled kernel serves only nodes that ask for it by _kernel
        if all(k not in attrs or attrs[k] in allowed for k, allowed in alt.get("constraints", {}).items()):
            return alt
    return None


def host_memory_args(op):
    """Where TF's GPU kernel for ``op`` keeps its arguments: the indices of the inputs it reads from
    host memory (its ``HostMemory`` args: shapes, axes, sizes, and every int32 of most kernels),
    and whether all its outputs are in host memory too (then the kernel runs on the CPU, as TF's
    int32 "GPU" kernels do). ((), False) where TF registers no GPU kernel for the op's dtypes."""
    entry, op_def = KERNELS.get(op.type), OP_DEFS.get(op.type)
    if not entry or not op_def:
        return (), False
    attrs = dict(type_attrs(op.attrs))
    kernel = _match(entry.get("GPU", ()), attrs) or _match(entry.get("DEFAULT", ()), attrs)
    names = set(kernel.get("host_memory", ())) if kernel else set()
    if not names:
        return (), False
    inputs = tuple(i for i in _arg_indices(op, op_def.get("inputs", ()), names) if i < len(op.inputs))
    outputs = op_def.get("outputs", ())
    return inputs, bool(op.outputs) and all(a["name"] in names for a in outputs)


def _arg_indices(op, args, names):
    """The positions of the args named in ``names`` among ``args`` (an arg may be a list)."""
    at = 0
    for arg in args:
        if "number_attr" in arg:
            count = int(op.attrs.get(arg["number_attr"], 1))
        elif "type_list_attr" in arg:
            count = len(op.attrs.get(arg["type_list_attr"]) or ())
        else:
            count = 1
        if arg["name"] in names:
            yield from range(at, at + count)
        at += count


def registered_kernels(op_type):
    """TF's "Registered kernels" lines for an op, e.g. ``device='GPU'; T in [DT_FLOAT, DT_HALF]``."""
    entry = KERNELS.get(op_type)
    if not entry:
        return ["<no registered kernels>"]
    lines = []
    for device_type in ("CPU", "GPU", "DEFAULT"):
        for alt in entry.get(device_type, ()):
            constraints = "; ".join(f"{k} in [{', '.join('DT_' + _TF_ENUM.get(v, v.upper()) for v in vals)}]"
                                    for k, vals in sorted(alt.get("constraints", {}).items()))
            lines.append(f"device='{device_type}'" + (f"; {constraints}" if constraints else ""))
    return lines


_TF_ENUM = {"float32": "FLOAT", "float64": "DOUBLE", "float16": "HALF"}
