"""``tf.boolean_mask``: the slices of a tensor where a boolean mask is true, built op for op as TF
builds it (a reshape by a ``Prod`` of the shape, then ``Where``, ``Squeeze`` and ``GatherV2``).

Its own module because it builds both array and math ops (``math_ops`` imports ``array_ops``).
"""
import builtins
import numbers

import numpy as np

from ..framework.scopes import name_scope
from ..framework.tensor_shape import TensorShape
from ..ops.build import convert_to_tensor
from .array_ops import concat, gather, getitem, reshape, shape, squeeze, where_v2
from .math_ops import reduce_prod


def boolean_mask(tensor, mask, name="boolean_mask", axis=None):
    """``tensor[mask]``: the slices of ``tensor`` (from ``axis`` on) where ``mask`` is true.

    Built as TF builds it: ``tensor`` is reshaped so that the masked dims become one, then the
    true positions (``Where``, ``Squeeze``) are gathered (``GatherV2``). The shapes come from
    ``Shape`` (a Const when known), ``strided_slice`` and ``Prod``, so the graph is TF's, op for op.
    """
    with name_scope(name, values=[tensor, mask]):
        tensor = convert_to_tensor(tensor, name="tensor")
        mask = convert_to_tensor(mask, name="mask")
        shape_mask, shape_tensor = mask.shape, tensor.shape
        ndims_mask = shape_mask.ndims
        if ndims_mask == 0:
            raise ValueError("mask cannot be scalar.")
        if ndims_mask is None:
            raise ValueError("Number of mask dimensions must be specified, even if some dimensions are None.  "
                             "E.g. shape=[None] is ok, but shape=None is not.")
        axis = 0 if axis is None else axis
        axis_value = axis if isinstance(axis, numbers.Integral) else None
        if axis_value is not None and shape_tensor.dims is not None:
            masked = TensorShape(shape_tensor.dims[axis:axis + ndims_mask])
            if not masked.is_compatible_with(shape_mask):
                raise ValueError(f"Shapes {masked} and {shape_mask} are incompatible")
        leading_size = reduce_prod(getitem(shape(tensor), builtins.slice(axis, axis + ndims_mask)), [0])
        tensor = reshape(tensor, concat([getitem(shape(tensor), builtins.slice(None, axis)), [leading_size],
                                         getitem(shape(tensor), builtins.slice(axis + ndims_mask, None))], 0))
        if axis_value is not None and shape_tensor.dims is not None:
            dims = shape_tensor.dims
            leading = dims[axis:axis + ndims_mask]
            first = None if any(d is None for d in leading) else int(np.prod(leading, dtype=np.int64))
            tensor.set_shape(list(dims[:axis]) + [first] + list(dims[axis + ndims_mask:]))
        mask = reshape(mask, [-1])
        indices = squeeze(where_v2(mask), axis=[1])
        return gather(tensor, indices, axis=axis)
