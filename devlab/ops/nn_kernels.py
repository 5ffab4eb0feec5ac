"""Neural-network kernels, written once against ``xp`` like those in ``kernels.py``: losses, bias,
convolution, pooling and local response normalisation, with the kernels of their gradients.

Images are NHWC and filters HWIO, TensorFlow's defaults. A convolution or a pooling is computed
from *windows*: for each of the ``kh * kw`` filter taps, the strided view of the (padded) input
that this tap sees at every output position. Stacking the views gives im2col's matrix, so a
convolution is one matrix product; a gradient adds each tap's share back into its view. Only
slicing, ``stack``, ``matmul`` and reductions are used, so the same code runs on numpy and cupy.
"""
from ..framework import errors
from .kernels import ints


# -- softmax and losses --------------------------------------------------------------------------
def log_softmax(k, x):
    shifted = x - x.max(axis=-1, keepdims=True)
    return (shifted - k.xp.log(k.xp.exp(shifted).sum(axis=-1, keepdims=True))).astype(x.dtype, copy=False)


def softmax_xent(k, logits, labels):
    """Per-example loss and its gradient with respect to the logits."""
    log_probs = log_softmax(k, logits)
    loss = -(labels * log_probs).sum(axis=-1)
    return loss.astype(logits.dtype), (k.xp.exp(log_probs) - labels).astype(logits.dtype)


def sparse_softmax_xent(k, logits, labels):
    """As softmax_xent, with one class id per example instead of a distribution."""
    xp = k.xp
    depth = logits.shape[-1]
    bad = (labels < 0) | (labels >= depth)
    if bool(bad.any()):
        value = int(labels[bad].reshape(-1)[0])
        raise ValueError(f"Received a label value of {value} which is outside the valid range of [0, {depth}).  "
                         f"Label values: {' '.join(str(v) for v in labels.reshape(-1).tolist())}")
    log_probs = log_softmax(k, logits)
    hot = xp.expand_dims(labels, -1) == xp.arange(depth)
    loss = -xp.where(hot, log_probs, 0).sum(axis=-1)
    return loss.astype(logits.dtype), (xp.exp(log_probs) - hot).astype(logits.dtype)


def l2_loss(k, x):
    """sum(x²) / 2"""
    return k.xp.asarray((x * x).sum() / 2, dtype=x.dtype)


# -- bias --------------------------------------------------------------------------------------
def _channel_axis(k, ndim):
    return 1 if k.attrs.get("data_format", "NHWC") in ("NCHW", b"NCHW") and ndim > 2 else ndim - 1


def bias_add(k, x, bias):
    axis = _channel_axis(k, x.ndim)
    if axis != x.ndim - 1:
        bias = bias.reshape((-1,) + (1,) * (x.ndim - 1 - axis))
    return k.xp.add(x, bias, out=k.out)


def bias_add_grad(k, dy):
    """The sum of ``dy`` over every axis but the channels."""
    axis = _channel_axis(k, dy.ndim)
    return dy.sum(axis=tuple(i for i in range(dy.ndim) if i != axis)).astype(dy.dtype, copy=False)


