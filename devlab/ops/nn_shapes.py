"""Static shape rules of the neural-network ops (convolution, pooling, bias, losses), raising
ShapeError with TensorFlow's words. Same contract as ``shapes.py``."""
from ..framework import dtypes
from .nn_kernels import output_size
from .shapes import ShapeError, _partial, dims
from .tensor_util import constant_value_as_shape, static_value


def _spatial(in_size, window, stride, dilation, padding):
    if in_size is None:
        return None
    out = output_size(in_size, window, stride, dilation, padding)[0]
    if out <= 0:
        raise ShapeError(f"Negative dimension size caused by subtracting {(window - 1) * dilation + 1} "
                         f"from {in_size}")
    return out


def _padding(attrs):
    p = attrs["padding"]
    return p.decode() if isinstance(p, bytes) else p


def _rank(shape, rank):
    if shape is not None and len(shape) != rank:
        raise ShapeError(f"Shape must be rank {rank} but is rank {len(shape)}")


def conv2d(inputs, attrs):
    x, f = dims(inputs[0]), dims(inputs[1])
    _rank(x, 4)
    _rank(f, 4)
    dtype = inputs[0].dtype.base_dtype
    if x is None or f is None:
        return [(dtype, None if x is None else (x[0], None, None, None if f is None else f[3]))]
    if x[3] is not None and f[2] is not None and x[3] % f[2]:
        raise ShapeError(f"Depth of input ({x[3]}) is not a multiple of input depth of filter ({f[2]})")
    strides, dilations = attrs["strides"], attrs.get("dilations") or [1, 1, 1, 1]
    h = _spatial(x[1], f[0], strides[1], dilations[1], _padding(attrs)) if f[0] is not None else None
    w = _spatial(x[2], f[1], strides[2], dilations[2], _padding(attrs)) if f[1] is not None else None
    return [(dtype, (x[0], h, w, f[3]))]


def from_first_value(inputs, attrs):
    """Ops whose output shape is their first input's value (Conv2DBackpropInput, AvgPoolGrad)."""
    return [(inputs[1].dtype.base_dtype, _partial(constant_value_as_shape(inputs[0])))]


def conv2d_backprop_filter(inputs, attrs):
    return [(inputs[0].dtype.base_dtype, _partial(constant_value_as_shape(inputs[1])))]


def pool(inputs, attrs):
    x = dims(inputs[0])
    _rank(x, 4)
    dtype = inputs[0].dtype.base_dtype
    if x is None:
        return [(dtype, None)]
    ksize, strides = attrs["ksize"], attrs["strides"]
    if ksize[0] != 1 or ksize[3] != 1:
        raise ShapeError("Pooling is not yet supported on the batch nor depth dimensions.")
    h = _spatial(x[1], ksize[1], strides[1], 1, _padding(attrs))
    w = _spatial(x[2], ksize[2], strides[2], 1, _padding(attrs))
    return [(dtype, (x[0], h, w, x[3]))]


def bias_add(inputs, attrs):
    x, b = dims(inputs[0]), dims(inputs[1])
    dtype = inputs[0].dtype.base_dtype
    if x is not None and len(x) < 2:
        raise ShapeError(f"Shape must be at least rank 2 but is rank {len(x)}")
    _rank(b, 1)
    if x is not None and b is not None:
        nchw = attrs.get("data_format") in ("NCHW", b"NCHW") and len(x) > 2
        c = x[1] if nchw else x[-1]
        if c is not None and b[0] is not None and c != b[0]:
            raise ShapeError(f"Dimensions must be equal, but are {c} and {b[0]}")
    return [(dtype, x)]


def bias_add_grad(inputs, attrs):
    dy = dims(inputs[0])
    if dy is None:
        return [(inputs[0].dtype.base_dtype, (None,))]
    nchw = attrs.get("data_format") in ("NCHW", b"NCHW") and len(dy) > 2
    return [(inputs[0].dtype.base_dtype, (dy[1] if nchw else dy[-1],))]


