"""The kernel of TF's ``BroadcastArgs`` op (``tf.broadcast_dynamic_shape``): the shape two shapes
broadcast to (InvalidArgumentError in TF's words when they do not). Its shape rule is
``shapes.broadcast_args``; shape inference folds it through this kernel (``tensor_util``)."""
import numpy as np

from ..framework import errors
from .kernels import to_host


def kernel(k, s0, s1):
    s0, s1 = to_host(s0), to_host(s1)  # shapes live on the host (TF's host memory)
    x, y = [int(d) for d in s0.reshape(-1)], [int(d) for d in s1.reshape(-1)]
    try:
        out = np.broadcast_shapes(tuple(x), tuple(y))
    except ValueError:
        raise errors.InvalidArgumentError(None, None, f"Incompatible shapes: [{','.join(map(str, x))}] vs. "
                                                      f"[{','.join(map(str, y))}]") from None
    return np.asarray(out, dtype=s0.dtype)
