"""``tf.SparseTensor``: a tensor stored as its non-zero entries, three dense tensors in the graph.

``indices`` (int64, ``[N, rank]``) lists the positions, ``values`` (``[N]``) their entries and
``dense_shape`` (int64, ``[rank]``) the shape of the dense tensor they stand for. There is no
SparseTensor op: ops take and give the three components, and each is placed as any tensor is.
A session fetches one as a ``SparseTensorValue`` (three numpy arrays) and takes one as a feed.
"""
import collections

from ..framework import dtypes
from ..framework.composite_tensor import CompositeTensor, NativeObject
from ..framework.scopes import name_scope
from ..framework.tensor_shape import TensorShape
from .build import convert_to_tensor
from .tensor_util import constant_value_as_shape

SparseTensorValue = collections.namedtuple("SparseTensorValue", ["indices", "values", "dense_shape"])


class SparseTensor(NativeObject, CompositeTensor):
    """TF's class: ``SparseTensor(indices, values, dense_shape)`` converts each to a tensor in a
    ``SparseTensor`` name scope (``SparseTensor/indices`` and so on, for the ones not yet tensors)."""

    def __init__(self, indices, values, dense_shape):
        with name_scope(None, "SparseTensor", [indices, values, dense_shape]):
            indices = convert_to_tensor(indices, name="indices", dtype=dtypes.int64)
            values = convert_to_tensor(values, name="values")
            dense_shape = convert_to_tensor(dense_shape, name="dense_shape", dtype=dtypes.int64)
        self._indices, self._values, self._dense_shape = indices, values, dense_shape
        dims = constant_value_as_shape(dense_shape)
        self._dense_shape_default = TensorShape(dims if dims is not None else
                                                (None if dense_shape.shape.sizes is None
                                                 or dense_shape.shape.sizes[0] is None
                                                 else [None] * dense_shape.shape.sizes[0]))
        _with_rank(indices.shape, 2)
        _with_rank(values.shape, 1)
        _with_rank(dense_shape.shape, 1)
        _compatible(indices.shape, 0, values.shape, 0)
        _compatible(indices.shape, 1, dense_shape.shape, 0)

    @classmethod
    def from_value(cls, sparse_tensor_value):
        """A SparseTensor of the constants of a ``SparseTensorValue`` (a SparseTensor passes through)."""
        if isinstance(sparse_tensor_value, SparseTensor):
            return sparse_tensor_value
        if not is_sparse(sparse_tensor_value):
            raise TypeError(f"Neither a SparseTensor nor SparseTensorValue: {sparse_tensor_value}.")
        return cls(sparse_tensor_value.indices, sparse_tensor_value.values, sparse_tensor_value.dense_shape)

    @property
    def indices(self):
        return self._indices

    @property
    def values(self):
        return self._values

    @property
    def dense_shape(self):
        return self._dense_shape

    @property
    def dtype(self):
        return self._values.dtype

    @property
    def op(self):
        """The op that makes ``values``."""
        return self._values.op

    @property
    def graph(self):
        return self._indices.graph

    @property
    def shape(self):
        """The static shape of the dense tensor, as far as the graph knows it."""
        return self._dense_shape_default

    def get_shape(self):
        return self._dense_shape_default

    def set_shape(self, shape):
        """Narrows the static shape (TF's ValueError when ``shape`` cannot describe this tensor)."""
        self._dense_shape_default = self._dense_shape_default.merge_with(TensorShape(shape)
                                                                         if not isinstance(shape, TensorShape)
                                                                         else shape)

    def with_values(self, new_values):
        """The same indices and dense shape with other values."""
        return SparseTensor(self._indices, new_values, self._dense_shape)

    def consumers(self):
        """The ops that read any of the three components."""
        seen, out = set(), []
        for t in (self._indices, self._values, self._dense_shape):
            for op in t.consumers():
                if op not in seen:
                    seen.add(op)
                    out.append(op)
        return out

    def eval(self, feed_dict=None, session=None):
        """The value in ``session`` (default: the current default session), a SparseTensorValue."""
        from ..framework.default_session import get_default_session_or_raise
        return (session or get_default_session_or_raise()).run(self, feed_dict)

    def __repr__(self):
        return f"SparseTensor(indices={self._indices}, values={self._values}, dense_shape={self._dense_shape})"

    def __mul__(self, other):
        return _cwise("SparseDenseCwiseMul", self, other, "mul")

    __rmul__ = __mul__  # dense * sparse: the same op (TF's _mul_dispatch)

    def __truediv__(self, other):
        """``sp / dense``: integers divide as floats (int8/16 as float32, int32/64 as float64), as TF."""
        return _cwise("SparseDenseCwiseDiv", self, other, "truediv", true_div=True)

    def _numpy(self):
        raise ValueError("SparseTensor.numpy() is only supported in eager mode.")

    __div__ = __truediv__


_TRUEDIV = {"int8": "float32", "uint8": "float32", "int16": "float32", "uint16": "float32",
            "int32": "float64", "uint32": "float64", "int64": "float64", "uint64": "float64"}


def _cwise(op_type, sp, dense, name, true_div=False):
    """``sp * dense`` and ``sp / dense``: the dense tensor broadcast to the listed entries only."""
    from .build import apply_op_output
    with name_scope(None, name, [sp, dense]) as scope:
        values = sp.values
        dense = convert_to_tensor(dense, dtype=None if true_div else sp.dtype.base_dtype, name="y")
        if true_div:
            if dense.dtype.base_dtype != values.dtype.base_dtype:
                raise TypeError(f"x and y must have the same dtype, got {values.dtype.base_dtype!r} != "
                                f"{dense.dtype.base_dtype!r}")
            to = _TRUEDIV.get(values.dtype.base_dtype.name)
            if to is not None:
                values = apply_op_output("Cast", [values], {"DstT": dtypes.as_dtype(to), "Truncate": False}, "Cast")
                dense = apply_op_output("Cast", [dense], {"DstT": dtypes.as_dtype(to), "Truncate": False}, "Cast_1")
        values = apply_op_output(op_type, [sp.indices, values, sp.dense_shape, dense], None, scope)
    return SparseTensor(sp.indices, values, sp.dense_shape)


def _with_rank(shape, rank):
    if shape.sizes is not None and len(shape.sizes) != rank:
        raise ValueError(f"Shape {shape} must have rank {rank}")


def _compatible(a, i, b, j):
    if a.sizes is None or b.sizes is None:
        return
    x, y = a.sizes[i], b.sizes[j]
    if x is not None and y is not None and x != y:
        raise ValueError(f"Dimensions {x} and {y} are not compatible")


def is_sparse(x):
    """Whether ``x`` is a SparseTensor or a SparseTensorValue (TF's ``sparse_tensor.is_sparse``)."""
    return isinstance(x, (SparseTensor, SparseTensorValue))


def convert_to_tensor_or_sparse_tensor(value, dtype=None, name=None):
    """A SparseTensorValue becomes a SparseTensor, a SparseTensor passes, anything else a Tensor."""
    if isinstance(value, SparseTensorValue):
        value = SparseTensor.from_value(value)
    if isinstance(value, SparseTensor):
        if dtype and not dtypes.as_dtype(dtype).is_compatible_with(value.dtype):
            raise RuntimeError(f"Sparse dtype: requested = {dtypes.as_dtype(dtype)}, actual = {value.dtype}")
        return value
    return convert_to_tensor(value, dtype=dtype, name=name)
