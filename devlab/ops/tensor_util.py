"""What graph construction can know about a tensor's value before any run (TF's ``tensor_util``).

Shape rules and graph builders ask ``constant_value(t)``: the value of ``t`` as a numpy array
when it follows from constants alone (a ``Const``, the ``Shape`` of a fully known tensor, a
``Pack`` of constants...), else None. TensorFlow uses the same function to decide, for
instance, the static shape of ``Reshape`` when its shape input is a Const, or whether a gradient
rule can take its fast path.
"""
import weakref

import numpy as np

from ..framework.composite_tensor import NativeObject
from ..framework.tensor import Tensor
from . import broadcast_args as BA
from . import kernels as K
from . import sparse_tensor_kernels as STK


def is_tf_type(x):
    """``tf.is_tensor``: whether ``x`` is a TensorFlow value (a tensor, a variable, a sparse tensor,
    IndexedSlices...), not a Python or numpy one."""
    return isinstance(x, (Tensor, NativeObject))


is_tensor = is_tf_type


def constant_value(tensor):
    """The value of ``tensor`` if it is known at graph-construction time, else None."""
    if not isinstance(tensor, Tensor):
        return None
    op = tensor.op
    kind = op.type
    if kind == "Const":
        return np.asarray(op.get_attr("value"))
    if kind in ("Identity", "StopGradient"):
        return constant_value(op.inputs[0])
    if kind in ("Shape", "Size", "Rank"):
        shape = op.inputs[0].shape
        if kind == "Rank":
            return None if shape.ndims is None else np.asarray(shape.ndims, np.int32)
        if not shape.is_fully_defined():
            return None
        dtype = op.get_attr("out_type").as_numpy_dtype if "out_type" in op.attrs else np.int32
        return np.asarray(shape.sizes if kind == "Shape" else shape.num_elements(), dtype)
    if kind == "ShapeN":
        shape = op.inputs[tensor.value_index].shape
        return np.asarray(shape.sizes, np.int32) if shape.is_fully_defined() else None
    if kind == "Cast":
        value = constant_value(op.inputs[0])
        return None if value is None else value.astype(op.get_attr("DstT").as_numpy_dtype)
    if kind == "Pack":
        values = [constant_value(t) for t in op.inputs]
        return None if any(v is None for v in values) else np.stack(values, axis=op.get_attr("axis"))
    if kind == "ConcatV2":
        values = [constant_value(t) for t in op.inputs]
        if any(v is None for v in values):
            return None
        return np.concatenate(values[:-1], axis=int(values[-1]))
    if kind == "Range":
        values = [constant_value(t) for t in op.inputs]
        return None if any(v is None for v in values) else np.arange(*values).astype(values[0].dtype)
    if kind == "Fill":
        dims, value = (constant_value(t) for t in op.inputs)
        return None if dims is None or value is None else np.full(dims, value)
    return None


# Integer ops that TF's C++ shape inference evaluates when their inputs are known while building,
# with the kernel that folds each (the op table's: the table itself sits above the shape rules).
_FOLD = {"Pack": K.stack, "Unpack": K.unstack, "ConcatV2": K.concat, "StridedSlice": K.strided_slice,
         "Slice": K.slice_, "ExpandDims": K.expand_dims, "Reshape": K.reshape, "Squeeze": K.squeeze,
         "Transpose": K.transpose, "Range": K.range_, "Fill": K.fill, "Cast": K.cast,
         "AddV2": K.elementwise("add"), "Sub": K.elementwise("subtract"), "Mul": K.elementwise("multiply"),
         "FloorDiv": K.floor_div, "FloorMod": K.floor_mod,
         "Maximum": K.elementwise("maximum"), "Minimum": K.elementwise("minimum"), "Neg": K.elementwise("negative"),
         "Less": K.elementwise("less"), "Prod": K.reducer("prod"), "Sum": K.reducer("sum"), "Max": K.reducer("max"),
         "Min": K.reducer("min"), "GatherV2": K.gather_v2, "InvertPermutation": K.invert_permutation,
         "Tile": K.tile, "ConcatOffset": K.concat_offset, "DynamicStitch": K.dynamic_stitch,
         "ParallelDynamicStitch": K.dynamic_stitch, "DynamicPartition": K.dynamic_partition,
         "BroadcastGradientArgs": K.broadcast_gradient_args, "Identity": K.identity, "ShapeN": K.shape_n,
         "Select": K.select, "SelectV2": K.select_v2, "SparseReshape": STK.sparse_reshape,
         "BroadcastArgs": BA.kernel, "Equal": K.elementwise("equal")}
