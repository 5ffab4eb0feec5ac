"""Neural-network kernels, written once against ``xp`` like those in ``kernels.py``: losses, bias,
convolution, pooling and local response normalisation, with the kernels of their gradients.

Images are NHWC and filters HWIO, TensorFlow's defaults. A convolution or a pooling is computed
from *windows*: ``as_strided`` views every output position's window of the (padded) input at
once without copying, and one reshape copy of a block of it is im2col's matrix, so a convolution
is one matrix product per block of images. Pooling runs over the ``kh * kw`` taps one at a time
(the strided view of what each tap sees everywhere, clipped to the input rather than padded),
and a gradient adds each tap's share back into its view (where the ``fast`` extra installs
numba, ``fast_pool.py`` compiles them window by window, to the same values). Only slicing, ``as_strided``,
``matmul`` and ufuncs are used, so the same code runs on numpy and cupy. Convolutions split their images over the cores with ``k.parts`` when the
context offers it (host arrays); pooling's short passes stay in one thread.
"""
from ..framework import errors
from . import fast_conv, fast_pool
from .kernels import ints
from .relu_kernels import sum_leading


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
    """The sum of ``dy`` over every axis but the channels (NHWC: the leading axes, added in wide
    blocks of rows, ``relu_kernels.sum_leading``)."""
    axis = _channel_axis(k, dy.ndim)
    if axis == dy.ndim - 1:  # None for what it does not take (not a large host float array)
        total = sum_leading(dy, axis)
        if total is not None:
            return total
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
    """The geometry of a 2-D window op on NHWC input: for each output position, the window of the
    padded input it sees; ``patches`` views them all at once, ``clipped`` what one tap sees."""

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
        """``x`` inside a border of ``fill`` (one copy; ``x`` itself when there is no border)."""
        if not (self.top or self.bottom or self.left or self.right):
            return x
        n, h, w, c = x.shape
        padded = xp.full((n, h + self.top + self.bottom, w + self.left + self.right, c), fill, x.dtype)
        padded[:, self.top:self.top + h, self.left:self.left + w, :] = x
        return padded

    def patches(self, xp, padded):
        """Every output position's window, without copying: shape (N, out_h, out_w, kh, kw, C),
        a strided view of ``padded`` (its reshape to (positions, kh * kw * C) is im2col's matrix)."""
        sn, sh, sw, sc = padded.strides
        shape = (padded.shape[0], self.oh, self.ow, self.kh, self.kw, padded.shape[3])
        strides = (sn, sh * self.sh, sw * self.sw, sh * self.dh, sw * self.dw, sc)
        return xp.lib.stride_tricks.as_strided(padded, shape, strides)

    def taps(self):
        return [(i, j) for i in range(self.kh) for j in range(self.kw)]

    def clipped(self, i, j):
        """Tap (i, j) without padding: (the output positions whose tap falls inside the input, the
        input pixels they see), as index tuples of NHWC arrays; None when there are none."""
        rows = _along(i * self.dh - self.top, self.sh, self.h, self.oh)
        cols = _along(j * self.dw - self.left, self.sw, self.w, self.ow)
        if rows is None or cols is None:
            return None
        return (slice(None), rows[0], cols[0]), (slice(None), rows[1], cols[1])

    def counts(self, xp):
        """How many real (unpadded) inputs each window covers, shape (1, out_h, out_w, 1): SAME
        padding does not average zeros in. Rows and columns count apart (a window is a rectangle)."""
        import numpy as np  # a few host integers, for numpy and cupy alike

        def along(size, out, before, stride, dilation, window):
            starts = np.arange(out)[:, None] * stride + np.arange(window)[None, :] * dilation - before
            return ((starts >= 0) & (starts < size)).sum(axis=1)

        rows = along(self.h, self.oh, self.top, self.sh, self.dh, self.kh)
        cols = along(self.w, self.ow, self.left, self.sw, self.dw, self.kw)
        return xp.asarray((rows[:, None] * cols[None, :]).astype("float64")[None, :, :, None])


