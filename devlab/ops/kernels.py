"""Kernels, written once against an array module ``xp`` (numpy on CPU, cupy on a real GPU).

Each kernel is ``f(k, *inputs)``: ``k.xp`` is the array module, ``k.attrs`` the op's attrs,
``k.rng`` a per-op random generator, ``k.op_name`` the node, and ``k.out`` either None or a
buffer the run planned for the output (kernels that accept one say so with ``writes_out``).
Stateful kernels receive variable references (``ref.read()``, ``ref.new_buffer()``,
``ref.assign(value)``) and never see session internals.

Stateful kernels check their inputs' shapes at run time in TF's words and order (a write never
broadcasts), raising ``errors.InvalidArgumentError``; the executor adds the node and its line.

Marks help the compiled program: ``elementwise(ufunc, expression)`` kernels are exactly
``xp.<ufunc>(*inputs)``, so a chain of them can be fused (``expression`` renders the op for
numexpr; ``float_ufunc`` is the ufunc that computes it on floating-point inputs, applied
pairwise for n-ary ops such as AddN); ``returns_view`` kernels may hand back (a view of) their
input, so a fetch of their output is copied.
"""
from ..framework import errors


def elementwise(ufunc, expression):
    """The kernel ``xp.<ufunc>(*inputs)``. ``expression`` renders the op inside a fused chain:
    a function of the inputs' expressions, in numexpr's syntax."""
    def kernel(k, *xs):
        return getattr(k.xp, ufunc)(*xs, out=k.out)
    kernel.__name__ = ufunc
    kernel.ufunc = kernel.float_ufunc = ufunc
    kernel.expression = expression
    kernel.writes_out = True
    return kernel


def returns_view(kernel):
    kernel.returns_view = True
    return kernel


def writes_out(kernel):
    kernel.writes_out = True
    return kernel


add = elementwise("add", lambda a, b: f"({a} + {b})")
sub = elementwise("subtract", lambda a, b: f"({a} - {b})")
mul = elementwise("multiply", lambda a, b: f"({a} * {b})")
neg = elementwise("negative", lambda a: f"(-{a})")
abs_ = elementwise("absolute", lambda a: f"abs({a})")
sin = elementwise("sin", lambda a: f"sin({a})")
cos = elementwise("cos", lambda a: f"cos({a})")
exp = elementwise("exp", lambda a: f"exp({a})")
log = elementwise("log", lambda a: f"log({a})")
sqrt = elementwise("sqrt", lambda a: f"sqrt({a})")
tanh = elementwise("tanh", lambda a: f"tanh({a})")
sign = elementwise("sign", None)
square = elementwise("square", None)
maximum = elementwise("maximum", None)  # NaN rules differ from numexpr's where(): not fused
minimum = elementwise("minimum", None)
pow_ = elementwise("power", None)
equal = elementwise("equal", None)
greater = elementwise("greater", None)
less = elementwise("less", None)


@returns_view
def const(k):
    return k.xp.asarray(k.attrs["value"])


def placeholder(k):
    raise AssertionError("a placeholder is fed, never run")  # the executor reports the feed error


@returns_view
def identity(k, x):
    return x





def real_div(k, a, b):
    if a.dtype.kind in "iu":  # integer RealDiv truncates, as C++ integer division does
        return k.xp.divide(a, b).astype(a.dtype)
    return k.xp.divide(a, b, out=k.out)


real_div.expression = lambda a, b: f"({a} / {b})"  # fused for floating-point inputs only
real_div.float_ufunc = "divide"
real_div.writes_out = True





def rsqrt(k, x):
    return (1 / k.xp.sqrt(x)).astype(x.dtype, copy=False)


def reciprocal(k, x):
    return (1 / x).astype(x.dtype, copy=False)


@writes_out
def relu(k, x):
    return k.xp.maximum(x, x.dtype.type(0), out=k.out)


def sigmoid(k, x):
    return (1 / (1 + k.xp.exp(-x))).astype(x.dtype, copy=False)


def softmax(k, x):
    e = k.xp.exp(x - x.max(axis=-1, keepdims=True))
    return (e / e.sum(axis=-1, keepdims=True)).astype(x.dtype, copy=False)


@writes_out
def relu_grad(k, dy, x):
    return k.xp.multiply(dy, x > 0, out=k.out, dtype=dy.dtype)


def sigmoid_grad(k, y, dy):
    return (dy * y * (1 - y)).astype(dy.dtype, copy=False)


def tanh_grad(k, y, dy):
    return (dy * (1 - y * y)).astype(dy.dtype, copy=False)


@writes_out
def matmul(k, a, b):
    if k.attrs.get("transpose_a"):
        a = a.T
    if k.attrs.get("transpose_b"):
        b = b.T
    return k.xp.matmul(a, b, out=k.out)


@writes_out
def add_n(k, *xs):
    out = k.xp.add(xs[0], xs[1], out=k.out)
    for x in xs[2:]:
        k.xp.add(out, x, out=out)
    return out


