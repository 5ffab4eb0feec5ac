"""Turning Python values into tensors and adding an op of the table to the graph.

``apply_op`` is the one place an op is created: it checks the inputs against TF's OpDef
(``validate.py``: types, list lengths, attr minimums, input ranks), runs the op's shape rule
(raising TF's ValueError with the node description), colocates ops that take a variable by
reference with that variable (TF's ``_MaybeColocateWith``), then asks the graph. Nothing is added
to the graph until every check has passed.
"""
import contextlib

import numpy as np

from ..framework import dtypes
from ..framework.composite_tensor import CompositeTensor
from ..framework.dimension import Dimension
from ..framework.graph import get_default_graph
from ..framework.indexed_slices import IndexedSlices
from ..framework.operation import Operation
from ..framework.scopes import name_scope
from ..framework.tensor import Tensor
from ..framework.traceable import user_location
from . import allocation, op_defs, tensor_conversion, validate
from .recorded import OP_DEFS
from .validate import make_int
from .shapes import ShapeError
from .tensor_util import static_value
from .table import lookup


def convert_to_tensor(value, dtype=None, name=None, as_ref=False, preferred_dtype=None):
    """A Tensor for ``value``: tensors pass through, variables give their value (or their
    reference with ``as_ref``), anything else becomes a ``Const``."""
    if type(value) is Tensor and dtype is None:
        return value  # the common case, first: every op converts each of its inputs
    dtype = None if dtype is None else dtypes.as_dtype(dtype)
    if isinstance(value, IndexedSlices):
        return _indexed_slices_to_tensor(value, dtype, name)
    if hasattr(type(value), "__tf_tensor__"):  # TF 2.x's TensorProtocol: the object converts itself
        return value.__tf_tensor__(dtype, name)
    if tensor_conversion.registered() and not isinstance(value, Tensor):
        converted = tensor_conversion.convert_registered(value, dtype, name, as_ref, Tensor)
        if converted is not None:
            return converted
    if hasattr(value, "_to_tensor"):
        value = value._to_tensor(as_ref=as_ref)
    if isinstance(value, Operation):
        raise TypeError(f"can't convert Operation '{value.name}' to Tensor")
    if isinstance(value, (list, tuple)) and _holds_tensors(value):
        return _autopack(value, dtype, name or "packed")
    if isinstance(value, Tensor):
        if dtype is not None and value.dtype.base_dtype != dtype.base_dtype:
            prefix = "" if name is None else f"{name}: "  # TF names the argument being converted
            raise ValueError(f"{prefix}Tensor conversion requested dtype {dtype.name} for Tensor with dtype "
                             f"{value.dtype.name}: {value!r}")
        return value
    if dtype is None and preferred_dtype is not None and _fits(value, dtypes.as_dtype(preferred_dtype)):
        try:
            return constant(value, dtype=preferred_dtype, name=name or "Const")
        except (TypeError, ValueError):
            pass
    return constant(value, dtype=dtype, name=name or "Const")


def convert_to_tensor_or_composite(value, dtype=None, name=None):
    """TF's ``convert_to_tensor_or_composite``: a composite tensor (SparseTensor, IndexedSlices, a
    user's CompositeTensor) as it is, after TF's dtype check; anything else as ``convert_to_tensor``
    makes it, where a registered conversion function may also return a composite."""
    dtype = None if dtype is None else dtypes.as_dtype(dtype)
    if isinstance(value, CompositeTensor):
        value_dtype = getattr(value, "dtype", None)
        if dtype is not None and not dtype.is_compatible_with(value_dtype):
            raise ValueError(f"Tensor conversion dtype mismatch. Requested dtype is {dtype.name}, Tensor has dtype "
                             f"{value_dtype.name}: {value!r}")
        return value
    if tensor_conversion.registered() and not isinstance(value, Tensor):
        converted = tensor_conversion.convert_registered(value, dtype, name, False, (Tensor, CompositeTensor))
        if converted is not None:
            return converted
    return convert_to_tensor(value, dtype=dtype, name=name)


