"""``Tensor``: a symbolic handle to one output of an Operation; it has no value until a run.

Python operators (``a + b``, ``a @ b``) are attached by the ops layer (``ops/operators.py``),
since building an op needs the op table that lives above this layer.
"""
from .tensor_shape import TensorShape, shared


# numpy's array methods TF's Tensor lacks unless numpy behaviour is on (its AttributeError says so)
_NUMPY_METHODS = frozenset({"T", "astype", "ravel", "transpose", "reshape", "clip", "size", "tolist", "data"})


class Tensor:
    """Output ``value_index`` of ``op``, with a static dtype and shape."""

    __array_priority__ = 100  # so numpy defers `ndarray + tensor` to our operators
    __slots__ = ("op", "value_index", "dtype", "_shape", "__weakref__")

    def __init__(self, op, value_index, dtype, shape):
        self.op = op
        self.value_index = value_index
        self.dtype = dtype
        self._shape = shape if isinstance(shape, TensorShape) else shared(shape)

    @property
    def name(self):
        return f"{self.op.name}:{self.value_index}"

    def _as_node_def_input(self):
        """How a NodeDef names this tensor as an input: ``op`` for output 0, else ``op:i``."""
        return f"{self.op.name}:{self.value_index}" if self.value_index else self.op.name

    @property
    def graph(self):
        return self.op.graph

    @property
    def device(self):
        return self.op.device

    @property
    def shape(self):
        return self._shape

    def get_shape(self):
        return self._shape

    def _shape_tuple(self):
        """The static shape as a tuple of sizes (None where unknown), or None for an unknown rank."""
        return None if self._shape.sizes is None else tuple(self._shape.sizes)

    def set_shape(self, shape):
        self._shape = self._shape.merge_with(shape)

    def consumers(self):
        """The operations that take this tensor as an input, once per input it feeds (TF's list)."""
        return [op for op in self.graph.get_operations() for t in op.inputs if t is self]

    def ref(self):
        """TF's hashable reference to this tensor (``deref()`` gives it back)."""
        return Reference(self)

    experimental_ref = ref

    def eval(self, feed_dict=None, session=None):
        """Runs this tensor in ``session`` (default: the current default session)."""
        from ..framework.default_session import get_default_session_or_raise
        return (session or get_default_session_or_raise()).run(self, feed_dict)

    def __bool__(self):
        from .errors import not_allowed_in_graph
        raise not_allowed_in_graph("Using a symbolic `tf.Tensor` as a Python `bool`")

    def __iter__(self):
        from .errors import not_allowed_in_graph
        raise not_allowed_in_graph("Iterating over a symbolic `tf.Tensor`")

    def __getattr__(self, name):  # only for names the class lacks: TF's hint for numpy's methods
        if name in _NUMPY_METHODS:
            raise AttributeError(f"{type(self).__name__} object has no attribute '{name}'. \n"
                                 "        If you are looking for numpy-related methods, please run the following:\n"
                                 "        tf.experimental.numpy.experimental_enable_numpy_behavior()\n      ")
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    # Graph-mode TF1 compares and hashes tensors by identity: object's own __eq__/__hash__ do.

    def __repr__(self):
        return f'<tf.Tensor {self.name!r} shape={self._shape} dtype={self.dtype.name}>'

    def __str__(self):
        """What ``print(tensor)`` shows, as TF's graph tensors: ``Tensor("name:0", shape=(?, 3),
        dtype=float32)``, the shape only when its rank is known, the device when one is asked for."""
        shape = f", shape={self._shape}" if self._shape.ndims is not None else ""
        device = f", device={self.device}" if self.device else ""
        return f'Tensor("{self.name}"{shape}, dtype={self.dtype.name}{device})'


class Reference:
    """``tensor.ref()``: equal and hashed by the object it refers to, whatever that object's ``==``."""

    __slots__ = ("_obj",)

    def __init__(self, obj):
        self._obj = obj

    def deref(self):
        return self._obj

    def __eq__(self, other):
        return isinstance(other, Reference) and other._obj is self._obj

    def __hash__(self):
        return id(self._obj)

    def __repr__(self):
        return f"<Reference wrapping {self._obj!r}>"
