"""What a ``StridedSlice`` means: its begin/end/strides vectors and five bit masks, as a numpy index.

``t[1:3, :, None, 2]`` becomes ``StridedSlice(t, begin=[1,0,0,2], end=[3,0,0,3], strides=[1,1,1,1])``
with ``begin_mask`` and ``end_mask`` bits for the ``:`` (bound absent), ``new_axis_mask`` for the
``None`` and ``shrink_axis_mask`` for the integer index. The kernel and the shape rule both read
the spec through ``numpy_index``, so a slice computes and infers the same thing.
"""
from dataclasses import dataclass


@dataclass(frozen=True)
class Masks:
    begin: int = 0
    end: int = 0
    ellipsis: int = 0
    new_axis: int = 0
    shrink: int = 0

    @classmethod
    def of(cls, attrs):
        return cls(attrs.get("begin_mask", 0), attrs.get("end_mask", 0), attrs.get("ellipsis_mask", 0),
                   attrs.get("new_axis_mask", 0), attrs.get("shrink_axis_mask", 0))


def numpy_index(begin, end, strides, masks):
    """The numpy index tuple of a strided slice (``...``, None, ints and slices)."""
    index = []
    for i, (b, e, s) in enumerate(zip(begin, end, strides)):
        bit = 1 << i
        if masks.ellipsis & bit:
            index.append(Ellipsis)
        elif masks.new_axis & bit:
            index.append(None)
        elif masks.shrink & bit:
            index.append(b)
        else:
            index.append(slice(None if masks.begin & bit else b, None if masks.end & bit else e, s))
    return tuple(index)


def output_dims(dims, begin, end, strides, n, masks):
    """The static output dims of a strided slice of a tensor with ``dims`` (None entries unknown).

    ``begin``/``end``/``strides`` are lists of ints, or None when not known before a run; ``n``
    is the length of the spec. Returns None when the output rank is unknown. Raises IndexError
    with TF's words for an index out of bounds."""
    if dims is None:
        return None
    known = begin is not None and end is not None and strides is not None
    kinds = []
    for i in range(n):
        bit = 1 << i
        kinds.append("..." if masks.ellipsis & bit else "new" if masks.new_axis & bit else
                     "shrink" if masks.shrink & bit else "slice")
    consuming = sum(k in ("shrink", "slice") for k in kinds)
    if consuming > len(dims):
        raise IndexError(f"Index out of range using input dim {len(dims)}; input has only {len(dims)} dims")
    if "..." not in kinds:
        kinds.append("...")  # an implicit ellipsis covers the dims the spec does not name
    out, dim = [], 0
    for i, kind in enumerate(kinds):
        if kind == "new":
            out.append(1)
        elif kind == "...":
            covered = max(len(dims) - consuming, 0)
            out.extend(dims[dim:dim + covered])
            dim += covered
        else:
            d = dims[dim] if dim < len(dims) else None
            if kind == "shrink":
                if known and d is not None and not -d <= begin[i] < d:
                    raise IndexError(f"slice index {begin[i]} of dimension {dim} out of bounds.")
            elif not known or d is None:
                out.append(None)
            else:
                bit = 1 << i
                sl = slice(None if masks.begin & bit else begin[i], None if masks.end & bit else end[i], strides[i])
                out.append(len(range(*sl.indices(d))))
            dim += 1
    return out
