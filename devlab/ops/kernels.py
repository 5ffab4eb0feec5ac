"""Kernels, written once against an array module ``xp`` (numpy on CPU, cupy on a real GPU).

Each kernel is ``f(k, *inputs)``: ``k.xp`` is the array module, ``k.attrs`` the op's attrs,
``k.rng`` a per-op random generator, ``k.op_name`` the node. Stateful kernels receive variable
references (``k`` never touches session internals beyond those handles).
"""


def const(k):
    return k.xp.asarray(k.attrs["value"])


def placeholder(k):
    raise AssertionError("a placeholder is fed, never run")  # the executor reports the feed error


def identity(k, x):
    return x


def add(k, a, b):
    return k.xp.add(a, b)


def sub(k, a, b):
    return k.xp.subtract(a, b)


def mul(k, a, b):
    return k.xp.multiply(a, b)


def real_div(k, a, b):
    return k.xp.divide(a, b).astype(a.dtype, copy=False)


def maximum(k, a, b):
    return k.xp.maximum(a, b)


def minimum(k, a, b):
    return k.xp.minimum(a, b)


def pow_(k, a, b):
    return k.xp.power(a, b)


def unary(name):
    """A kernel applying ``xp.<name>`` elementwise, keeping the input's dtype."""
    def kernel(k, x):
        return getattr(k.xp, name)(x).astype(x.dtype, copy=False)
    kernel.__name__ = name
    return kernel


def rsqrt(k, x):
    return (1 / k.xp.sqrt(x)).astype(x.dtype, copy=False)


def reciprocal(k, x):
    return (1 / x).astype(x.dtype, copy=False)


def relu(k, x):
    return k.xp.maximum(x, 0).astype(x.dtype, copy=False)


def sigmoid(k, x):
    return (1 / (1 + k.xp.exp(-x))).astype(x.dtype, copy=False)


def softmax(k, x):
    e = k.xp.exp(x - x.max(axis=-1, keepdims=True))
    return (e / e.sum(axis=-1, keepdims=True)).astype(x.dtype, copy=False)


def relu_grad(k, dy, x):
    return (dy * (x > 0)).astype(dy.dtype, copy=False)


def sigmoid_grad(k, y, dy):
    return (dy * y * (1 - y)).astype(dy.dtype, copy=False)


def tanh_grad(k, y, dy):
    return (dy * (1 - y * y)).astype(dy.dtype, copy=False)


def matmul(k, a, b):
    if k.attrs.get("transpose_a"):
        a = a.T
    if k.attrs.get("transpose_b"):
        b = b.T
    return k.xp.matmul(a, b)


def add_n(k, *xs):
    out = xs[0].copy()
    for x in xs[1:]:
        out += x
    return out


def reducer(name):
    """A kernel applying ``xp.<name>`` over the ``axis`` attr (None: every axis)."""
    def kernel(k, x, *axes_input):  # the axes are also an attr: the input only names them, as in TF
        axis = k.attrs["axis"]
        out = getattr(k.xp, name)(x, axis=None if axis is None else tuple(axis), keepdims=k.attrs["keep_dims"])
        return k.xp.asarray(out, dtype=x.dtype)
    kernel.__name__ = name
    return kernel


def reshape(k, x):
    return x.reshape(k.attrs["shape"])


def transpose(k, x):
    return k.xp.transpose(x, k.attrs["perm"])


def concat(k, *xs):
    return k.xp.concatenate(xs, axis=k.attrs["axis"])


def stack(k, *xs):
    return k.xp.stack(xs, axis=k.attrs["axis"])


def expand_dims(k, x):
    return k.xp.expand_dims(x, k.attrs["axis"])


def fill(k, dims, value):
    return k.xp.full(tuple(int(d) for d in dims), value, dtype=value.dtype)


def zeros_like(k, x):
    return k.xp.zeros_like(x)


def ones_like(k, x):
    return k.xp.ones_like(x)


def shape(k, x):
    return k.xp.asarray(x.shape, dtype=k.attrs["out_type"].as_numpy_dtype)


def size(k, x):
    return k.xp.asarray(x.size, dtype="int32")


def rank(k, x):
    return k.xp.asarray(x.ndim, dtype="int32")


def cast(k, x):
    return x.astype(k.attrs["DstT"].as_numpy_dtype)


def equal(k, a, b):
    return k.xp.equal(a, b)


def greater(k, a, b):
    return k.xp.greater(a, b)