add_n.expression = lambda *xs: "(" + " + ".join(xs) + ")"
add_n.float_ufunc = "add"  # applied pairwise, left to right


def reducer(name):
    """A kernel applying ``xp.<name>`` over the ``axis`` attr (None: every axis)."""
    def kernel(k, x, *axes_input):  # the axes are also an attr: the input only names them, as in TF
        axis = k.attrs["axis"]
        axis = None if axis is None else tuple(axis)
        if k.out is not None:
            return getattr(k.xp, name)(x, axis=axis, keepdims=k.attrs["keep_dims"], out=k.out)
        out = getattr(k.xp, name)(x, axis=axis, keepdims=k.attrs["keep_dims"])
        return k.xp.asarray(out, dtype=x.dtype)
    kernel.__name__ = name
    kernel.writes_out = True
    return kernel


@returns_view
def reshape(k, x):
    return x.reshape(k.attrs["shape"])


@returns_view
def transpose(k, x):
    return k.xp.transpose(x, k.attrs["perm"])


def concat(k, *xs):
    return k.xp.concatenate(xs, axis=k.attrs["axis"])


def stack(k, *xs):
    return k.xp.stack(xs, axis=k.attrs["axis"])


@returns_view
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


@returns_view
def stop_gradient(k, x):
    return x


# -- stateful kernels: variables ---------------------------------------------------------------
def variable(k):
    raise AssertionError("a variable's reference is put in place by the run, never computed")


def assign(k, ref, value):
    ref.assign(value, validate_shape=k.attrs.get("validate_shape", True))
    return ref


def assign_add(k, ref, value):
    old = ref.read()
    _same_size(old, value)
    ref.assign(k.xp.add(old, value))
    return ref


def assign_sub(k, ref, value):
    old = ref.read()
    _same_size(old, value)
    ref.assign(k.xp.subtract(old, value))
    return ref


# Run-time checks of TF's training and update kernels (dense_update_ops.cc, training_ops.cc), in
# their order and words: a write never broadcasts, and a learning rate is a true scalar.
def _same_size(params, update):
    if params.shape != update.shape:
        raise errors.InvalidArgumentError(None, None, "Parameters and update must be the same size")


def _shape_text(x):
    return "[" + ",".join(map(str, x.shape)) + "]"


def _scalar(name, x, sep=":"):
    if x.ndim != 0:
        raise errors.InvalidArgumentError(None, None, f"{name} is not a scalar{sep} {_shape_text(x)}")


def _same_shape(var, name, x):
    if var.shape != x.shape:
        raise errors.InvalidArgumentError(
            None, None, f"var and {name} do not have the same shape{_shape_text(var)} {_shape_text(x)}")


def is_variable_initialized(k, ref):
    return k.xp.asarray(ref.is_initialized())


# The optimizers update in place, as TF's training ops do, into a buffer the run hands them
# (``ref.new_buffer()``): no temporaries beyond it. Each formula keeps the order of operations of
# TF's kernels (training_ops.cc), so the values match TF's float for float.
def apply_gradient_descent(k, var, lr, delta):
    """var -= delta * lr"""
    old = var.read()
    _scalar("alpha", lr)
    _same_shape(old, "delta", delta)
    xp, new = k.xp, var.new_buffer()
    xp.multiply(delta, lr, out=new)
    xp.subtract(old, new, out=new)
    var.assign(new)
    return var


def apply_momentum(k, var, accum, lr, grad, momentum):
    """accum = accum * momentum + grad; var -= accum * lr (Nesterov: grad * lr + accum * momentum * lr)."""
    xp, old_var, old_acc = k.xp, var.read(), accum.read()
    _scalar("lr", lr)
    _same_shape(old_var, "accum", old_acc)
    _same_shape(old_var, "grad", grad)
    _scalar("momentum", momentum)
    acc, new = accum.new_buffer(), var.new_buffer()
    xp.multiply(old_acc, momentum, out=acc)
    xp.add(acc, grad, out=acc)
    if k.attrs.get("use_nesterov"):
        xp.multiply(acc, momentum, out=new)
        xp.multiply(new, lr, out=new)
        new += xp.multiply(grad, lr)
    else:
        xp.multiply(acc, lr, out=new)
    xp.subtract(old_var, new, out=new)
    accum.assign(acc)
    var.assign(new)
    return var


