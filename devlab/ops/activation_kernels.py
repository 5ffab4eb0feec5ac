"""Kernels of the activations beyond relu/sigmoid/tanh that training scripts use (leaky_relu, elu,
selu, softplus, relu6, softsign) and of their gradient ops, as TensorFlow's functors compute them. Each
keeps its input's dtype (numpy would promote a float32 array times a float64 constant)."""

# TF's SELU constants (Klambauer et al.): scale * alpha * (e^x - 1) below 0, scale * x above
SELU_SCALE = 1.0507009873554804934193349852946
SELU_ALPHA = 1.6732632423543772848170429916717


def _typed(x, value):
    return x.dtype.type(value)


def leaky_relu(k, x):
    """x where x > 0, else alpha * x."""
    return k.xp.where(x > 0, x, x * _typed(x, k.attrs["alpha"]))


def leaky_relu_grad(k, dy, x):
    """dy where the input x > 0, else alpha * dy."""
    return k.xp.where(x > 0, dy, dy * _typed(dy, k.attrs["alpha"]))


def elu(k, x):
    """e^x - 1 below 0, x above."""
    return k.xp.where(x < 0, k.xp.expm1(x), x)


def elu_grad(k, dy, y):
    """dy * (y + 1) where the output y < 0 (the derivative of e^x - 1 is e^x = y + 1), else dy."""
    return k.xp.where(y < 0, dy * (y + _typed(y, 1)), dy)


def selu(k, x):
    scale, scale_alpha = _typed(x, SELU_SCALE), _typed(x, SELU_SCALE * SELU_ALPHA)
    return k.xp.where(x < 0, scale_alpha * k.xp.expm1(x), scale * x)


def selu_grad(k, dy, y):
    """dy * (y + scale * alpha) below 0, dy * scale above (from the output y)."""
    scale, scale_alpha = _typed(y, SELU_SCALE), _typed(y, SELU_SCALE * SELU_ALPHA)
    return k.xp.where(y < 0, dy * (y + scale_alpha), dy * scale)


def softplus(k, x):
    """log(e^x + 1), computed without overflow."""
    return k.xp.logaddexp(_typed(x, 0), x)


def relu6(k, x):
    """min(max(x, 0), 6)"""
    return k.xp.minimum(k.xp.maximum(x, _typed(x, 0)), _typed(x, 6))


def relu6_grad(k, dy, y):
    """dy where 0 < y < 6 (TF reads the output), else 0."""
    return k.xp.where((y > 0) & (y < 6), dy, _typed(dy, 0))


def softsign(k, x):
    """x / (1 + |x|)"""
    return x / (_typed(x, 1) + k.xp.abs(x))


def softsign_grad(k, dy, x):
    """dy / (1 + |x|)²"""
    d = _typed(x, 1) + k.xp.abs(x)
    return dy / (d * d)
