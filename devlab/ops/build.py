"""Turning Python values into tensors and adding an op of the table to the graph.

``apply_op`` is the one place an op is created: it checks the input dtypes, runs the op's
shape rule (raising TF's ValueError with the node description), colocates ops that take a
variable by reference with that variable (TF's ``_MaybeColocateWith``), then asks the graph.
"""
import numpy as np

from ..framework import dtypes
from ..framework.dimension import Dimension
from ..framework.graph import get_default_graph
from ..framework.indexed_slices import IndexedSlices
from ..framework.scopes import name_scope
from ..framework.tensor import Tensor
from ..framework.traceable import user_location
from . import op_defs
from .shapes import ShapeError
from .table import lookup


def convert_to_tensor(value, dtype=None, name=None, as_ref=False, preferred_dtype=None):
    """A Tensor for ``value``: tensors pass through, variables give their value (or their
    reference with ``as_ref``), anything else becomes a ``Const``."""
    if type(value) is Tensor and dtype is None:
        return value  # the common case, first: every op converts each of its inputs
    dtype = None if dtype is None else dtypes.as_dtype(dtype)
    if isinstance(value, IndexedSlices):
        return _indexed_slices_to_tensor(value, dtype, name)
    if hasattr(value, "_to_tensor"):
        value = value._to_tensor(as_ref=as_ref)
    if isinstance(value, (list, tuple)) and _holds_tensors(value):
        return _autopack(value, dtype, name or "packed")
    if isinstance(value, Tensor):
        if dtype is not None and value.dtype.base_dtype != dtype.base_dtype:
            raise ValueError(f"Tensor conversion requested dtype {dtype.name} for Tensor with dtype "
                             f"{value.dtype.name}: {value!r}")
        return value
    if dtype is None and preferred_dtype is not None:
        try:
            return constant(value, dtype=preferred_dtype, name=name or "Const")
        except (TypeError, ValueError):
            pass
    return constant(value, dtype=dtype, name=name or "Const")


def _holds_tensors(values):
    return any(isinstance(v, Tensor) or hasattr(v, "_to_tensor") or
               (isinstance(v, (list, tuple)) and _holds_tensors(v)) for v in values)


def _autopack(values, dtype, name):
    """A list holding tensors becomes one ``Pack`` op (TF's autopacking): ``tf.reshape(x, [-1, n])``
    with a tensor ``n`` makes ``Reshape/shape`` a Pack of ``Reshape/shape/0`` (a Const) and n."""
    with name_scope(name) as scope:
        parts = [convert_to_tensor(v, dtype=dtype) if isinstance(v, Tensor) or hasattr(v, "_to_tensor") else
                 _autopack(v, dtype, str(i)) if isinstance(v, (list, tuple)) and _holds_tensors(v) else v
                 for i, v in enumerate(values)]
        if dtype is None:
            dtype = next(p.dtype.base_dtype for p in parts if isinstance(p, Tensor))
        tensors = [p if isinstance(p, Tensor) else constant(p, dtype=dtype, name=str(i)) for i, p in enumerate(parts)]
        return apply_op_output("Pack", tensors, {"axis": 0, "N": len(tensors)}, scope)


def to_numpy(value, dtype):
    """``value`` as a numpy array of ``dtype``, with TF's TypeError for a lossy conversion."""
    if _holds_dimensions(value):  # tf.reshape(x, [-1, x.shape[1] * x.shape[2]]): sizes, given an int dtype
        if dtype is None or not dtype.is_integer or not isinstance(value, (list, tuple)) \
                or not _known(value):
            raise TypeError(f"Failed to convert elements of {value} to Tensor. Consider casting elements to a "
                            "supported type. See https://www.tensorflow.org/api_docs/python/tf/dtypes for "
                            "supported TF dtypes.")
        value = _sizes(value)
    arr = np.asarray(value)
    if arr.dtype.kind == "S" and not isinstance(value, np.ndarray):
        arr = np.asarray(value, dtype=object)  # numpy's bytes dtype drops trailing NUL bytes; TF keeps them
        if dtype is None:
            return arr
    if dtype is None:
        return arr.astype(dtypes.infer_dtype(value).as_numpy_dtype, copy=False)
    target = dtype.base_dtype.as_numpy_dtype
    if dtype.is_integer and arr.dtype.kind == "f" and not np.all(np.mod(arr, 1) == 0):
        raise TypeError(f"Expected {dtype.name}, but got {value!r} of type '{type(value).__name__}'.")
    if dtype.is_bool != (arr.dtype == np.bool_) and arr.size:
        raise TypeError(f"Expected {dtype.name}, but got {value!r} of type '{type(value).__name__}'.")
    return arr.astype(target)


