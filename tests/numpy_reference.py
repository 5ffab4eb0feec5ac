"""Plain-numpy references for the kernels devlab writes against ``xp``: loops that follow the
definitions (TF's docs), slow but obviously right, for small test inputs."""
import numpy as np


def same_or_valid(size, window, stride, padding, dilation=1):
    """(output size, padding before) along one dim, as TF computes them."""
    window = (window - 1) * dilation + 1
    if padding == "SAME":
        out = -(-size // stride)
        return out, max((out - 1) * stride + window - size, 0) // 2
    return (size - window) // stride + 1, 0


def conv2d(x, w, stride, padding, dilation=1):
    n, h, wd, c = x.shape
    kh, kw, _, o = w.shape
    oh, top = same_or_valid(h, kh, stride, padding, dilation)
    ow, left = same_or_valid(wd, kw, stride, padding, dilation)
    out = np.zeros((n, oh, ow, o))
    for i in range(oh):
        for j in range(ow):
            for di in range(kh):
                for dj in range(kw):
                    r, q = i * stride + di * dilation - top, j * stride + dj * dilation - left
                    if 0 <= r < h and 0 <= q < wd:
                        out[:, i, j, :] += x[:, r, q, :] @ w[di, dj]
    return out


def conv2d_backprop_input(shape, w, dy, stride, padding, dilation=1):
    n, h, wd, c = shape
    kh, kw = w.shape[:2]
    _, top = same_or_valid(h, kh, stride, padding, dilation)
    _, left = same_or_valid(wd, kw, stride, padding, dilation)
    dx = np.zeros(shape)
    for i in range(dy.shape[1]):
        for j in range(dy.shape[2]):
            for di in range(kh):
                for dj in range(kw):
                    r, q = i * stride + di * dilation - top, j * stride + dj * dilation - left
                    if 0 <= r < h and 0 <= q < wd:
                        dx[:, r, q, :] += dy[:, i, j, :] @ w[di, dj].T
    return dx


def conv2d_backprop_filter(x, shape, dy, stride, padding, dilation=1):
    kh, kw = shape[:2]
    h, wd = x.shape[1:3]
    _, top = same_or_valid(h, kh, stride, padding, dilation)
    _, left = same_or_valid(wd, kw, stride, padding, dilation)
    dw = np.zeros(shape)
    for i in range(dy.shape[1]):
        for j in range(dy.shape[2]):
            for di in range(kh):
                for dj in range(kw):
                    r, q = i * stride + di * dilation - top, j * stride + dj * dilation - left
                    if 0 <= r < h and 0 <= q < wd:
                        dw[di, dj] += x[:, r, q, :].T @ dy[:, i, j, :]
    return dw


def pool(x, k, stride, padding, kind):
    """Max or average pooling; SAME averages only the real (unpadded) inputs."""
    n, h, wd, c = x.shape
    oh, top = same_or_valid(h, k, stride, padding)
    ow, left = same_or_valid(wd, k, stride, padding)
    out = np.zeros((n, oh, ow, c))
    for i in range(oh):
        for j in range(ow):
            r0, q0 = i * stride - top, j * stride - left
            window = x[:, max(r0, 0):r0 + k, max(q0, 0):q0 + k, :]
            out[:, i, j, :] = window.max(axis=(1, 2)) if kind == "max" else window.mean(axis=(1, 2))
    return out


def max_pool_grad(x, dy, k, stride, padding):
    """Each window's gradient goes to its first maximum (in scan order)."""
    n, h, wd, c = x.shape
    _, top = same_or_valid(h, k, stride, padding)
    _, left = same_or_valid(wd, k, stride, padding)
    dx = np.zeros_like(x, dtype=float)
    for b in range(n):
        for ch in range(c):
            for i in range(dy.shape[1]):
                for j in range(dy.shape[2]):
                    best, where = -np.inf, None
                    for di in range(k):
                        for dj in range(k):
                            r, q = i * stride - top + di, j * stride - left + dj
                            if 0 <= r < h and 0 <= q < wd and x[b, r, q, ch] > best:
                                best, where = x[b, r, q, ch], (r, q)
                    dx[b, where[0], where[1], ch] += dy[b, i, j, ch]
    return dx


def avg_pool_grad(shape, dy, k, stride, padding):
    n, h, wd, c = shape
    _, top = same_or_valid(h, k, stride, padding)
    _, left = same_or_valid(wd, k, stride, padding)
    dx = np.zeros(shape)
    for i in range(dy.shape[1]):
        for j in range(dy.shape[2]):
            r0, q0 = i * stride - top, j * stride - left
            rs, qs = slice(max(r0, 0), min(r0 + k, h)), slice(max(q0, 0), min(q0 + k, wd))
            count = (rs.stop - rs.start) * (qs.stop - qs.start)
            dx[:, rs, qs, :] += dy[:, i:i + 1, j:j + 1, :] / count
    return dx


def lrn(x, radius, bias, alpha, beta):
    out = np.zeros_like(x, dtype=float)
    depth = x.shape[-1]
    for d in range(depth):
        lo, hi = max(0, d - radius), min(depth, d + radius + 1)
        out[..., d] = x[..., d] / (bias + alpha * (x[..., lo:hi] ** 2).sum(-1)) ** beta
    return out


def log_softmax(x):
    shifted = x - x.max(-1, keepdims=True)
    return shifted - np.log(np.exp(shifted).sum(-1, keepdims=True))