_MAX_FOLD = 1000  # elements: larger tensors are not folded (TF's limit is of the same kind)
_folded = weakref.WeakKeyDictionary()
_UNKNOWN = object()


def static_value(tensor):
    """What shape inference knows of ``tensor``'s value: ``constant_value``, or else the value of a
    small integer op computed from inputs that are themselves known (a Pack of Consts, a
    StridedSlice of a static Shape...), by running its kernel on the host, as TensorFlow's shape
    inference evaluates such subgraphs. None when unknown."""
    value = constant_value(tensor)
    if value is not None or not isinstance(tensor, Tensor):
        return value
    op = tensor.op
    if op.type not in _FOLD or not (tensor.dtype.is_integer or tensor.dtype.base_dtype.name == "bool"):
        return None
    cached = _folded.get(tensor)
    if cached is not None:
        return None if cached is _UNKNOWN else cached
    _folded[tensor] = _UNKNOWN  # also guards against cycles
    inputs = [static_value(t) for t in op.inputs]
    if any(v is None or np.size(v) > _MAX_FOLD for v in inputs):
        return None
    try:
        out = _FOLD[op.type](_HostContext(op), *[np.asarray(v) for v in inputs])
    except Exception:  # noqa: BLE001 - a value the kernel rejects is simply not known statically
        return None
    value = np.asarray(out[tensor.value_index] if isinstance(out, (list, tuple)) else out)
    _folded[tensor] = value
    return value


class _HostContext:
    """The kernel context of a constant fold: numpy, the op's attrs, no output buffer."""
    xp = np
    out = None

    def __init__(self, op):
        self.attrs = op.attrs
        self.op_name = op.name

    def matmul(self, a, b):
        return np.matmul(a, b)


def constant_value_as_shape(tensor):
    """The shape a shape-valued tensor (a Reshape's ``shape`` input) denotes: a list of dims with
    None where a dim is unknown (-1 is unknown too), or None when even its length is unknown."""
    value = static_value(tensor)
    if value is not None:
        return [None if d < 0 else int(d) for d in np.asarray(value).reshape(-1)]
    if not isinstance(tensor, Tensor):  # a description of an input (a graph being loaded): its length only
        length = tensor.shape.sizes[0] if tensor.shape.sizes else None
        return None if length is None else [None] * length
    op = tensor.op
    if op.type == "Shape":
        return op.inputs[0].shape.sizes and list(op.inputs[0].shape.sizes)
    if op.type == "ShapeN":
        dims = op.inputs[tensor.value_index].shape.sizes
        return dims and list(dims)
    if op.type == "VariableShape":  # the declared shape of the variable behind the handle (TF's handle data)
        t, hops = op.inputs[0], 0
        while t.op.type != "VarHandleOp" and t.op.inputs and hops < 64:
            t, hops = t.op.inputs[0], hops + 1
        shape = t.op.attrs.get("shape") if t.op.type == "VarHandleOp" else None
        if shape is not None:
            return list(shape)
    if op.type == "Pack":
        dims = []
        for t in op.inputs:
            v = static_value(t)
            dims.append(None if v is None or int(v) < 0 else int(v))
        return dims
    if op.type == "ConcatV2":
        dims = []
        for t in op.inputs[:-1]:
            part = constant_value_as_shape(t)
            if part is None:
                return None
            dims.extend(part)
        return dims
    length = tensor.shape.sizes[0] if tensor.shape.sizes else None
    return None if length is None else [None] * length


def static_ints(value):
    """A Python list of ints from a Python value or a tensor with a constant value, else None."""
    if isinstance(value, Tensor):
        value = constant_value(value)
        if value is None:
            return None
    return [int(v) for v in np.asarray(value).reshape(-1)]
