"""``Operation`` (a node of the graph) and ``NodeDef`` (its serialisable description)."""
import re
from types import MappingProxyType

from . import attr_value
from .device_spec import DeviceSpecV2
from .dtypes import DType
from .tensor import Tensor

_VALID_OP_NAME = re.compile(r"^[A-Za-z0-9.][A-Za-z0-9_.\\/>-]*$")  # TF's _VALID_OP_NAME_REGEX


class NodeDef:
    """A node as TensorFlow serialises it: name, op type, inputs, requested device and attrs.

    Device functions receive the Operation; seed 001's ``op.node_def.op`` reads the type here.
    """

    def __init__(self, name="", op="", input=(), device="", attr=None):  # noqa: A002 - proto field
        self.name = name
        self.op = op
        self.input = list(input)
        self.device = device
        self.attr = dict(attr or {})

    def __eq__(self, other):
        return isinstance(other, NodeDef) and vars(self) == vars(other)

    def __repr__(self):
        dev = f", device={self.device!r}" if self.device else ""
        return f"NodeDef(name={self.name!r}, op={self.op!r}, input={self.input!r}{dev})"

    def __str__(self):
        """Protobuf text format, as ``str()`` of TF's NodeDef prints (scalar and dtype attrs in
        their fields; any other attr value as its Python repr in ``s``)."""
        lines = [f'name: "{self.name}"', f'op: "{self.op}"']
        lines += [f'input: "{i}"' for i in self.input]
        if self.device:
            lines.append(f'device: "{self.device}"')
        for key in sorted(self.attr):
            lines += ["attr {", f'  key: "{key}"', "  value {", f"    {_attr_text(self.attr[key])}", "  }", "}"]
        return "\n".join(lines) + "\n"


def _attr_text(value):
    if isinstance(value, DType):
        return f"type: DT_{value.base_dtype.name.upper().replace('FLOAT32', 'FLOAT').replace('FLOAT64', 'DOUBLE')}"
    if isinstance(value, bool):
        return f"b: {str(value).lower()}"
    if isinstance(value, int):
        return f"i: {value}"
    if isinstance(value, float):
        return f"f: {value}"
    text = value.decode(errors="replace") if isinstance(value, bytes) else str(value) if isinstance(value, str) \
        else repr(value)
    return 's: "' + text.replace('"', '\\"') + '"'


def _shape_text(shape):
    """A shape as TF's C++ prints it: ``[2,?]``, or ``?`` for an unknown rank."""
    return "?" if shape.sizes is None else "[" + ",".join("?" if d is None else str(d) for d in shape.sizes) + "]"


def _NodeDef(op_type, name, attrs=None):  # noqa: N802 - TF's private name, which TF's tests use
    """TF's ``ops._NodeDef``: a NodeDef of ``op_type`` named ``name`` (``attrs``: {name: value})."""
    return NodeDef(name=name, op=op_type, attr=attrs)


_NO_COLOCATION = {}  # shared by ops made outside any colocate_with (never mutated)