def less(k, a, b):
    return k.xp.less(a, b)


def argmax(k, x):
    return k.xp.argmax(x, axis=k.attrs["axis"]).astype(k.attrs["output_type"].as_numpy_dtype)


def one_hot(k, indices):
    depth = k.attrs["depth"]
    eye = k.xp.eye(depth, dtype=k.attrs["dtype"].as_numpy_dtype)
    return eye[indices]


def softmax_xent(k, logits, labels):
    """Per-example loss and its gradient with respect to the logits."""
    xp = k.xp
    shifted = logits - logits.max(axis=-1, keepdims=True)
    log_sum = xp.log(xp.exp(shifted).sum(axis=-1, keepdims=True))
    log_probs = shifted - log_sum
    loss = -(labels * log_probs).sum(axis=-1)
    backprop = xp.exp(log_probs) - labels
    return loss.astype(logits.dtype), backprop.astype(logits.dtype)


def random_uniform(k, shape=None):
    return k.xp.asarray(k.rng.random(k.attrs["shape"]), dtype=k.attrs["dtype"].as_numpy_dtype)


def random_normal(k, shape=None):
    return k.xp.asarray(k.rng.standard_normal(k.attrs["shape"]), dtype=k.attrs["dtype"].as_numpy_dtype)


def truncated_normal(k, shape=None):
    """Standard normal samples, redrawn until each lies within two standard deviations."""
    out = k.rng.standard_normal(k.attrs["shape"])
    bad = abs(out) > 2
    while bad.any():
        out[bad] = k.rng.standard_normal(int(bad.sum()))
        bad = abs(out) > 2
    return k.xp.asarray(out, dtype=k.attrs["dtype"].as_numpy_dtype)


def no_op(k):
    return None


def as_string(k, x):
    import numpy as np  # strings live on the host only, whatever xp is
    return np.asarray(np.vectorize(lambda v: f"{v:g}" if isinstance(v, float) else str(v), otypes=[object])(x))


def string_join(k, *xs):
    import numpy as np
    sep = k.attrs["separator"]
    return np.asarray(sep.join(str(x.item() if hasattr(x, "item") else x) for x in xs), dtype=object)


def stop_gradient(k, x):
    return x


# -- stateful kernels: variables ---------------------------------------------------------------
def variable(k):
    return k.variables.ref(k.op_name, k.device)


def assign(k, ref, value):
    ref.assign(value)
    return ref


def assign_add(k, ref, value):
    ref.assign(ref.read() + value)
    return ref


def assign_sub(k, ref, value):
    ref.assign(ref.read() - value)
    return ref


def is_variable_initialized(k, ref):
    return k.xp.asarray(ref.is_initialized())


def apply_gradient_descent(k, var, lr, delta):
    var.assign(var.read() - lr * delta)
    return var


def apply_momentum(k, var, accum, lr, grad, momentum):
    accum.assign(accum.read() * momentum + grad)
    if k.attrs.get("use_nesterov"):
        var.assign(var.read() - lr * grad - lr * momentum * accum.read())
    else:
        var.assign(var.read() - lr * accum.read())
    return var


def apply_adam(k, var, m, v, beta1_power, beta2_power, lr, beta1, beta2, epsilon, grad):
    xp = k.xp
    alpha = lr * xp.sqrt(1 - beta2_power) / (1 - beta1_power)
    m.assign(m.read() + (grad - m.read()) * (1 - beta1))
    v.assign(v.read() + (grad * grad - v.read()) * (1 - beta2))
    var.assign((var.read() - alpha * m.read() / (xp.sqrt(v.read()) + epsilon)).astype(grad.dtype))
    return var


def scalar_summary(k, tag, value):
    import numpy as np  # a summary is a host-side string
    return np.asarray(f"{tag.item() if hasattr(tag, 'item') else tag}: {float(value):g}", dtype=object)


def dataset_slice(k):
    """The next batch's share for one tower, cycling through an in-memory array (host only)."""
    import numpy as np
    data, batch, tower, towers = k.attrs["data"], k.attrs["batch"], k.attrs["tower"], k.attrs["towers"]
    position = k.variables.ref(k.op_name + "/position", k.device)
    step = int(position.read()) if position.is_initialized() else 0
    position.assign(step + 1)
    n_batches = len(data) // batch
    start = (step % n_batches) * batch + tower * (batch // towers)
    return np.asarray(data[start:start + batch // towers])