def _along(offset, stride, size, out):
    """Along one dim, for a tap that output y sees at input y * stride + offset: (the outputs
    whose input lies in [0, size), those inputs), as slices; None when there are none."""
    lo = max(0, -(offset // stride))  # the first y with y * stride + offset >= 0
    hi = min(out, (size - 1 - offset) // stride + 1) if size - 1 - offset >= 0 else 0
    if hi <= lo:
        return None
    return slice(lo, hi), slice(lo * stride + offset, (hi - 1) * stride + offset + 1, stride)


def _text(value):
    return value.decode() if isinstance(value, bytes) else value


def _blocks(count, per_item, target=1 << 20):
    """Ranges of ``count`` images, each about ``target`` bytes of im2col (``per_item`` bytes an
    image): a block's copy stays in the cache while its product reads it. Measured on the CNN's
    5x5x64 convolution (one thread, CPU time): 1 MB blocks 11.8 ms, 8 MB 14.8 ms, one block 15.6 ms."""
    step = max(1, min(count, target // max(per_item, 1)))
    return [(lo, min(lo + step, count)) for lo in range(0, count, step)]


def _in_parts(k, fn, count, blas=True):
    """``fn(lo, hi)`` over ranges covering ``range(count)``: split over the cores for host arrays
    (``k.parts``; ``blas``: BLAS held to one thread meanwhile), in one call otherwise."""
    parts = getattr(k, "parts", None)
    if parts is None:
        fn(0, count)
    else:
        parts(fn, count, blas)


# -- convolution -------------------------------------------------------------------------------
def _correlate(k, padded, win, wmat, out):
    """out[n, y, x, :] = window(n, y, x) · wmat, for the windows of ``padded`` that ``win``
    describes: im2col one cache-sized block of images at a time (one strided copy), then one
    matrix product per block into ``out``. Image blocks go to the cores in parallel."""
    xp = k.xp
    patches = win.patches(xp, padded)
    rows = win.oh * win.ow
    depth = wmat.shape[0]
    flat = out.reshape(-1, out.shape[-1])

    def part(lo, hi):
        for a, b in _blocks(hi - lo, rows * depth * padded.itemsize):
            cols = patches[lo + a:lo + b].reshape(-1, depth)
            xp.matmul(cols, wmat, out=flat[(lo + a) * rows:(lo + b) * rows])

    _in_parts(k, part, win.n)
    return out


def conv2d(k, x, filters):
    """out[n, y, x, o] = sum over taps (i, j) and input channels c of
    input[n, y*s + i*d, x*s + j*d, c] * filter[i, j, c, o]: a matrix product over im2col
    (or OpenVINO's convolution where the ``fastconv`` extra is installed: ``fast_conv.py``)."""
    kh, kw, cin, cout = filters.shape
    xp = k.xp
    win = Windows(k, x.shape, (kh, kw))
    fast = fast_conv.conv2d(k, win, x, filters)
    if fast is not None:
        return fast
    out = xp.empty((win.n, win.oh, win.ow, cout), xp.result_type(x, filters))
    return _correlate(k, win.pad(xp, x), win, filters.reshape(-1, cout).astype(out.dtype, copy=False), out)


def conv2d_backprop_input(k, input_sizes, filters, dy):
    """The gradient of conv2d with respect to its input. With stride 1 it is itself a convolution:
    of ``dy`` padded by the window's reach, with the filter turned 180 degrees and its in and out
    channels swapped. Otherwise, or when the input has fewer channels than ``dy`` (an image's 3:
    that im2col would copy kh * kw * cout floats a pixel to compute 3), each tap's share of
    ``filter @ dyᵀ`` is added back into its view of the input (32x24x24x3 from 5x5x3x64 filters,
    one thread: 12.8 ms as channels-last shares, 4.8 ms channels first). OpenVINO's transposed
    convolution runs instead where the ``fastconv`` extra is installed (``fast_conv.py``)."""
    kh, kw, cin, cout = filters.shape
    xp = k.xp
    win = Windows(k, ints(input_sizes), (kh, kw))
    fast = fast_conv.backprop_input(k, win, filters, dy)
    if fast is not None:
        return fast
    if win.sh == 1 and win.sw == 1 and cin >= cout:
        reach_h, reach_w = (kh - 1) * win.dh, (kw - 1) * win.dw
        back = _Geometry(win.n, win.h, win.w, kh, kw, win.dh, win.dw)
        before_h, before_w = reach_h - win.top, reach_w - win.left
        padded = xp.zeros((win.n, win.h + reach_h, win.w + reach_w, cout), dy.dtype)
        padded[:, before_h:before_h + win.oh, before_w:before_w + win.ow, :] = dy
        turned = xp.ascontiguousarray(filters[::-1, ::-1].transpose(0, 1, 3, 2)).reshape(-1, cin)
        return _correlate(k, padded, back, turned, xp.empty((win.n, win.h, win.w, cin), dy.dtype))
    # Each tap's share, channels first: (images, taps * cin, positions) = filter (taps * cin, cout)
    # times dyᵀ (cout, positions), one product per image; then added tap by tap into a
    # channels-first padded input, whose rows are long (with 3 channels last, each add would run
    # loops of 3 floats).
    wmat = xp.ascontiguousarray(filters.reshape(-1, cout))
    padded = xp.zeros((win.n, cin, win.h + win.top + win.bottom, win.w + win.left + win.right), dy.dtype)

    def part(lo, hi):
        shares = xp.matmul(wmat, dy[lo:hi].reshape(hi - lo, -1, cout).transpose(0, 2, 1))
        shares = shares.reshape(hi - lo, kh * kw, cin, win.oh, win.ow)
        for t, (i, j) in enumerate(win.taps()):
            r, c = i * win.dh, j * win.dw
            padded[lo:hi, :, r:r + win.sh * (win.oh - 1) + 1:win.sh, c:c + win.sw * (win.ow - 1) + 1:win.sw] += \
                shares[:, t]

    _in_parts(k, part, win.n)
    inside = padded[:, :, win.top:win.top + win.h, win.left:win.left + win.w]
    return xp.ascontiguousarray(inside.transpose(0, 2, 3, 1))


class _Geometry:
    """A stride-1 window geometry given directly (the convolution a stride-1 input gradient is)."""

    def __init__(self, n, oh, ow, kh, kw, dh, dw):
        self.n, self.oh, self.ow, self.kh, self.kw, self.dh, self.dw = n, oh, ow, kh, kw, dh, dw
        self.sh = self.sw = 1

    patches = Windows.patches


def conv2d_backprop_filter(k, x, filter_sizes, dy):
    """The gradient of conv2d with respect to its filter: im2colᵀ @ dy, summed over blocks of
    images (each core sums its own blocks, then the cores' sums are added); through OpenVINO where
    the ``fastconv`` extra is installed and the input has enough channels (``fast_conv.py``)."""
    kh, kw, cin, cout = ints(filter_sizes)
    xp = k.xp
    win = Windows(k, x.shape, (kh, kw))
    fast = fast_conv.backprop_filter(k, win, x, dy, (kh, kw, cin, cout))
    if fast is not None:
        return fast
    patches = win.patches(xp, win.pad(xp, x))
    rows, depth = win.oh * win.ow, kh * kw * cin
    flat_dy = dy.reshape(-1, cout)
    sums = {}  # first image -> the sum over the part's images

    def part(lo, hi):
        total = None
        for a, b in _blocks(hi - lo, rows * depth * x.itemsize):
            cols = patches[lo + a:lo + b].reshape(-1, depth)
            product = xp.matmul(cols.T, flat_dy[(lo + a) * rows:(lo + b) * rows])
            total = product if total is None else xp.add(total, product, out=total)
        sums[lo] = total

    _in_parts(k, part, win.n)
    ordered = [sums[lo] for lo in sorted(sums)]  # added in one order whichever thread ended first
    total = ordered[0]
    for other in ordered[1:]:
        total = total + other
    return total.reshape(kh, kw, cin, cout)


# -- pooling -----------------------------------------------------------------------------------
def _lowest(dtype):
    """Where a maximum starts: TensorFlow's lowest value of the dtype, the least finite float (a
    window of only -inf or NaN gives it, as TF's kernels do), the least integer."""
    import numpy as np  # dtype arithmetic on the host, for numpy and cupy arrays alike
    return np.finfo(dtype).min if np.dtype(dtype).kind == "f" else np.iinfo(dtype).min


def _pool_windows(k, shape):
    ksize = k.attrs["ksize"]
    return Windows(k, shape, (ksize[1], ksize[2]))


POOL_PARTS = 1 << 20  # input elements from which a pooling's images go to the cores in parts


def _pool_parts(k, win, fn):
    """``fn(lo, hi)`` over the images: in parts on the cores when the input is large (each part
    runs every tap over its images, which stay in the cache meanwhile), else in one call: short
    passes in threads that take turns at the interpreter lock cost more than they save."""
    if win.n * win.h * win.w * win.c >= POOL_PARTS:
        _in_parts(k, fn, win.n, blas=False)
    else:
        fn(0, win.n)


class _Phases:
    """An NHWC array's pixels sorted by row and column modulo the strides, each phase a contiguous
    array: a pooling tap sees the pixels of one phase, a block of it. Through a stride-2 view of
    the array itself a ufunc's inner loop runs over one pixel's channels (64 floats), a call per
    pixel; over a block of a phase it runs along rows. 32x24x24x64, 3x3/2, one thread: MaxPoolGrad
    8.7 ms through strided views, 3.0 ms through phases (values the same, computed in the same
    order). With stride 1 the array is its only phase."""

    def __init__(self, xp, a, sh, sw, zeros=False):
        self.sh, self.sw = sh, sw
        self.parts = {}
        for p in range(min(sh, a.shape[1])):
            for q in range(min(sw, a.shape[2])):
                view = a[:, p::sh, q::sw]
                self.parts[(p, q)] = xp.zeros(view.shape, a.dtype) if zeros else xp.ascontiguousarray(view)

    def __getitem__(self, at):
        """The block of a phase that the strided index tuple ``at`` (``Windows.clipped``) reads."""
        _, rows, cols = at
        part = self.parts[(rows.start % self.sh, cols.start % self.sw)]
        r, c = rows.start // self.sh, cols.start // self.sw
        return part[:, r:r + len(range(rows.start, rows.stop, self.sh)),
                    c:c + len(range(cols.start, cols.stop, self.sw))]

    def into(self, out):
        """Writes the phases back into their pixels of ``out`` (nothing to do where ``out`` is the
        one phase)."""
        for (p, q), part in self.parts.items():
            if part is not out:
                out[:, p::self.sh, q::self.sw] = part


def _phases(xp, a, win, zeros=False):
    """The phases of ``a`` for ``win``'s strides (``zeros``: of zeros, to add into, then written
    back with ``into``). With strides of 1, ``a`` itself, which is then zeros already if asked."""
    if win.sh == 1 and win.sw == 1:
        ph = _Phases.__new__(_Phases)
        ph.sh = ph.sw = 1
        ph.parts = {(0, 0): a}
        return ph
    return _Phases(xp, a, win.sh, win.sw, zeros)


def _reduce_taps(k, win, x, out, combine):
    """out = combine over the taps of what each sees of ``x`` (a running maximum or sum: one pass
    per tap over output-sized arrays, never the taps stacked, and no padded copy of ``x``: a tap
    touches only the outputs whose window it falls inside the input for; ``out`` starts as
    combine's identity). In one thread: these passes are short (32x24x24x64, 3x3/2: 0.9 ms in
    one call, 1.1 ms in parts on two cores)."""
    seen = _phases(k.xp, x, win) if x.ndim == 4 else x
    for i, j in win.taps():
        where = win.clipped(i, j)
        if where is not None:
            mine = out[where[0]]
            combine(mine, seen[where[1]], out=mine)
    return out


def _clipped_taps(win):
    """(output positions, input pixels) of each tap that falls inside the input somewhere, in the
    window's scan order (row by row)."""
    return [where for where in (win.clipped(i, j) for i, j in win.taps()) if where is not None]


def max_pool(k, x):
    """The maximum of each window as TensorFlow's kernels take it: a value replaces the running
    maximum only when greater, so NaN is skipped, the first of equal values is kept (-0.0 before
    0.0 gives -0.0), and a window of only NaN or -inf gives the dtype's lowest finite value.
    ``fmax`` tap by tap gives that value, but either zero of a tie of 0.0 and -0.0: a window whose
    maximum is zero takes the first zero it holds, the taps gone through backwards (masked copies
    of a mask that is mostly False where few maxima are zero; a random half-True mask would cost
    30 times more, its branches mispredicted). Compiled by numba where the ``fast`` extra installs
    it (``fast_pool.py``), same values."""
    xp = k.xp
    win = _pool_windows(k, x.shape)
    fast = fast_pool.max_pool(k, win, x, lambda fn: _pool_parts(k, win, fn))
    if fast is not None:
        return fast
    out = xp.full((win.n, win.oh, win.ow, win.c), _lowest(x.dtype), x.dtype)
    seen = _phases(xp, x, win)
    taps = _clipped_taps(win)
    for out_at, in_at in taps:
        top = out[out_at]
        xp.fmax(top, seen[in_at], out=top)
    if x.dtype.kind == "f":
        zero = out == 0
        if bool(zero.any()):
            for out_at, in_at in reversed(taps):
                xp.copyto(out[out_at], seen[in_at], where=(seen[in_at] == 0) & zero[out_at])
    return out


def max_pool_grad(k, x, y, dy):
    """Each window's gradient goes to its maximum as TF's (Eigen) kernel finds it: the window's first
    input, replaced by each later one that is greater; so the first of equal maxima, and a NaN that
    comes first keeps it (TF's default oneDNN kernel goes on to the greatest number there). The
    maximum is found again from ``x``, as TF's kernel does (``y`` is not read). Tap by tap over
    output-sized arrays: each window's maximum (``fmax``, NaN skipped), then the tap that first
    equals it claims the window, then each tap adds the gradients of the windows it claimed into its
    input pixels, the taps taken backwards so that an input adds its windows' shares in their scan
    order, as TF's kernel adds them. A block of images at a time (in parts on the cores), every pass
    writing into arrays made once. Compiled by numba where the ``fast`` extra installs it
    (``fast_pool.py``), same values bit for bit. ``tests/data/tf_max_pool.json`` records both of
    TF's kernels."""
    xp = k.xp
    win = _pool_windows(k, x.shape)
    fast = fast_pool.max_pool_grad(k, win, x, dy, lambda fn: _pool_parts(k, win, fn))
    if fast is not None:
        return fast
    dx = xp.zeros(x.shape, dy.dtype)
    zero = dy.dtype.type(0)
    # dy * hit is dy where hit and 0 elsewhere (in half the time of where()) unless dy has an
    # infinity or a NaN, which times 0 is NaN.
    finite = dy.dtype.kind != "f" or bool(xp.isfinite(dy).all())
    taps = _clipped_taps(win)

    def part(lo, hi):
        seen, grad = _phases(xp, x[lo:hi], win), dy[lo:hi]
        back = _phases(xp, dx[lo:hi], win, zeros=True)
        shape = (hi - lo, win.oh, win.ow, win.c)
        top = xp.empty(shape, x.dtype)
        for out_at, in_at in reversed(taps):  # each window's first input, to start with
            top[out_at] = seen[in_at]
        # a window whose first input is NaN keeps it (nothing is greater than NaN)
        stuck = xp.isnan(top) if x.dtype.kind == "f" else None
        if stuck is not None and not bool(stuck.any()):
            stuck = None
        for out_at, in_at in taps:
            best = top[out_at]
            xp.fmax(best, seen[in_at], out=best)
        free = xp.ones(shape, bool) if stuck is None else ~stuck  # windows no tap has claimed yet
        claims = xp.empty((len(taps),) + shape, bool)  # claims[t]: the windows tap t holds
        for t, (out_at, in_at) in enumerate(taps):
            hit, claimed = claims[t][out_at], free[out_at]
            xp.equal(seen[in_at], top[out_at], out=hit)
            xp.logical_and(hit, claimed, out=hit)
            xp.logical_xor(claimed, hit, out=claimed)  # hit lies inside free: this clears what it claimed
            if stuck is not None:  # a stuck window's first tap is the one that has not seen it yet
                mine = stuck[out_at]
                xp.logical_or(hit, mine, out=hit)
                xp.logical_xor(mine, mine, out=mine)
        shares = xp.empty(shape, dy.dtype)
        for t in reversed(range(len(taps))):
            (out_at, in_at), hit, share = taps[t], claims[t][taps[t][0]], shares[taps[t][0]]
            if finite:
                xp.multiply(grad[out_at], hit, out=share)
            else:
                share[...] = xp.where(hit, grad[out_at], zero)
            into = back[in_at]
            xp.add(into, share, out=into)
        back.into(dx[lo:hi])

    _pool_parts(k, win, part)
    return dx


def avg_pool(k, x):
    """The mean of each window's inputs inside the image (SAME padding does not average zeros in):
    the taps' sum in scan order, divided by their count. Compiled by numba where the ``fast``
    extra installs it (``fast_pool.py``), same values bit for bit."""
    xp = k.xp
    win = _pool_windows(k, x.shape)
    fast = fast_pool.avg_pool(k, win, x, lambda fn: _pool_parts(k, win, fn))
    if fast is not None:
        return fast
    total = _reduce_taps(k, win, x, xp.zeros((win.n, win.oh, win.ow, win.c), x.dtype), xp.add)
    return (total / win.counts(xp)).astype(x.dtype)


def avg_pool_grad(k, input_shape, dy):
    """Each window's gradient over its count, added into each of its inputs: the taps taken
    backwards, so that an input adds its windows' shares in their scan order, as TF's kernel adds
    them. Compiled by numba where the ``fast`` extra installs it (``fast_pool.py``), same values."""
    xp = k.xp
    win = _pool_windows(k, ints(input_shape))
    fast = fast_pool.avg_pool_grad(k, win, dy, lambda fn: _pool_parts(k, win, fn))
    if fast is not None:
        return fast
    share = (dy / win.counts(xp)).astype(dy.dtype)
    dx = xp.zeros((win.n, win.h, win.w, win.c), dy.dtype)
    for out_at, in_at in reversed(_clipped_taps(win)):
        dx[in_at] += share[out_at]
    return dx


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
