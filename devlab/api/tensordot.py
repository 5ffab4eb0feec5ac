"""``tf.tensordot``: a contraction written as one MatMul between two reshapes, as TF's
``math_ops.tensordot`` builds it (``tf.layers.dense`` on a 3-D input is one). When the shapes are
known the reshapes take constant shapes; when only the rank is, the free dimensions are gathered
from the run-time shape (Shape, GatherV2, Prod, ConcatV2, Pack), in TF's order.
"""
import builtins

import numpy as np

from ..framework import dtypes
from ..framework.scopes import name_scope
from ..framework.tensor import Tensor
from ..ops.build import convert_to_tensor
from ..unimplemented import argument
from . import array_ops, math_ops


def _axes(a, axes):
    """The two lists of contraction axes (TF's ``_tensordot_axes``)."""
    if isinstance(axes, (int, np.integer)) and not isinstance(axes, bool):
        if axes < 0:
            raise ValueError(f"`axes` must be at least 0. Received: {axes}.")
        ndims = a.shape.ndims
        if ndims is None:
            raise argument("axes (an int, on an input of unknown rank)", "tf.tensordot")
        if axes > ndims:
            raise ValueError(f"`axes` must not be larger than the number of dimensions of tensor {a}.  "
                             f"Received {axes}, vs tensor dimensions {ndims}.")
        return list(builtins.range(ndims - axes, ndims)), list(builtins.range(axes))
    if isinstance(axes, (list, tuple)):
        if len(axes) != 2:
            raise ValueError(f"`axes` must be an integer or have length 2. Received {axes}.")
        a_axes, b_axes = axes
        if isinstance(a_axes, (int, np.integer)) and isinstance(b_axes, (int, np.integer)):
            a_axes, b_axes = [a_axes], [b_axes]
        if len(a_axes) != len(b_axes):
            raise ValueError(f"Different number of contraction axes `a` and `b`, {len(a_axes)} != {len(b_axes)}.")
        return list(a_axes), list(b_axes)
    raise argument("axes (as a Tensor)", "tf.tensordot")


def _reshape(a, axes, flipped=False):
    """(a transposed and reshaped to a matrix, its free dims, their static sizes or None)."""
    shape_a = a.shape.as_list() if a.shape.ndims is not None else None
    if shape_a is None:  # TF computes the free axes with ListDiff at run time
        raise argument("a (of unknown rank)", "tf.tensordot")
    axes = [i if i >= 0 else i + len(shape_a) for i in axes]
    free = [i for i in builtins.range(len(shape_a)) if i not in axes]
    if a.shape.is_fully_defined():
        free_dims = [shape_a[i] for i in free]
        prod_free = int(np.prod(free_dims))
        prod_axes = int(np.prod([shape_a[i] for i in axes]))
        perm = axes + free if flipped else free + axes
        new_shape = [prod_axes, prod_free] if flipped else [prod_free, prod_axes]
        a_trans = array_ops.transpose(a, perm) if perm != list(builtins.range(len(shape_a))) else a
        reshaped = array_ops.reshape(a_trans, new_shape) if a_trans.shape.as_list() != new_shape else a_trans
        return reshaped, free_dims, free_dims
    free_dims_static = [shape_a[i] for i in free]
    axes_t = convert_to_tensor(axes, dtype=dtypes.int32, name="axes")
    free_t = convert_to_tensor(free, dtype=dtypes.int32, name="free")
    shape_t = array_ops.shape(a)
    free_dims = array_ops.gather(shape_t, free_t)
    axes_dims = array_ops.gather(shape_t, axes_t)
    prod_free_dims = math_ops.reduce_prod(free_dims)
    prod_axes_dims = math_ops.reduce_prod(axes_dims)
    if flipped:
        perm = array_ops.concat([axes_t, free_t], 0)
        new_shape = array_ops.stack([prod_axes_dims, prod_free_dims])
    else:
        perm = array_ops.concat([free_t, axes_t], 0)
        new_shape = array_ops.stack([prod_free_dims, prod_axes_dims])
    return array_ops.reshape(array_ops.transpose(a, perm), new_shape), free_dims, free_dims_static


def tensordot(a, b, axes, name=None):
    """The sum over ``axes`` of the products of ``a`` and ``b`` (numpy's tensordot)."""
    with name_scope(name, "Tensordot", [a, b, axes]) as scope:
        a = convert_to_tensor(a, name="a")
        b = convert_to_tensor(b, name="b")
        a_axes, b_axes = _axes(a, axes)
        a_reshape, a_free, a_static = _reshape(a, a_axes)
        b_reshape, b_free, b_static = _reshape(b, b_axes, True)
        product = math_ops.matmul(a_reshape, b_reshape)
        if not isinstance(a_free, Tensor) and not isinstance(b_free, Tensor):
            if product.shape.is_fully_defined() and product.shape.as_list() == a_free + b_free:
                return product
            return array_ops.reshape(product, a_free + b_free, name=scope)
        a_free = convert_to_tensor(a_free, dtype=dtypes.int32)
        b_free = convert_to_tensor(b_free, dtype=dtypes.int32)
        out = array_ops.reshape(product, array_ops.concat([a_free, b_free], 0), name=scope)
        out.set_shape(a_static + b_static)
        return out