class Operation:
    """One node: its type, inputs, outputs, attrs, requested device and where it came from.

    ``device`` is the *requested* device after scopes, device functions and colocation were
    applied at creation; the placer later picks the actual device (``Session`` records it).
    """

    __slots__ = ("graph", "name", "type", "_inputs", "_outputs", "_attrs", "_control_inputs", "_device",
                 "traceback", "device_code_locations", "colocation_code_locations", "id", "control_flow_context",
                 "_original_op", "__weakref__")

    def __init__(self, graph, name, op_type, inputs, output_specs, attrs, control_inputs, traceback):
        self.graph = graph
        self.name = name
        self.type = op_type
        self._inputs = tuple(inputs)
        self._outputs = tuple(Tensor(self, i, dt, shape) for i, (dt, shape) in enumerate(output_specs))
        self._attrs = dict(attrs)
        self._control_inputs = tuple(control_inputs) if control_inputs else ()  # most ops share the empty one
        self._device = ""
        self.traceback = traceback  # (filename, lineno) of the user's line that created the op
        self.device_code_locations = ()  # TraceableObjects, newest scope first
        self.colocation_code_locations = _NO_COLOCATION  # {colocated op name: TraceableObject}
        self.id = None  # set by the graph: creation order
        self.control_flow_context = None  # the tf.cond branch or tf.while_loop it was built in
        self._original_op = None  # the forward op a gradient op was built for (set by the graph)

    # -- structure -------------------------------------------------------------------------
    # Other layers read an op through these views, never its private fields (tests/test_layers.py).
    @property
    def inputs(self):
        """The input tensors, a tuple (``_update_input`` rewires one)."""
        return self._inputs

    @property
    def outputs(self):
        """The output tensors, a new list (as TF's)."""
        return list(self._outputs)

    def values(self):
        """The output tensors, a tuple (no copy)."""
        return self._outputs

    @property
    def control_inputs(self):
        """The ops this op runs after, a new list (as TF's)."""
        return list(self._control_inputs)

    def _add_control_input(self, op):
        """Makes this op run after ``op`` (TF's private API); ``op`` must be of the same graph."""
        self.graph._check_added_control_input(self, op)
        if op not in self._control_inputs:
            self._control_inputs = (*self._control_inputs, op)

    def _remove_control_inputs(self, ops):
        self._control_inputs = tuple(c for c in self._control_inputs if c not in ops)

    def _remove_all_control_inputs(self):
        self._control_inputs = ()

    @property
    def _control_outputs(self):
        """The ops that run after this one by a control edge (TF's private view), in graph order."""
        return [op for op in self.graph.get_operations() if self in op._control_inputs]

    def _update_input(self, index, tensor):
        """Rewires input ``index`` to ``tensor`` (tf.cond and tf.while_loop route inputs through
        the Switch or Enter ops they add after the op was made). TF's checks first: the index, the
        graph, and that the new shape fits the old (a dtype mismatch TF reports only at run time)."""
        from . import errors
        if not 0 <= index < len(self._inputs):
            raise errors.OutOfRangeError(None, self, f"Cannot update edge. Input index [{index}] is greater than "
                                                     f"the number of total inputs [{len(self._inputs)}].")
        if tensor.graph is not self.graph:
            raise ValueError(f"{tensor} must be from the same graph as {self} "
                             f"(graphs are {tensor.graph} and {self.graph}).")
        old = self._inputs[index]
        if not tensor.shape.is_compatible_with(old.shape):
            raise errors.InvalidArgumentError(None, self, "Cannot update edge, incompatible shapes: "
                                                          f"{_shape_text(tensor.shape)} and {_shape_text(old.shape)}.")
        # TF takes a tensor of another dtype and fails the runs of this op (Session.prepare checks)
        mistyped = self.graph._mistyped_inputs.setdefault(self, {})
        expected = mistyped.get(index, old.dtype)
        if tensor.dtype.base_dtype != expected.base_dtype:
            mistyped[index] = expected
        else:
            mistyped.pop(index, None)
        if not mistyped:
            del self.graph._mistyped_inputs[self]
        inputs = list(self._inputs)
        inputs[index] = tensor
        self._inputs = tuple(inputs)
        self.graph.control_edges_added += 1  # an edge changed: sessions place and plan again

    def _add_control_inputs(self, ops):
        for op in ops:
            self._add_control_input(op)

    @property
    def device(self):
        return self._device

    def _set_device(self, device):
        """Sets the requested device from a string (stored verbatim) or a DeviceSpec."""
        self._device = device.to_string() if isinstance(device, DeviceSpecV2) else device

    # -- attrs -------------------------------------------------------------------------------
    def get_attr(self, name):
        if name not in self._attrs:
            raise ValueError(f"Operation '{self.name}' has no attr named '{name}'.")
        return self._attrs[name]

    def _set_attr(self, name, value):
        """Sets attr ``name`` to ``value``: a Python value, or TF's ``AttrValue`` proto (kept as its value)."""
        self._attrs[name] = attr_value.to_python(value)

    def _clear_attr(self, name):
        """Removes attribute ``name`` (TF's ``Operation._clear_attr``)."""
        self._attrs.pop(name, None)

    @property
    def attrs(self):
        """The op's attributes, a read-only mapping (``_class`` holds its colocation groups)."""
        return MappingProxyType(self._attrs)

    def colocation_groups(self):
        """The ``loc:@name`` groups this op must share a device with (bytes, as TF returns)."""
        groups = [g for g in self._attrs.get("_class", []) if g.startswith(b"loc:@")]
        return groups or [f"loc:@{self.name}".encode()]

    # -- TF's private accessors that tests and tools read ------------------------------------
    @property
    def _device_assignments(self):
        return list(self.device_code_locations)

    @property
    def _colocation_dict(self):
        return dict(self.colocation_code_locations)

    @property
    def node_def(self):
        inputs = [t._as_node_def_input() for t in self._inputs]
        inputs += ["^" + op.name for op in self._control_inputs]
        return NodeDef(self.name, self.type, inputs, self._device, self._attrs)

    @classmethod
    def from_node_def(cls, node_def, g, inputs=None, output_types=None, control_inputs=None, input_types=None,
                      original_op=None, op_def=None):
        """TF's ``Operation.from_node_def``: an op of ``g`` with exactly the NodeDef's name, type,
        device and attrs (no name scope, device scope or uniquifying), TF's name check first."""
        if not _VALID_OP_NAME.match(node_def.name or ""):
            raise ValueError(f"`{node_def.name}` is not a valid node name. Accepted names conform to Regex "
                             f"/{_VALID_OP_NAME.pattern}/")
        if original_op is not None:
            raise NotImplementedError("Operation.from_node_def: devlab does not take original_op")
        op = g.create_op(node_def.op, list(inputs or ()), list(output_types or ()), input_types=input_types,
                         name=node_def.name + "/", attrs=node_def.attr, op_def=op_def, compute_device=False)
        op._set_device(node_def.device)
        for c in control_inputs or ():
            op._add_control_input(c)
        return op

    def run(self, feed_dict=None, session=None):
        from .default_session import get_default_session_or_raise
        (session or get_default_session_or_raise()).run(self, feed_dict)

    def __str__(self):
        """The op's NodeDef in protobuf text format, as ``str()`` of a TF op prints."""
        return str(self.node_def)

    def __repr__(self):
        return f"<tf.Operation {self.name!r} type={self.type}>"
