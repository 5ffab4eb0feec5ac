"""TF's ``BroadcastArgs`` op (``tf.broadcast_dynamic_shape``): the shape two shapes broadcast to,
computed when run (InvalidArgumentError in TF's words when they do not broadcast)."""
import numpy as np

from ..framework import errors


def shape(inputs, attrs):
    """A vector as long as the longer of the two shapes (unknown when either length is)."""
    a, b = inputs[0].shape.sizes, inputs[1].shape.sizes
    for shape in (a, b):
        if shape is not None and len(shape) != 1:
            raise _shape_error(f"Shape must be rank 1 but is rank {len(shape)}")
    length = None if a is None or b is None or a[0] is None or b[0] is None else max(a[0], b[0])
    return [(inputs[0].dtype.base_dtype, (length,))]


def _shape_error(text):
    from .shapes import ShapeError  # the shape rules import this module's kernel for folding
    return ShapeError(text)


def kernel(k, s0, s1):
    x, y = [int(d) for d in np.asarray(s0).reshape(-1)], [int(d) for d in np.asarray(s1).reshape(-1)]
    try:
        out = np.broadcast_shapes(tuple(x), tuple(y))
    except ValueError:
        raise errors.InvalidArgumentError(None, None, f"Incompatible shapes: [{','.join(map(str, x))}] vs. "
                                                      f"[{','.join(map(str, y))}]") from None
    return np.asarray(out, dtype=np.asarray(s0).dtype)