def softmax_xent(inputs, attrs):
    logits, labels = dims(inputs[0]), dims(inputs[1])
    _rank(logits, 2)
    if logits is not None and labels is not None:
        for i, (a, b) in enumerate(zip(logits, labels)):
            if a is not None and b is not None and a != b and not (i == 0 and 1 in (a, b)):
                raise ShapeError(f"Dimensions must be equal, but are {a} and {b}")
    dtype = inputs[0].dtype.base_dtype
    batch = None if logits is None else logits[0]
    return [(dtype, (batch,)), (dtype, logits)]


def sparse_softmax_xent(inputs, attrs):
    logits, labels = dims(inputs[0]), dims(inputs[1])
    _rank(logits, 2)
    _rank(labels, 1)
    dtype = inputs[0].dtype.base_dtype
    if logits is not None and labels is not None and None not in (logits[0], labels[0]) and logits[0] != labels[0]:
        raise ShapeError(f"Dimensions must be equal, but are {logits[0]} and {labels[0]}")
    batch = labels[0] if labels is not None else None if logits is None else logits[0]
    return [(dtype, (batch,)), (dtype, logits)]


def fused_batch_norm(inputs, attrs):
    x = dims(inputs[0])
    _rank(x, 4)
    dtype = inputs[0].dtype.base_dtype
    channels = (None if x is None else x[-1],)
    return [(dtype, x)] + [(dtype, channels)] * 4 + [(dtype, None)]


def fused_batch_norm_grad(inputs, attrs):
    x = dims(inputs[1])
    dtype = inputs[0].dtype.base_dtype
    channels = (None if x is None else x[-1],)
    return [(dtype, x), (dtype, channels), (dtype, channels), (dtype, (0,)), (dtype, (0,))]


def top_k(inputs, attrs):
    """TopKV2: the input's shape with its last dim k, twice (values, then indices)."""
    x, k = dims(inputs[0]), static_value(inputs[1])
    if k is not None and int(k) < 0:
        raise ShapeError(f"Dimension size, given by scalar input 1, must be non-negative but is {int(k)}")
    if x is not None and len(x) < 1:
        raise ShapeError("Shape must be at least rank 1 but is rank 0")
    if x is not None and k is not None and x[-1] is not None and x[-1] < int(k):
        raise ShapeError(f"input must have last dimension >= k = {int(k)} but is {x[-1]}")
    out = None if x is None else tuple(x[:-1]) + (None if k is None else int(k),)
    return [(inputs[0].dtype.base_dtype, out), (attrs["index_type"], out)]


def in_top_k(inputs, attrs):
    """InTopKV2: one bool per row of the [batch, classes] predictions."""
    p, t = dims(inputs[0]), dims(inputs[1])
    _rank(p, 2)
    _rank(t, 1)
    _rank(dims(inputs[2]), 0)
    return [(dtypes.bool, None if p is None else (p[0],))]


def candidate_sampler(inputs, attrs):
    """A sampler: num_sampled int64 candidates, their expected counts, and one expected count per
    true class (TF checks only that true_classes is a matrix)."""
    true_classes = dims(inputs[0])
    if true_classes is not None and len(true_classes) != 2:
        raise ShapeError(f"Shape must be rank 2 but is rank {len(true_classes)}")
    n = attrs["num_sampled"]
    return [(dtypes.int64, (n,)), (dtypes.float32, tuple(true_classes) if true_classes else (None, None)),
            (dtypes.float32, (n,))]


def compute_accidental_hits(inputs, attrs):
    """ComputeAccidentalHits: as many hits as the run finds, of (row, position, -FLT_MAX)."""
    true_classes, sampled = dims(inputs[0]), dims(inputs[1])
    if true_classes is not None:
        if len(true_classes) != 2:
            raise ShapeError(f"Shape must be rank 2 but is rank {len(true_classes)}")
        if true_classes[1] is not None and true_classes[1] != attrs["num_true"]:
            raise ShapeError(f"Dimension must be {attrs['num_true']} but is {true_classes[1]}")
    if sampled is not None and len(sampled) != 1:
        raise ShapeError(f"Shape must be rank 1 but is rank {len(sampled)}")
    return [(dtypes.int32, (None,)), (dtypes.int64, (None,)), (dtypes.float32, (None,))]
