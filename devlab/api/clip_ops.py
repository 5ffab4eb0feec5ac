"""Clipping by norm, as TensorFlow's ``clip_ops`` builds it: ``global_norm`` (one L2Loss beside
each tensor, summed where the norm is used), ``clip_by_global_norm`` (every tensor scaled by
``clip_norm / max(global_norm, clip_norm)``, the Mul beside its tensor) and ``clip_by_norm``
(one tensor, or its slices along ``axes``). Training scripts clip their gradients with these
before ``apply_gradients``; the placement shows the norm computed once and the scaling done on
the device of each gradient.
"""
import collections.abc

import numpy as np

from ..framework import dtypes
from ..framework.indexed_slices import IndexedSlices
from ..framework.scopes import colocate_with, name_scope
from ..framework.tensor import Tensor
from . import array_ops, math_ops
from ..ops.build import convert_to_tensor
from .nn_ops import l2_loss


def _sequence(t_list):
    """TF's check: a list or tuple of tensors (a zip or a generator is not a sequence)."""
    if not isinstance(t_list, collections.abc.Sequence) or isinstance(t_list, str):
        raise TypeError(f"`t_list` should be a sequence of tensors. Received {type(t_list)}.")
    return list(t_list)


def _values(t_list):
    """Each entry as a tensor, the values of an IndexedSlices taken as they are (TF never
    densifies a sparse gradient to clip it), None kept."""
    return [convert_to_tensor(t.values if isinstance(t, IndexedSlices) else t, name="t_%d" % i)
            if t is not None else None for i, t in enumerate(t_list)]


def global_norm(t_list, name=None):
    """sqrt(sum of the squares of every element of every tensor); None entries are skipped, an
    IndexedSlices counts by its values."""
    t_list = _sequence(t_list)
    with name_scope(name, "global_norm", t_list):
        values = _values(t_list)
        half_squared_norms = []
        for v in values:
            if v is not None:
                with colocate_with(v):
                    half_squared_norms.append(l2_loss(v))
        half_squared_norm = math_ops.reduce_sum(array_ops.stack(half_squared_norms))
        two = array_ops.constant(2.0, dtype=half_squared_norm.dtype.base_dtype)
        return math_ops.sqrt(half_squared_norm * two, name="global_norm")


def clip_by_global_norm(t_list, clip_norm, use_norm=None, name=None):
    """(the tensors scaled by clip_norm / max(global_norm, clip_norm), the global norm). A norm
    that is inf or NaN makes every value NaN, as in TF. An IndexedSlices stays one: its values
    are scaled, its indices kept."""
    t_list = _sequence(t_list)
    if use_norm is None:
        use_norm = global_norm(t_list, name)
    elif not isinstance(use_norm, Tensor):  # TF divides by it in Python (a ZeroDivisionError for 0)
        use_norm = convert_to_tensor(use_norm, preferred_dtype=dtypes.float32, name="use_norm")
    with name_scope(name, "clip_by_global_norm", t_list + [clip_norm]) as scope:
        scale_for_finite = clip_norm * math_ops.minimum(
            1.0 / use_norm, array_ops.constant(1.0, dtype=use_norm.dtype.base_dtype) / clip_norm)
        scale = scale_for_finite + (use_norm - use_norm)  # NaN when the norm is not finite
        values = _values(t_list)
        clipped = []
        for i, v in enumerate(values):
            if v is None:
                clipped.append(None)
                continue
            with colocate_with(v):
                clipped.append(array_ops.identity(v * array_ops.cast(scale, v.dtype.base_dtype),
                                                  name="%s_%d" % (scope, i)))
        clipped = [IndexedSlices(c, t.indices, t.dense_shape) if isinstance(t, IndexedSlices) else c
                   for c, t in zip(clipped, t_list)]
    return clipped, use_norm


def clip_by_norm(t, clip_norm, axes=None, name=None):
    """``t * clip_norm / max(l2norm(t), clip_norm)``, the norm over ``axes`` (all by default); an
    IndexedSlices is clipped by its values and stays one."""
    with name_scope(name, "clip_by_norm", [t, clip_norm]) as scope:
        values = convert_to_tensor(t.values if isinstance(t, IndexedSlices) else t, name="t")
        if np.isscalar(clip_norm):
            clip_norm = max(clip_norm, 0)
        else:
            clip_norm = array_ops.cast(math_ops.maximum(clip_norm, 0), values.dtype.base_dtype)
        l2sum = math_ops.reduce_sum(values * values, axes, keepdims=True)
        pred = l2sum > 0
        # two Selects, so the gradient of sqrt at 0 is never taken (it would be NaN)
        l2sum_safe = array_ops.where(pred, l2sum, array_ops.ones_like(l2sum))
        l2norm = array_ops.where(pred, math_ops.sqrt(l2sum_safe), l2sum)
        intermediate = values * clip_norm
        if not values.shape.is_compatible_with(intermediate.shape):  # clip_norm must not broadcast t
            raise ValueError(f"Shapes {values.shape} and {intermediate.shape} are incompatible")
        clipped = array_ops.identity(intermediate / math_ops.maximum(l2norm, clip_norm), name=scope)
        if isinstance(t, IndexedSlices):
            return IndexedSlices(clipped, t.indices, t.dense_shape)
        return clipped


def clip_by_average_norm(t, clip_norm, name=None):
    """``t`` scaled so that its L2 norm divided by its number of elements is at most
    ``clip_norm`` (TF1's ``tf.clip_by_average_norm``, built as TF builds it)."""
    with name_scope(name, "clip_by_average_norm", [t, clip_norm]) as scope:
        t = convert_to_tensor(t, name="t")
        n_element = math_ops.cast(array_ops.size(t), dtypes.float32)
        l2norm_inv = math_ops.rsqrt(math_ops.reduce_sum(t * t, array_ops.range(array_ops.rank(t))))
        return array_ops.identity(t * clip_norm * math_ops.minimum(l2norm_inv * n_element,
                                                                   array_ops.constant(1.0) / clip_norm), name=scope)