def _holds_dimensions(value):
    if isinstance(value, Dimension):
        return True
    return isinstance(value, (list, tuple)) and any(_holds_dimensions(v) for v in value)


def _known(value):
    if isinstance(value, Dimension):
        return value.value is not None
    return not isinstance(value, (list, tuple)) or all(_known(v) for v in value)


def _sizes(value):
    if isinstance(value, Dimension):
        return value.value
    return [_sizes(v) for v in value] if isinstance(value, (list, tuple)) else value


def _indexed_slices_to_tensor(value, dtype, name):
    """The dense tensor of an IndexedSlices: its rows added up where they belong (TF's
    conversion: one UnsortedSegmentSum over ``dense_shape[0]`` rows)."""
    if dtype is not None and dtype.base_dtype != value.dtype.base_dtype:
        raise ValueError(f"Tensor conversion requested dtype {dtype.name} for IndexedSlices with dtype "
                         f"{value.dtype.name}")
    if value.dense_shape is None:
        raise ValueError(f"Tensor conversion requested for IndexedSlices without dense_shape: {value}")
    return op_output("UnsortedSegmentSum", name, [("data", value.values, None), ("segment_ids", value.indices, None),
                                                  ("num_segments", value.dense_shape[0], None)])


def constant(value, dtype=None, shape=None, name="Const", verify_shape=False):
    """A ``Const`` op holding ``value`` (reshaped or broadcast to ``shape`` when given)."""
    dtype = None if dtype is None else dtypes.as_dtype(dtype)
    arr = to_numpy(value, dtype)
    if shape is not None:
        shape = tuple(int(d) for d in (shape if isinstance(shape, (list, tuple)) else [shape]))
        size = int(np.prod(shape, dtype=np.int64))
        if arr.size == 1:
            arr = np.full(shape, arr.reshape(()), dtype=arr.dtype)
        elif arr.size == size:
            arr = arr.reshape(shape)
        elif arr.size > size:
            raise TypeError(f"Too many elements provided. Needed at most {size}, but received {arr.size}")
        else:
            raise TypeError(f"Expected Tensor's shape: {shape}, but got {arr.shape}.")
    if arr.dtype.kind in "OUS":  # string tensors hold bytes, as TensorFlow's do
        arr, dt = _as_bytes(arr), dtypes.string
    else:
        dt = dtypes.as_dtype(arr.dtype)
    return apply_op_output("Const", [], {"value": arr, "dtype": dt}, name)


def _as_bytes(arr):
    flat = [v if isinstance(v, bytes) else str(v).encode() for v in arr.reshape(-1)]
    out = np.empty(len(flat), dtype=object)
    out[:] = flat
    return out.reshape(arr.shape)


def op(op_type, name, inputs, attrs=None, default_name=None):
    """One op of the table as TF's generated wrappers build it: inside the scope ``name`` (default:
    the op type), each input that is not yet a tensor becomes a Const named after its argument.
    ``inputs`` is a list of (argument name, value, dtype or None). Returns the Operation."""
    with name_scope(name, default_name or op_type, [v for _, v, _ in inputs]) as scope:
        tensors = [convert_to_tensor(v, dtype=dt, name=arg) for arg, v, dt in inputs]
        return apply_op(op_type, tensors, attrs, scope)


def op_output(op_type, name, inputs, attrs=None, default_name=None):
    return op(op_type, name, inputs, attrs, default_name).outputs[0]


def graph_of(tensors):
    for t in tensors:
        if isinstance(t, Tensor):
            return t.op.graph
    return get_default_graph()