def apply_adam(k, var, m, v, beta1_power, beta2_power, lr, beta1, beta2, epsilon, grad):
    """m += (grad - m) * (1 - beta1); v += (grad² - v) * (1 - beta2);
    var -= (m * alpha) / (sqrt(v) + epsilon), alpha = lr * sqrt(1 - beta2^t) / (1 - beta1^t)."""
    xp = k.xp
    old_m, old_v, old_var = m.read(), v.read(), var.read()
    for name, x, sep in (("beta1_power", beta1_power, ":"), ("beta2_power", beta2_power, ":"), ("lr", lr, " :"),
                         ("beta1", beta1, ":"), ("beta2", beta2, ":"), ("epsilon", epsilon, ":")):
        _scalar(name, x, sep)  # TF's text for lr has a space before the colon
    _same_shape(old_var, "m", old_m)
    _same_shape(old_var, "v", old_v)
    _same_shape(old_var, "grad", grad)
    one = grad.dtype.type(1)
    alpha = lr * xp.sqrt(one - beta2_power) / (one - beta1_power)
    new_m, new_v, new = m.new_buffer(), v.new_buffer(), var.new_buffer()
    xp.subtract(grad, old_m, out=new_m)
    xp.multiply(new_m, one - beta1, out=new_m)
    xp.add(old_m, new_m, out=new_m)
    xp.multiply(grad, grad, out=new_v)
    xp.subtract(new_v, old_v, out=new_v)
    xp.multiply(new_v, one - beta2, out=new_v)
    xp.add(old_v, new_v, out=new_v)
    xp.sqrt(new_v, out=new)
    xp.add(new, epsilon, out=new)
    xp.divide(xp.multiply(new_m, alpha), new, out=new)  # numpy needs the numerator's temporary
    xp.subtract(old_var, new, out=new)
    m.assign(new_m)
    v.assign(new_v)
    var.assign(new)
    return var


def scalar_summary(k, tag, value):
    import numpy as np  # a summary is a host-side string
    return np.asarray(f"{tag.item() if hasattr(tag, 'item') else tag}: {float(value):g}", dtype=object)


def dataset_slice(k, position):
    """The next batch's share for one tower, cycling through an in-memory array (host only).
    ``position`` is the iterator's state: a variable counting the batches read (unset: none)."""
    import numpy as np
    data, batch, tower, towers = k.attrs["data"], k.attrs["batch"], k.attrs["tower"], k.attrs["towers"]
    step = int(position.read()) if position.is_initialized() else 0
    position.assign(np.asarray(step + 1, dtype=np.int64), validate_shape=False)
    n_batches = len(data) // batch
    start = (step % n_batches) * batch + tower * (batch // towers)
    return np.asarray(data[start:start + batch // towers])


# -- control flow: the value on a Switch's untaken side is DEAD ----------------------------------
class _Dead:
    """The value on the untaken side of a Switch. An op that reads it does not run and passes it
    on (so a whole branch of a tf.cond is skipped); only Merge reads past it."""

    __slots__ = ()

    def __repr__(self):
        return "<dead>"


DEAD = _Dead()


def switch(k, data, pred):
    """(output_false, output_true): ``data`` on the side ``pred`` selects, DEAD on the other."""
    return (DEAD, data) if bool(pred) else (data, DEAD)


def merge(k, *inputs):
    """(the first live input, its index); DEAD if every input is dead."""
    import numpy as np  # the index is a host-memory int32, as TF keeps it
    for i, x in enumerate(inputs):
        if x is not DEAD:
            return x, np.int32(i)
    return DEAD, DEAD


merge.reads_dead = True


@returns_view
def forward(k, x):
    """Enter, Exit, NextIteration and LoopCond hand their input on; the executor moves it
    between the frames of a while loop."""
    return x


logical_and = elementwise("logical_and", None)
logical_or = elementwise("logical_or", None)
logical_not = elementwise("logical_not", None)

# -- tf.py_func ------------------------------------------------------------------------------------
PY_FUNCS = {}  # token -> the Python function of a tf.py_func (TF's FuncRegistry); see script_ops.py


def py_func(k, *args):
    """Calls the op's Python function on numpy arrays, in the process of the device's task, and
    checks each returned value against ``Tout`` (no conversion, as in TF)."""
    import traceback

    import numpy as np

    from ..framework import dtypes, errors
    func = k.attrs.get("_func") or PY_FUNCS[k.attrs["token"]]  # a worker gets the function itself
    try:
        ret = func(*[np.asarray(a) for a in args])
    except Exception as e:  # noqa: BLE001 - TF reports any Python exception as UnknownError
        frames = "".join(traceback.format_tb(e.__traceback__)[1:])
        raise errors.UnknownError(None, None, f"{type(e).__name__}: {e}\nTraceback (most recent call last):\n"
                                              f"{frames}") from None
    touts = k.attrs["Tout"]
    values = list(ret) if isinstance(ret, (list, tuple)) else [ret]
    if len(values) != len(touts):
        raise errors.InvalidArgumentError(None, None, f"{k.attrs['token']} returns {len(values)} values, but "
                                                      f"expects to see {len(touts)} values.")
    out = []
    for i, (value, want) in enumerate(zip(values, touts)):
        arr = np.asarray(value)
        got = dtypes.as_dtype(arr.dtype)
        if got.base_dtype != want.base_dtype:
            raise errors.InvalidArgumentError(None, None, f"{i}-th value returned by {k.attrs['token']} is "
                                                          f"{got.tf_type_name}, but expects {want.tf_type_name}")
        out.append(arr)
    return out[0] if len(out) == 1 else tuple(out)