# -- windows -----------------------------------------------------------------------------------
def output_size(in_size, window, stride, dilation, padding):
    """(output size, padding before, padding after) along one spatial dim, as TF computes them:
    SAME keeps ceil(in / stride) outputs and pads evenly (the extra one after); VALID pads nothing."""
    effective = (window - 1) * dilation + 1
    if padding == "SAME":
        out = -(-in_size // stride)
        total = max((out - 1) * stride + effective - in_size, 0)
        return out, total // 2, total - total // 2
    return (in_size - effective) // stride + 1, 0, 0


class Windows:
    """The geometry of a 2-D window op on NHWC input: for each tap (i, j), the strided view of the
    padded input that the tap sees at every output position."""

    def __init__(self, k, input_shape, window_hw):
        strides = k.attrs["strides"]
        dilations = k.attrs.get("dilations") or [1, 1, 1, 1]
        padding = _text(k.attrs["padding"])
        self.n, self.h, self.w, self.c = input_shape
        self.kh, self.kw = window_hw
        self.sh, self.sw, self.dh, self.dw = strides[1], strides[2], dilations[1], dilations[2]
        self.oh, self.top, self.bottom = output_size(self.h, self.kh, self.sh, self.dh, padding)
        self.ow, self.left, self.right = output_size(self.w, self.kw, self.sw, self.dw, padding)

    def pad(self, xp, x, fill=0):
        widths = [(0, 0), (self.top, self.bottom), (self.left, self.right), (0, 0)]
        if not any(a or b for a, b in widths):
            return x
        return xp.pad(x, widths, mode="constant", constant_values=fill)

    def view(self, padded, i, j):
        """What tap (i, j) sees: shape (N, out_h, out_w, C)."""
        r, c = i * self.dh, j * self.dw
        return padded[:, r:r + self.sh * (self.oh - 1) + 1:self.sh, c:c + self.sw * (self.ow - 1) + 1:self.sw, :]

    def taps(self):
        return [(i, j) for i in range(self.kh) for j in range(self.kw)]

    def stacked(self, xp, x, fill=0):
        """Every tap's view, stacked: shape (N, out_h, out_w, kh * kw, C) (im2col)."""
        padded = self.pad(xp, x, fill)
        return xp.stack([self.view(padded, i, j) for i, j in self.taps()], axis=3)

    def scatter(self, xp, shares, dtype):
        """The input-shaped sum of each tap's share, ``shares(t, i, j)`` for tap number t."""
        padded = xp.zeros((self.n, self.h + self.top + self.bottom, self.w + self.left + self.right, self.c), dtype)
        for t, (i, j) in enumerate(self.taps()):
            self.view(padded, i, j)[...] += shares(t, i, j)
        return padded[:, self.top:self.top + self.h, self.left:self.left + self.w, :]


def _text(value):
    return value.decode() if isinstance(value, bytes) else value


# -- convolution -------------------------------------------------------------------------------
def conv2d(k, x, filters):
    """out[n, y, x, o] = sum over taps (i, j) and input channels c of
    input[n, y*s + i*d, x*s + j*d, c] * filter[i, j, c, o]: one matrix product over im2col."""
    kh, kw, cin, cout = filters.shape
    win = Windows(k, x.shape, (kh, kw))
    cols = win.stacked(k.xp, x).reshape(-1, kh * kw * cin)
    return k.xp.matmul(cols, filters.reshape(-1, cout)).reshape(win.n, win.oh, win.ow, cout)


def conv2d_backprop_input(k, input_sizes, filters, dy):
    kh, kw, cin, cout = filters.shape
    win = Windows(k, ints(input_sizes), (kh, kw))
    dcols = k.xp.matmul(dy.reshape(-1, cout), filters.reshape(-1, cout).T)
    dcols = dcols.reshape(win.n, win.oh, win.ow, kh * kw, cin)
    return win.scatter(k.xp, lambda t, i, j: dcols[:, :, :, t, :], dy.dtype)


def conv2d_backprop_filter(k, x, filter_sizes, dy):
    kh, kw, cin, cout = ints(filter_sizes)
    win = Windows(k, x.shape, (kh, kw))
    cols = win.stacked(k.xp, x).reshape(-1, kh * kw * cin)
    return k.xp.matmul(cols.T, dy.reshape(-1, cout)).reshape(kh, kw, cin, cout)


# -- pooling -----------------------------------------------------------------------------------
def _lowest(xp, dtype):
    """The padding value of max pooling: below every input."""
    import numpy as np  # dtype arithmetic on the host, for numpy and cupy arrays alike
    return -np.inf if np.dtype(dtype).kind == "f" else np.iinfo(dtype).min


def _pool_windows(k, shape):
    ksize = k.attrs["ksize"]
    return Windows(k, shape, (ksize[1], ksize[2]))


def max_pool(k, x):
    win = _pool_windows(k, x.shape)
    return win.stacked(k.xp, x, _lowest(k.xp, x.dtype)).max(axis=3)


def max_pool_grad(k, x, y, dy):
    """Each window's gradient goes to its maximum (the first one, in scan order, on a tie)."""
    xp = k.xp
    win = _pool_windows(k, x.shape)
    first = win.stacked(xp, x, _lowest(xp, x.dtype)).argmax(axis=3)
    return win.scatter(xp, lambda t, i, j: xp.where(first == t, dy, 0).astype(dy.dtype), dy.dtype)


def _counts(k, win):
    """How many real (unpadded) inputs each window covers: SAME padding does not average zeros in."""
    ones = k.xp.ones((1, win.h, win.w, 1), dtype="float64")
    return win.stacked(k.xp, ones).sum(axis=3)


def avg_pool(k, x):
    win = _pool_windows(k, x.shape)
    return (win.stacked(k.xp, x).sum(axis=3) / _counts(k, win)).astype(x.dtype)


def avg_pool_grad(k, input_shape, dy):
    win = _pool_windows(k, ints(input_shape))
    share = (dy / _counts(k, win)).astype(dy.dtype)
    return win.scatter(k.xp, lambda t, i, j: share, dy.dtype)


# -- local response normalisation -------------------------------------------------------------
def _window_sum(xp, v, radius):
    """sum of v[..., d - radius : d + radius + 1] for each channel d (zeros beyond the edges)."""
    padded = xp.pad(v, [(0, 0)] * (v.ndim - 1) + [(radius, radius)])
    depth = v.shape[-1]
    out = padded[..., 0:depth].copy()
    for i in range(1, 2 * radius + 1):
        out += padded[..., i:i + depth]
    return out


def _lrn_norm(k, x):
    a = k.attrs
    return a["bias"] + a["alpha"] * _window_sum(k.xp, x * x, a["depth_radius"])


def lrn(k, x):
    """x / (bias + alpha * sum of x² over nearby channels) ** beta"""
    return (x * _lrn_norm(k, x) ** -k.attrs["beta"]).astype(x.dtype)


def lrn_grad(k, dy, x, y):
    """dx_j = dy_j N_j^-beta - 2 alpha beta x_j sum over i near j of dy_i x_i N_i^(-beta-1)."""
    a = k.attrs
    norm = _lrn_norm(k, x)
    near = _window_sum(k.xp, dy * x * norm ** (-a["beta"] - 1), a["depth_radius"])
    return (dy * norm ** -a["beta"] - 2 * a["alpha"] * a["beta"] * x * near).astype(dy.dtype)


# -- fused batch normalisation ---------------------------------------------------------------
def fused_batch_norm(k, x, scale, offset, mean, variance):
    """(x - mean) / sqrt(variance + epsilon) * scale + offset over the channels (NHWC). Training
    uses the batch's statistics and also returns them: the variance unbiased (for the moving
    average) and, in the reserve spaces, the mean and the biased variance the gradient needs."""
    xp, eps = k.xp, k.attrs["epsilon"]
    if k.attrs.get("is_training", True):
        axes = tuple(range(x.ndim - 1))
        n = x.size // x.shape[-1]
        mean, biased = x.mean(axis=axes), x.var(axis=axes)
        variance = biased * (n / max(n - 1, 1))
    else:
        biased = variance
    y = (x - mean) / xp.sqrt(biased + eps) * scale + offset
    dtype = x.dtype
    return [y.astype(dtype), mean.astype(dtype), variance.astype(dtype), mean.astype(dtype), biased.astype(dtype),
            xp.zeros((0,), dtype)]


def fused_batch_norm_grad(k, dy, x, scale, mean, variance, reserve_3):
    """The gradients of fused_batch_norm with respect to x, scale and offset (``mean``/``variance``:
    the batch's when training, the population's otherwise)."""
    xp, eps = k.xp, k.attrs["epsilon"]
    axes = tuple(range(x.ndim - 1))
    inv = 1 / xp.sqrt(variance + eps)
    xhat = (x - mean) * inv
    doffset = dy.sum(axis=axes)
    dscale = (dy * xhat).sum(axis=axes)
    if k.attrs.get("is_training", True):
        n = x.size // x.shape[-1]
        dx = scale * inv * (dy - doffset / n - xhat * dscale / n)
    else:
        dx = dy * scale * inv
    dtype = dy.dtype
    return [dx.astype(dtype), dscale.astype(dtype), doffset.astype(dtype), xp.zeros((0,), dtype), xp.zeros((0,), dtype)]


# -- top k -----------------------------------------------------------------------------------------
def top_k(k, x, want):
    """The ``want`` largest values along the last axis, largest first, and their indices (a tie
    goes to the lower index, as TF's stable sort does)."""
    xp, want = k.xp, int(want)
    if want < 0:
        raise errors.InvalidArgumentError(None, None, f"Need k >= 0, got {want}")
    if x.shape[-1] < want:
        raise errors.InvalidArgumentError(
            None, None, f"input must have at least k columns. Had {x.shape[-1]}, needed {want}")
    order = xp.argsort(-x, axis=-1, kind="stable")[..., :want]
    values = xp.take_along_axis(x, order, axis=-1)
    return values, order.astype(k.attrs["index_type"].as_numpy_dtype)


def in_top_k(k, predictions, targets, want):
    """Whether each row's target class is among its ``want`` highest predictions: fewer than
    ``want`` classes score strictly more (ties all count as in), and the target's score is finite."""
    xp = k.xp
    rows = xp.arange(predictions.shape[0])
    valid = (targets >= 0) & (targets < predictions.shape[1])
    target = predictions[rows, xp.where(valid, targets, 0)]
    above = (predictions > target[:, None]).sum(axis=1)
    return valid & xp.isfinite(target) & (above < int(want))