def apply_op(op_type, inputs, attrs=None, name=None):
    """Creates one op of the table, returning the Operation."""
    opdef = lookup(op_type)
    attrs = dict(attrs) if attrs else {}
    graph = inputs[0].op.graph if inputs else get_default_graph()
    name = name or op_type
    if opdef.args and len(inputs) > 1:
        _check_same_dtype(opdef, inputs)
    try:
        specs = opdef.shape(inputs, attrs)
    except ShapeError as e:
        node = name[:-1] if name.endswith("/") else graph.unique_name(name, mark_as_used=False)
        raise ValueError(_describe(e, node, op_type, inputs)) from None
    if inputs:  # TF's type attrs (T, Tidx, Tshape...): its kernels, so placements, are chosen by them
        derived = op_defs.type_attrs(op_type, inputs, attrs)
        if derived is not None:
            for key, dtype in derived.items():
                attrs.setdefault(key, dtype)
        elif "T" not in attrs and opdef.type_input is not None:  # devlab's own ops
            attrs["T"] = inputs[opdef.type_input].dtype.base_dtype
    refs = [inputs[i] for i in opdef.ref_inputs if i < len(inputs) and inputs[i].dtype.is_ref] \
        if opdef.ref_inputs else ()
    if graph._get_control_flow_context() is not None:
        # TF makes an op inside its own name scope, so the Switch or Enter that a tf.cond or
        # tf.while_loop adds for one of its inputs is named under it (``cond/read/Switch``).
        with graph.name_scope(name) as scope:
            return _create(graph, op_type, inputs, specs, scope, attrs, refs)
    return _create(graph, op_type, inputs, specs, name, attrs, refs)


def _create(graph, op_type, inputs, specs, name, attrs, refs):
    if not refs:
        return graph.create_op(op_type, list(inputs), specs, name, attrs)
    with graph.colocate_with(refs[0].op):  # TF's _MaybeColocateWith: an op that writes a variable
        return graph.create_op(op_type, list(inputs), specs, name, attrs)


def apply_op_output(op_type, inputs, attrs=None, name=None):
    """Creates the op and returns its only output."""
    return apply_op(op_type, inputs, attrs, name).outputs[0]


def _check_same_dtype(opdef, inputs):
    first = inputs[0].dtype.base_dtype
    for i, t in enumerate(inputs[1:], start=1):
        if t.dtype.base_dtype != first:
            arg = opdef.args[min(i, len(opdef.args) - 1)]
            if len(opdef.args) == 1:
                raise TypeError(f"Tensors in list passed to '{arg}' of '{opdef.type}' Op have types "
                                f"[{', '.join(x.dtype.base_dtype.name for x in inputs)}] that don't all match.")
            raise TypeError(f"Input '{arg}' of '{opdef.type}' Op has type {t.dtype.base_dtype.name} that "
                            f"does not match type {first.name} of argument '{opdef.args[0]}'.")


def _describe(error, node, op_type, inputs):
    """TF's shape-error text: the reason, the node, its inputs' shapes and the user's line."""
    shapes = ", ".join("?" if t.shape.sizes is None else
                       "[" + ",".join("?" if d is None else str(d) for d in t.shape.sizes) + "]" for t in inputs)
    args = ", ".join(t.op.name for t in inputs)
    dtype = f"T={_TF_TYPE_ENUM.get(inputs[0].dtype.base_dtype.name, 'DT_INVALID')}" if inputs else ""
    filename, lineno = user_location()
    return (f"{error} for '{{{{node {node}}}}} = {op_type}[{dtype}]({args})' with input shapes: {shapes}.\n"
            f"  (op '{node}' defined at {filename}:{lineno})")


_TF_TYPE_ENUM = {"float16": "DT_HALF", "float32": "DT_FLOAT", "float64": "DT_DOUBLE", "int8": "DT_INT8",
                 "int16": "DT_INT16", "int32": "DT_INT32", "int64": "DT_INT64", "uint8": "DT_UINT8",
                 "bool": "DT_BOOL", "string": "DT_STRING"}
