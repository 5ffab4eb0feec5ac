"""TF's ``AttrValue`` protos as the Python values devlab keeps in an op's attrs.

TF code may hand an op an attr as an ``AttrValue`` message (``Graph._attr_scope``,
``op._set_attr``); devlab stores attrs as Python values, the ones ``get_attr`` returns in TF:
bytes for ``s``, int, float, bool, a DType for ``type``, lists of these for ``list``. A shape is
kept as devlab keeps shapes (a tuple of sizes, None where unknown; None for an unknown rank).
"""
from . import dtypes

_LIST_FIELDS = ("s", "i", "f", "b", "type", "shape", "tensor", "func")


def is_attr_value(value):
    """Whether ``value`` is an ``AttrValue`` message (TF's, or the copy TensorBoard ships)."""
    descriptor = getattr(value, "DESCRIPTOR", None)
    return getattr(descriptor, "full_name", None) in ("tensorflow.AttrValue", "tensorboard.AttrValue")


def to_python(value):
    """The Python value of an ``AttrValue`` (anything else is returned as it is)."""
    if not is_attr_value(value):
        return value
    field = value.WhichOneof("value")
    if field is None:
        return []
    if field == "list":
        for f in _LIST_FIELDS:
            items = getattr(value.list, f)
            if items:
                return [_scalar(f, item) for item in items]
        return []
    return _scalar(field, getattr(value, field))


def _scalar(field, item):
    if field == "type":
        return dtypes.as_dtype(item)
    if field == "shape":
        return None if item.unknown_rank else tuple(None if d.size == -1 else d.size for d in item.dim)
    if field in ("tensor", "func", "placeholder"):
        raise NotImplementedError(f"devlab does not implement AttrValue attrs holding a {field} yet")
    return item
