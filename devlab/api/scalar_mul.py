"""``tf.scalar_mul(scalar, x)``: a 0-D ``scalar`` times a Tensor or the values of IndexedSlices,
one raw ``Mul`` op, as TF's math_ops builds it (tf_cnn_benchmarks averages gradients with it)."""
from ..framework import dtypes
from ..framework.indexed_slices import IndexedSlices
from ..framework.scopes import name_scope
from ..framework.tensor import Tensor
from ..ops.build import apply_op_output, convert_to_tensor


def scalar_mul(scalar, x, name=None):
    """``scalar * x``, of the same kind (Tensor or IndexedSlices) as ``x``."""
    if not isinstance(x, (Tensor, IndexedSlices)) and not hasattr(x, "dtype"):
        # TF fails here on reading x.dtype (an AttributeError); devlab says which argument is wrong
        raise TypeError(f"tf.scalar_mul: x must be a Tensor or IndexedSlices, got {type(x).__name__} {x!r:.60}")
    base_dtype = dtypes.as_dtype(x.dtype).base_dtype
    scalar = convert_to_tensor(scalar, dtype=base_dtype, name="scalar")
    shape = scalar.shape
    if shape.ndims != 0:
        raise ValueError(f"The input scalar must be a 0-D value. Received shape {shape}.")
    if isinstance(x, IndexedSlices):
        with name_scope(name, "Mul", [scalar, x.values]) as scope:
            return IndexedSlices(apply_op_output("Mul", [scalar, x.values], None, scope), x.indices, x.dense_shape)
    with name_scope(name, "Mul", [scalar, x]) as scope:
        return apply_op_output("Mul", [scalar, convert_to_tensor(x)], None, scope)
