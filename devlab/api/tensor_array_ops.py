"""``tf.TensorArray`` in graph mode (TF's ``_GraphTensorArray``): one tensor per index, written and
read inside a ``tf.while_loop`` without growing a loop variable.

A TensorArray is a handle (``TensorArrayV3``, a resource) and a *flow*: a float scalar that every
write returns and every read takes, so the ops run in program order. The Python object is
immutable: ``write`` returns a new TensorArray with the new flow, and a while loop carries the
flow as its loop variable (``control_flow.py`` turns a TensorArray into its flow and back).

Placement, as in TF: the array is made with no device, then colocated with the first value
written to it (``colocate_with_first_write_call``); every op that takes the handle runs beside
the array (the placer's resource edges).
"""
import contextlib

from ..framework import dtypes
from ..framework.scopes import colocate_with, control_dependencies, device, name_scope
from ..framework.tensor import Tensor
from ..framework.tensor_shape import TensorShape, as_shape
from .array_ops import identity, op, op_output, range as range_, shape as shape_of
from ..ops.build import apply_op, convert_to_tensor
from ..ops.tensor_util import constant_value
from ..unimplemented import call as unimplemented_call


class TensorArray:
    """An array of tensors of one dtype, indexed by step (TF 1.x ``tf.TensorArray``)."""

    def __init__(self, dtype, size=None, dynamic_size=None, clear_after_read=None, tensor_array_name=None,
                 handle=None, flow=None, infer_shape=True, element_shape=None, colocate_with_first_write_call=True,
                 name=None):
        if handle is not None and tensor_array_name:
            raise ValueError("Cannot provide both `handle` and `tensor_array_name` arguments at the same time.")
        if handle is not None and not isinstance(handle, Tensor):
            raise TypeError(f"Expected `handle` to be a Tensor, but got `{handle}` of type `{type(handle)}` "
                            f"instead.")
        if handle is None and size is None:
            raise ValueError("Argument `size` must be provided if handle is not provided.")
        if handle is not None and size is not None:
            raise ValueError("Cannot provide both a `handle` and `size` arguments at the same time.")
        if handle is not None and element_shape is not None:
            raise ValueError("Cannot provide both `handle` and `element_shape` arguments at the same time.")
        self._dynamic_size = dynamic_size or False
        self._dtype = dtypes.as_dtype(dtype).base_dtype
        self._colocate_with_first_write_call = colocate_with_first_write_call
        self._colocate_with = [] if colocate_with_first_write_call else None
        self._element_shape = [as_shape(element_shape) if element_shape is not None else TensorShape(None)]
        self._infer_shape = infer_shape
        self._size = size
        with name_scope(name, "TensorArray", [handle, size, flow]) as scope:
            if handle is not None:
                if flow is None:
                    raise ValueError("flow must not be None if handle is not None.")
                self._handle, self._flow = handle, flow
                return
            attrs = {"dtype": self._dtype, "element_shape": self._element_shape[0].sizes,
                     "identical_element_shapes": infer_shape, "dynamic_size": self._dynamic_size,
                     "clear_after_read": True if clear_after_read is None else clear_after_read,
                     "tensor_array_name": tensor_array_name or ""}

            def create():
                return apply_op("TensorArrayV3", [convert_to_tensor(size, dtype=dtypes.int32, name="size")], attrs,
                                scope).outputs
            if colocate_with_first_write_call:  # no device yet: the first write decides
                with device(None), colocate_with(None, ignore_existing=True):
                    self._handle, self._flow = create()
            else:
                self._handle, self._flow = create()

    # -- what it is ----------------------------------------------------------------------------------
    @property
    def flow(self):
        return self._flow

    @property
    def dtype(self):
        return self._dtype

    @property
    def handle(self):
        return self._handle

    @property
    def element_shape(self):
        return self._element_shape[0]

    def _with_flow(self, flow):
        """This array with a new flow (TF's ``build_ta_with_new_flow``): the shape it learns is shared."""
        ta = TensorArray(self._dtype, handle=self._handle, flow=flow, infer_shape=self._infer_shape,
                         colocate_with_first_write_call=self._colocate_with_first_write_call)
        ta._dynamic_size, ta._size = self._dynamic_size, self._size
        ta._colocate_with, ta._element_shape = self._colocate_with, self._element_shape
        return ta

    def _check_element_shape(self, shape):
        if not shape.is_compatible_with(self.element_shape):
            raise ValueError(f"Inconsistent shapes: saw {shape} but expected {self.element_shape} ")
        if self._infer_shape:
            self._element_shape[0] = self.element_shape.merge_with(shape)

    @contextlib.contextmanager
    def _maybe_colocate_with(self, value):
        if not self._colocate_with_first_write_call:
            yield
            return
        if not self._colocate_with:
            self._colocate_with.append(value)
        with colocate_with(self._colocate_with[0]):
            yield

    # -- writing ---------------------------------------------------------------------------------------
    def write(self, index, value, name=None):
        """This array with ``value`` at ``index``."""
        with name_scope(name, "TensorArrayWrite", [self._handle, index, value]):
            value = convert_to_tensor(value, preferred_dtype=self._dtype, name="value")
            self._check_element_shape(value.shape)
            with self._maybe_colocate_with(value):
                flow_out = op_output("TensorArrayWriteV3", name, [("handle", self._handle, None),
                                                                  ("index", index, dtypes.int32),
                                                                  ("value", value, None), ("flow_in", self._flow, None)])
            return self._with_flow(flow_out)

    def scatter(self, indices, value, name=None):
        """This array with ``value[i]`` at ``indices[i]``."""
        with name_scope(name, "TensorArrayScatter", [self._handle, value, indices]):
            value = convert_to_tensor(value, preferred_dtype=self._dtype, name="value")
            if value.shape.sizes is not None:
                self._check_element_shape(TensorShape(value.shape.sizes[1:]))
            with self._maybe_colocate_with(value):
                flow_out = op_output("TensorArrayScatterV3", name, [("handle", self._handle, None),
                                                                    ("indices", indices, dtypes.int32),
                                                                    ("value", value, None), ("flow_in", self._flow, None)])
            return self._with_flow(flow_out)

    def unstack(self, value, name=None):
        """This array with ``value[i]`` at index i, for every i along the first axis."""
        with name_scope(name, "TensorArrayUnstack", [self._handle, value]):
            num_elements = shape_of(value)[0]
            return self.scatter(indices=range_(0, num_elements), value=value, name=name)

    # -- reading ---------------------------------------------------------------------------------------
    def read(self, index, name=None):
        """The tensor at ``index``."""
        value = op_output("TensorArrayReadV3", name, [("handle", self._handle, None), ("index", index, dtypes.int32),
                                                     ("flow_in", self._flow, None)], {"dtype": self._dtype})
        if self._element_shape:
            value.set_shape(self._element_shape[0].sizes)
        return value

    def gather(self, indices, name=None):
        """The tensors at ``indices``, stacked."""
        element_shape = self._element_shape[0] if self._element_shape else TensorShape(None)
        value = op_output("TensorArrayGatherV3", name, [("handle", self._handle, None),
                                                       ("indices", indices, dtypes.int32), ("flow_in", self._flow, None)],
                          {"dtype": self._dtype, "element_shape": element_shape.sizes})
        if self.element_shape.sizes is not None:
            value.set_shape([None] + list(self.element_shape.sizes))
        return value

    def stack(self, name=None):
        """Every tensor of the array, stacked along a new first axis."""
        with colocate_with(self._handle), name_scope(name, "TensorArrayStack", [self._handle]):
            value = self.gather(range_(0, self.size()), name=name)
            if self.element_shape.sizes is not None and not self._dynamic_size and self._size is not None:
                size = constant_value(self._size) if isinstance(self._size, Tensor) else self._size
                value.set_shape([None if size is None else int(size)] + list(self.element_shape.sizes))
            return value

    def size(self, name=None):
        """The number of slots (the ``size`` given, unless the array grows)."""
        if not self._dynamic_size and self._size is not None:
            return convert_to_tensor(self._size, dtype=dtypes.int32)
        return op_output("TensorArraySizeV3", name, [("handle", self._handle, None), ("flow_in", self._flow, None)])

    def identity(self):
        return self._with_flow(identity(self._flow))

    def grad(self, source, flow=None, name=None):
        """The gradient array of this one for the gradient computation ``source`` (TF's
        ``TensorArrayGradV3``): made once per run and source, beside this array."""
        flow = self.flow if flow is None else flow
        with name_scope(name, "TensorArrayGrad", [self._handle]):
            with colocate_with(self._handle):
                g_handle, _ = op("TensorArrayGradV3", name, [("handle", self._handle, None), ("flow_in", flow, None)],
                                 {"source": source}).outputs
                with control_dependencies([g_handle]):
                    flow = identity(flow, name="gradient_flow")
                g = TensorArray(self._dtype, handle=g_handle, flow=flow, infer_shape=self._infer_shape,
                                colocate_with_first_write_call=False)
                g._element_shape = self._element_shape
                return g

    def close(self, name=None):
        raise unimplemented_call("tf.TensorArray.close", name=name)