def _fits(value, dtype):
    """Whether Python or numpy integers in ``value`` fit ``dtype`` (else TF skips a preferred int32)."""
    if not dtype.is_integer:
        return True
    info = np.iinfo(dtype.base_dtype.as_numpy_dtype)
    if type(value) is int:  # the common cases first: an int, a short list of ints
        return info.min <= value <= info.max
    if type(value) in (list, tuple) and value and all(type(v) is int for v in value):
        return info.min <= min(value) and max(value) <= info.max
    try:
        arr = np.asarray(value)
    except (ValueError, OverflowError):
        return True
    if arr.dtype.kind not in "iu" or not arr.size:
        return True
    return info.min <= int(arr.min()) and int(arr.max()) <= info.max


def _tensor_like(v):
    """A tensor, a variable, or an object that converts itself (``__tf_tensor__``)."""
    return isinstance(v, Tensor) or hasattr(v, "_to_tensor") or hasattr(type(v), "__tf_tensor__")


def _holds_tensors(values):
    return any(_tensor_like(v) or (isinstance(v, (list, tuple)) and _holds_tensors(v)) for v in values)


def _autopack(values, dtype, name):
    """A list holding tensors becomes one ``Pack`` op (TF's autopacking): ``tf.reshape(x, [-1, n])``
    with a tensor ``n`` makes ``Reshape/shape`` a Pack of ``Reshape/shape/0`` (a Const) and n."""
    with name_scope(name) as scope:
        parts = [convert_to_tensor(v, dtype=dtype) if _tensor_like(v) else
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
    if value is None:
        raise ValueError("None values not supported.")
    try:
        arr = np.asarray(value)
    except OverflowError:
        arr = np.asarray(value, dtype=object)
    if arr.dtype.kind == "S" and not isinstance(value, np.ndarray):
        arr = np.asarray(value, dtype=object)  # numpy's bytes dtype drops trailing NUL bytes; TF keeps them
        if dtype is None:
            return arr
    if arr.dtype == object and not all(isinstance(v, (str, bytes)) for v in arr.reshape(-1).tolist()):
        raise TypeError(f"Failed to convert elements of {value} to Tensor. Consider casting elements to a supported "
                        "type. See https://www.tensorflow.org/api_docs/python/tf/dtypes for supported TF dtypes.")
    if dtype is None:
        return arr.astype(dtypes.infer_dtype(value).as_numpy_dtype, copy=False)
    target = dtype.base_dtype.as_numpy_dtype
    if arr.dtype.kind in "USO" and dtype.base_dtype != dtypes.string and arr.size:
        try:  # numpy's strings of numbers convert (as in TF); Python's strings never do
            if not isinstance(value, np.ndarray) or arr.dtype.kind == "O":
                raise ValueError(value)
            return arr.astype(target)
        except (ValueError, TypeError, OverflowError):
            raise _mismatch(value, dtype, lambda v: isinstance(v, (str, bytes))) from None
    if dtype.base_dtype == dtypes.string and arr.dtype.kind not in "USO" and arr.size:
        raise _mismatch(value, dtype, lambda v: not isinstance(v, (str, bytes)))
    if dtype.is_integer and arr.dtype.kind == "f" and arr.size and (
            not isinstance(value, (np.ndarray, np.generic)) or not np.all(np.mod(arr, 1) == 0)):
        raise _mismatch(value, dtype, lambda v: isinstance(v, float))
    if dtype.is_bool != (arr.dtype == np.bool_) and arr.size:
        raise _mismatch(value, dtype, lambda v: isinstance(v, (bool, np.bool_)) != dtype.is_bool)
    return arr.astype(target)


def _mismatch(value, dtype, bad):
    """TF's TypeError for a Python value that is not of ``dtype``: it names the first element that
    is not (``bad``), or the value itself."""
    leaf = _first(value, bad)
    leaf = value if leaf is _NONE else leaf
    shown = leaf if isinstance(leaf, (str, bytes, int, float)) else repr(leaf)
    return TypeError(f"Expected {dtype.name}, but got {shown} of type '{type(leaf).__name__}'.")


def _first(value, bad):
    if isinstance(value, (list, tuple)):
        for v in value:
            found = _first(v, bad)
            if found is not _NONE:
                return found
        return _NONE if value else value
    return value if bad(value) else _NONE


_NONE = object()


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
        shape = tuple(make_int(d, "shape") for d in (shape if isinstance(shape, (list, tuple, np.ndarray)) else [shape]))
        if verify_shape and arr.shape != shape:
            raise TypeError(f"Expected Tensor's shape: {shape}, but got {arr.shape}.")
        size = int(np.prod(shape, dtype=object))
        if arr.size == 1 and size >= 0 and allocation.nbytes(shape, arr.dtype) > allocation.ALWAYS_FINE:
            arr = np.broadcast_to(arr.reshape(()), shape)  # a huge constant: one value, read only, never copied
        elif arr.size == 1 and size >= 0:
            arr = np.full(shape, arr.reshape(()), dtype=arr.dtype)
        elif arr.size == size:
            arr = arr.reshape(shape)
        elif arr.size > size:
            raise ValueError(f"Too many elements provided. Takes at most {size}, but got {arr.size}.")
        else:  # TF1's tf.constant: too few values are filled out with the last one (none: zeros)
            flat = arr.reshape(-1)
            fill = flat[-1] if flat.size else np.zeros((), arr.dtype)
            arr = np.concatenate([flat, np.full(size - flat.size, fill, dtype=arr.dtype)]).reshape(shape)
    if arr.dtype.kind in "OUS":  # string tensors hold bytes, as TensorFlow's do
        arr, dt = _as_bytes(arr), dtypes.string
    else:
        dt = dtypes.as_dtype(arr.dtype)
    return apply_op_output("Const", [], {"value": arr, "dtype": dt}, name)


def _as_bytes(arr):
    if arr.size > 1 and not any(arr.strides):  # one value broadcast to a huge shape: encode it once
        return np.broadcast_to(_as_bytes(arr.reshape(-1)[:1].copy()).reshape(()), arr.shape)
    flat = [v if isinstance(v, bytes) else str(v).encode() for v in arr.reshape(-1)]
    out = np.empty(len(flat), dtype=object)
    out[:] = flat
    return out.reshape(arr.shape)


def op(op_type, name, inputs, attrs=None, default_name=None):
    """One op of the table as TF's generated wrappers build it: inside the scope ``name`` (default:
    the op type), each input that is not yet a tensor becomes a Const named after its argument.
    ``inputs`` is a list of (argument name, value, dtype or None). Returns the Operation."""
    with name_scope(name, default_name or op_type, [v for _, v, _ in inputs]) as scope:
        tensors = [convert_input(op_type, arg, v, dt) for arg, v, dt in inputs]
        return apply_op(op_type, tensors, attrs, scope)


def convert_input(op_type, arg, value, dtype):
    """An argument as TF's op-def layer converts it: to the type the OpDef fixes for it, or, for an
    argument whose type is an attr, to ``dtype`` if it can be, else to the type of the value
    itself, which ``apply_op`` then checks against the attr's allowed types."""
    if dtype is None or isinstance(value, Tensor) or _fixed_type(op_type, arg):
        return convert_to_tensor(value, dtype=dtype, name=arg)
    return convert_to_tensor(value, preferred_dtype=dtype, name=arg)


def _fixed_type(op_type, arg):
    op_def = OP_DEFS.get(op_type) or {}
    return any(a["name"] == arg and "type" in a for a in op_def.get("inputs", ()))


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
    name = (name.decode() if isinstance(name, bytes) else name) or op_type  # TF's compat.as_str
    if inputs:  # TF's type attrs (T, Tidx, Tshape...): its kernels, so placements, are chosen by them
        derived = op_defs.type_attrs(op_type, inputs, attrs)
        if derived is not None:
            for key, dtype in derived.items():
                attrs.setdefault(key, dtype)
        elif "T" not in attrs and opdef.type_input is not None:  # devlab's own ops
            attrs["T"] = inputs[opdef.type_input].dtype.base_dtype
    try:
        validate.check(op_type, inputs, attrs)  # the OpDef's types, list lengths and input ranks
        if opdef.args and len(inputs) > 1:
            _check_same_dtype(opdef, inputs)
        specs = opdef.shape(inputs, attrs)
    except ShapeError as e:
        node = name[:-1] if name.endswith("/") else graph.unique_name(name, mark_as_used=False)
        raise ValueError(_describe(e, node, op_type, inputs, attrs)) from None
    colocated = opdef.ref_inputs if opdef.colocated_refs is None else opdef.colocated_refs
    refs = [inputs[i] for i in colocated if i < len(inputs) and inputs[i].dtype.is_ref] if colocated else ()
    if graph._get_control_flow_context() is not None and op_type != "Const":
        # TF makes an op inside its own name scope (not a constant: tf.constant creates its op
        # directly, so what a loop adds for it is named in the enclosing scope: ``Less/Identity``), so the Switch or Enter that a tf.cond or
        # tf.while_loop adds for one of its inputs is named under it (``cond/read/Switch``).
        with graph.name_scope(name) as scope:
            return _create(graph, op_type, inputs, specs, scope, attrs, refs)
    return _create(graph, op_type, inputs, specs, name, attrs, refs)


def _create(graph, op_type, inputs, specs, name, attrs, refs):
    if not refs:
        return graph.create_op(op_type, list(inputs), specs, name=name, attrs=attrs)
    # TF's _MaybeColocateWith: an op that writes a variable is made inside colocate_with of each
    # of its ref inputs in turn, so the innermost (the last) one that has a device gives its own
    # (an Apply* op takes its slot's device, which may differ from the variable's)
    with contextlib.ExitStack() as stack:
        for ref in refs:
            stack.enter_context(graph.colocate_with(ref.op))
        return graph.create_op(op_type, list(inputs), specs, name=name, attrs=attrs)


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


def _describe(error, node, op_type, inputs, attrs):
    """TF's shape-error text: the reason, the node with its attrs, its inputs' shapes, the values
    of the inputs the shape rule read (``error.computed``) and the user's line."""
    shapes = ", ".join("?" if t.shape.sizes is None else
                       "[" + ",".join("?" if d is None else str(d) for d in t.shape.sizes) + "]" for t in inputs)
    args = ", ".join(t.op.name for t in inputs)
    computed = [(i, static_value(inputs[i])) for i in getattr(error, "computed", ()) if i < len(inputs)]
    computed = [f"input[{i}] = <{_value_text(v)}>" for i, v in computed if v is not None]
    filename, lineno = user_location()
    return (f"{error} for '{{{{node {node}}}}} = {op_type}[{_attrs_text(op_type, inputs, attrs)}]({args})' "
            f"with input shapes: {shapes}{' and with computed input tensors: ' + ', '.join(computed) if computed else ''}"
            f".\n  (op '{node}' defined at {filename}:{lineno})")


def _attrs_text(op_type, inputs, attrs):
    """The node's attrs as TF prints them: every attr of TF's OpDef, sorted, defaults included."""
    op_def = OP_DEFS.get(op_type)
    if op_def is None:
        return f"T={_enum(inputs[0].dtype)}" if inputs else ""
    parts = []
    for attr in sorted(op_def.get("attrs", ()), key=lambda a: a["name"]):
        key = attr["name"]
        value = attrs.get(key)
        value = attr.get("default") if value is None else value
        if value is None:
            continue
        parts.append(f"{key}={_attr_text(value, attr['type'])}")
    return ", ".join(parts)


def _attr_text(value, kind):
    if kind == "type":
        return _enum(value)
    if kind == "bool":
        return "true" if value else "false"
    if kind == "list(int)":
        return "[" + ", ".join(str(int(v)) for v in value) + "]"
    if kind == "string":
        return f'"{value.decode() if isinstance(value, bytes) else value}"'
    if kind == "float":
        return f"{float(value):g}"
    if kind == "shape":  # TF's: [2,?,3], or <unknown> for an unknown rank
        return "<unknown>" if value is None else "[" + ",".join("?" if d is None else str(d) for d in value) + "]"
    return str(value)


def _enum(dtype):
    name = dtypes.as_dtype(dtype).base_dtype.name
    return _TF_TYPE_ENUM.get(name, "DT_" + name.upper())


def _value_text(value):
    """A small constant as TF's shape errors print it: up to ten numbers, space separated."""
    flat = np.asarray(value).reshape(-1)
    text = " ".join(f"{v:.9g}" if isinstance(v, float) else str(v) for v in flat[:10].tolist())
    return text + ("..." if flat.size > 10 else "")


_TF_TYPE_ENUM = {"float16": "DT_HALF", "float32": "DT_FLOAT", "float64": "DT_DOUBLE", "int8": "DT_INT8",
                 "int16": "DT_INT16", "int32": "DT_INT32", "int64": "DT_INT64", "uint8": "DT_UINT8",
                 "bool": "DT_BOOL", "string": "DT_STRING"}
