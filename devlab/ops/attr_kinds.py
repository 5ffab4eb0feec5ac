"""The kinds of attr values devlab's kernels read, by attr name, and a check of them.

A graph file gives attrs as data: before a node of devlab's op table is built from one, each
attr it reads must have the kind its kernel expects (``keep_dims`` a bool, ``strides`` a list of
ints...), so a bad file fails while loading rather than at run time. Both graph importers
(``graphs/``) ask here; which attrs an op *needs* is its ``OpDef.required_attrs``.
"""
import numpy as np

from ..framework import dtypes
from ..framework.graph import VALID_OP_NAME

MAX_RANK = 254  # TF's limit on the rank of a tensor
MAX_DIM = 2 ** 62

DTYPE_ATTRS = {"dtype", "T", "DstT", "SrcT", "out_type", "output_type", "Tidx"}
BOOL_ATTRS = {"transpose_a", "transpose_b", "keep_dims", "use_locking", "validate_shape", "use_nesterov",
              "adj_x", "adj_y", "is_training", "use_cudnn_on_gpu"}
INT_ATTRS = {"N", "depth", "batch", "tower", "towers", "num", "num_split", "depth_radius", "begin_mask", "end_mask",
             "ellipsis_mask", "new_axis_mask", "shrink_axis_mask"}
FLOAT_ATTRS = {"bias", "alpha", "beta", "epsilon", "exponential_avg_factor"}
INT_LIST_ATTRS = {"squeeze_dims", "strides", "ksize", "dilations", "explicit_paddings"}
OPTIONAL_INT_ATTRS = {"seed", "seed2"}
DIMS_ATTRS = {"shape", "perm"}  # None, or a list of ints (-1 allowed in a reshape) and Nones
STR_ATTRS = {"separator", "padding", "data_format", "mode"}  # TF's files hold them as bytes


def dims(shape, where, allow_minus_one=False):
    """A shape given as data: None (unknown) or a tuple of dims, each an int >= 0 (or -1 where
    allowed) or None; else a ValueError naming ``where``."""
    if shape is None:
        return None
    if not isinstance(shape, (list, tuple)) or len(shape) > MAX_RANK:
        raise ValueError(f"{where}: must be null or a list of at most {MAX_RANK} dims, got {shape!r}")
    low = -1 if allow_minus_one else 0
    for d in shape:
        if d is not None and (isinstance(d, bool) or not isinstance(d, int) or not low <= d <= MAX_DIM):
            raise ValueError(f"{where}: a dim must be null or an int in [{low}, 2**62], got {d!r}")
    return tuple(shape)


def check_attr(key, value, where):
    """The attr if it has the kind devlab's ops read under that name; else a ValueError."""
    def fail(kind):
        raise ValueError(f"{where}: must be {kind}, got {value!r}")
    if key in DTYPE_ATTRS and not isinstance(value, dtypes.DType):
        fail("a dtype such as {\"dtype\": \"float32\"}")
    if key in BOOL_ATTRS and not isinstance(value, bool):
        fail("true or false")
    if key in INT_ATTRS and (isinstance(value, bool) or not isinstance(value, int)):
        fail("an integer")
    if key in OPTIONAL_INT_ATTRS and value is not None and (isinstance(value, bool) or not isinstance(value, int)):
        fail("null or an integer")
    if key in STR_ATTRS and not isinstance(value, str):
        fail("a string")
    if key in FLOAT_ATTRS and (isinstance(value, bool) or not isinstance(value, (int, float))):
        fail("a number")
    if key in INT_LIST_ATTRS and not (isinstance(value, list) and all(
            isinstance(v, int) and not isinstance(v, bool) for v in value)):
        fail("a list of integers")
    if key == "data" and not isinstance(value, np.ndarray):
        fail("an array")
    if key in DIMS_ATTRS:
        return None if value is None else list(dims(value, where, allow_minus_one=True))
    if key == "axis" and value is not None and not (
            (isinstance(value, int) and not isinstance(value, bool)) or
            (isinstance(value, list) and all(isinstance(a, int) and not isinstance(a, bool) for a in value))):
        fail("null, an integer or a list of integers")
    if key == "_class" and not (isinstance(value, list) and all(
            isinstance(g, bytes) and g.startswith(b"loc:@") and VALID_OP_NAME.match(g[5:].decode("utf-8", "replace"))
            for g in value)):
        fail("a list of colocation groups such as [{\"bytes\": \"loc:@v\"}]")
    return value


def devlab_attrs(attrs):
    """``attrs`` as devlab's kernels read them: TF writes string attrs (padding, data_format) as
    bytes; devlab's ops hold them as str."""
    return {k: v.decode("utf-8", "replace") if k in STR_ATTRS and isinstance(v, bytes) else v
            for k, v in attrs.items()}
