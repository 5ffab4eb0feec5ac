"""Neural-network ops: activations, softmax, bias, convolution, pooling, normalisation, the
softmax cross-entropy losses and top-k ranking, each built as TensorFlow's ``nn_ops`` builds it."""
import collections

from ..framework import dtypes
from ..framework.scopes import name_scope
from ..framework.tensor_shape import TensorShape
from . import array_ops, math_ops
from .array_ops import op_output
from ..unimplemented import argument
from ..ops.build import apply_op, apply_op_output, convert_to_tensor
from ..ops.op_defs import check_input_type


def relu(features, name=None):
    return apply_op_output("Relu", [convert_to_tensor(features)], None, name or "Relu")


sigmoid = math_ops.sigmoid
tanh = math_ops.tanh


def _last_axis_op(op_type, api, logits, axis, name, dim):
    """Softmax/LogSoftmax over ``axis`` (``dim`` its old name) when it is the last axis, as TF's
    ``_wrap_2d_function`` builds it then: the op alone. Another axis (TF transposes around the op)
    is rejected by name."""
    if axis is not None and dim is not None and axis != dim:
        raise ValueError("Cannot specify both 'axis' and 'dim'.")
    axis = dim if axis is None else axis
    logits = convert_to_tensor(logits)
    ndims = logits.shape.ndims
    if axis is not None and axis != -1 and not (ndims is not None and axis == ndims - 1):
        raise argument("axis" if dim is None else "dim", f"{api} (other than the last axis)")
    return apply_op_output(op_type, [logits], None, name or op_type)


def softmax(logits, axis=None, name=None, dim=None):
    return _last_axis_op("Softmax", "tf.nn.softmax", logits, axis, name, dim)


def log_softmax(logits, axis=None, name=None, dim=None):
    return _last_axis_op("LogSoftmax", "tf.nn.log_softmax", logits, axis, name, dim)


def _data_format(data_format):
    if data_format is None:
        return "NHWC"
    if not isinstance(data_format, str):  # TF fails on .startswith (AttributeError); devlab names the argument
        raise TypeError(f"Expected string for argument 'data_format' not {data_format!r}.")
    if data_format.startswith("NC"):
        return "NCHW"
    if data_format.startswith("N") and data_format.endswith("C"):
        return "NHWC"
    raise ValueError("data_format must be of the form `N...C` or `NC...`")


def bias_add(value, bias, data_format=None, name=None):
    """``value + bias`` along the channels: one ``BiasAdd`` op (its gradient is ``BiasAddGrad``)."""
    with name_scope(name, "BiasAdd", [value, bias]) as scope:
        x = convert_to_tensor(value, name="input")
        b = convert_to_tensor(bias, dtype=x.dtype.base_dtype, name="bias")
        return apply_op_output("BiasAdd", [x, b], {"data_format": _data_format(data_format)}, scope)


def l2_loss(t, name=None):
    """sum(t²) / 2, the usual weight-decay term (float tensors only, as TF's OpDef says)."""
    with name_scope(name, "L2Loss", [t]) as scope:
        t = convert_to_tensor(t, name="t")
        check_input_type("L2Loss", "t", t.dtype)
        return apply_op_output("L2Loss", [t], None, scope)


def lrn(input, depth_radius=5, bias=1.0, alpha=1.0, beta=0.5, name=None):  # noqa: A002 - TF's name
    """Local response normalisation: each value divided by (bias + alpha * the sum of squares
    of its ``depth_radius`` neighbours on each side along the channels) ** beta."""
    attrs = {"depth_radius": int(depth_radius), "bias": float(bias), "alpha": float(alpha), "beta": float(beta)}
    return op_output("LRN", name, [("input", input, None)], attrs)


local_response_normalization = lrn


# -- convolution and pooling (NHWC) ----------------------------------------------------------
def _sequence(value, name):
    """TF's ``_get_sequence`` for NHWC: an int or 2 spatial values become [1, h, w, 1]."""
    if value is None:
        return [1, 1, 1, 1]
    value = [value] if isinstance(value, int) else list(value)
    if len(value) == 4:
        return [int(v) for v in value]
    if len(value) == 1:
        return [1, int(value[0]), int(value[0]), 1]
    if len(value) == 2:
        return [1, int(value[0]), int(value[1]), 1]
    raise ValueError(f"{name} should be of length 1, 2 or 4. Received: {name}={value} of length {len(value)}")


def _padding(padding):
    if not isinstance(padding, str) or padding.upper() not in ("SAME", "VALID"):
        raise ValueError(f"devlab supports padding 'SAME' or 'VALID', got {padding!r}")
    return padding.upper()


def _nhwc_only(data_format):
    if data_format not in (None, "NHWC"):
        raise ValueError(f"devlab's convolutions and poolings take NHWC images, got data_format={data_format!r}")


def conv2d(input, filter=None, strides=None, padding=None, use_cudnn_on_gpu=True,  # noqa: A002
           data_format="NHWC", dilations=None, name=None, filters=None):
    """2-D convolution of NHWC ``input`` with an HWIO ``filter`` (a ``Conv2D`` op)."""
    filter = filters if filter is None else filter  # noqa: A001
    _nhwc_only(data_format)
    attrs = {"strides": _sequence(strides, "strides"), "padding": _padding(padding),
             "use_cudnn_on_gpu": bool(use_cudnn_on_gpu), "data_format": "NHWC",
             "dilations": _sequence(dilations, "dilations"), "explicit_paddings": []}
    return op_output("Conv2D", name, [("input", input, None), ("filter", filter, None)], attrs)


def convolution(input, filter, padding, strides=None, dilation_rate=None, name=None, data_format=None):  # noqa: A002
    return conv2d(input, filter, strides=strides, padding=padding, dilations=dilation_rate, name=name or "convolution",
                  data_format=data_format)


def _pool(op_type, value, ksize, strides, padding, data_format, name):
    _nhwc_only(data_format)
    attrs = {"ksize": _sequence(ksize, "ksize"), "strides": _sequence(strides, "strides"),
             "padding": _padding(padding), "data_format": "NHWC"}
    if op_type == "MaxPool":
        attrs["explicit_paddings"] = []
    with name_scope(name, op_type, [value]) as scope:
        x = convert_to_tensor(value, name="input")
        return apply_op_output(op_type, [x], attrs, scope)


def max_pool(value, ksize, strides, padding, data_format="NHWC", name=None, input=None):  # noqa: A002
    """The maximum of each ``ksize`` window (a ``MaxPool`` op)."""
    return _pool("MaxPool", input if value is None else value, ksize, strides, padding, data_format, name)


def avg_pool(value, ksize, strides, padding, data_format="NHWC", name=None, input=None):  # noqa: A002
    """The mean of each ``ksize`` window; SAME padding does not count the padded zeros."""
    return _pool("AvgPool", input if value is None else value, ksize, strides, padding, data_format, name)


# -- softmax cross-entropy ---------------------------------------------------------------------
def _flatten_outer_dims(logits):
    """[..., n] as a matrix [-1, n], with the Rank/Shape/Slice/ConcatV2 ops TF builds for it."""
    r = array_ops.rank(logits)
    last = array_ops.slice(array_ops.shape(logits), [math_ops.subtract(r, 1)], [1])
    out = array_ops.reshape(logits, array_ops.concat([[-1], last], 0))
    dims = logits.shape.sizes
    if dims is not None and not dims:  # TF itself fails here with an IndexError; its shape rule's words
        raise ValueError("Shape must be at least rank 1 but is rank 0")
    if dims is not None and None not in dims[:-1]:
        product = 1
        for d in dims[:-1]:
            product *= d
        out.set_shape([product, dims[-1]])
    return out


def softmax_cross_entropy_with_logits_v2(labels=None, logits=None, axis=-1, name=None, dim=None):
    """Per-example cross-entropy between ``labels`` (a distribution) and softmax(``logits``),
    built as TF builds it: both inputs flattened to matrices, one SoftmaxCrossEntropyWithLogits,
    and the loss reshaped back to the outer dims."""
    _xent_args("softmax_cross_entropy_with_logits", labels, logits)
    if axis is not None and dim is not None and axis != dim:
        raise ValueError("Cannot specify both 'axis' and 'dim'.")
    axis = dim if axis is None else axis  # ``dim``: TF's deprecated name of ``axis``
    axis = -1 if axis is None else axis
    if axis != -1:  # TF moves that axis last with a Transpose around the op
        raise argument("axis" if dim is None else "dim", "tf.nn.softmax_cross_entropy_with_logits_v2 (other than -1)")
    with name_scope(name, "softmax_cross_entropy_with_logits", [logits, labels]) as scope:
        logits = convert_to_tensor(logits, name="logits")
        labels = array_ops.cast(convert_to_tensor(labels, name="labels"), logits.dtype.base_dtype)
        input_rank = array_ops.rank(logits)
        shape = logits.shape
        input_shape = array_ops.shape(logits)
        flat_logits = _flatten_outer_dims(logits)
        flat_labels = _flatten_outer_dims(labels)
        cost = apply_op("SoftmaxCrossEntropyWithLogits", [flat_logits, flat_labels], None, scope).outputs[0]
        output_shape = array_ops.slice(input_shape, [0], [math_ops.subtract(input_rank, 1)])
        cost = array_ops.reshape(cost, output_shape)
        if shape.sizes is not None:
            cost.set_shape(list(shape.sizes[:-1]))
        return cost


def softmax_cross_entropy_with_logits(labels=None, logits=None, dim=-1, name=None, axis=None):
    """TF1's version: no gradient flows into the labels (``labels_stop_gradient``)."""
    _xent_args("softmax_cross_entropy_with_logits", labels, logits)
    with name_scope(name, "softmax_cross_entropy_with_logits_sg", [logits, labels]) as scope:
        labels = array_ops.stop_gradient(labels, name="labels_stop_gradient")
    return softmax_cross_entropy_with_logits_v2(labels=labels, logits=logits, axis=axis or dim, name=scope)


def sparse_softmax_cross_entropy_with_logits(labels=None, logits=None, name=None):  # TF 2.21 v1: no _sentinel
    """As above, with one integer class id per example: one SparseSoftmaxCrossEntropyWithLogits op
    (inputs of rank > 2 are flattened to a matrix first and the loss reshaped back)."""
    _xent_args("sparse_softmax_cross_entropy_with_logits", labels, logits)
    with name_scope(name, "SparseSoftmaxCrossEntropyWithLogits", [labels, logits]):
        labels = convert_to_tensor(labels)
        logits = convert_to_tensor(logits)
        label_shape, logit_shape = labels.shape, logits.shape
        labels_shape = array_ops.shape(labels)
        if logit_shape.ndims == 0:
            raise ValueError(f"Logits cannot be scalars - received shape {logit_shape}.")
        if logit_shape.ndims is not None and label_shape.ndims is not None and \
                label_shape.ndims != logit_shape.ndims - 1:
            raise ValueError(f"`labels.shape.rank` must equal `logits.shape.rank - 1`. Received: labels.shape="
                             f"{label_shape} of rank {label_shape.ndims} and logits.shape={logit_shape} of rank "
                             f"{logit_shape.ndims}")
        outer = TensorShape(logit_shape.sizes[:-1]) if logit_shape.sizes is not None else TensorShape(None)
        if label_shape.is_fully_defined() and outer.is_fully_defined() and label_shape != outer:
            raise ValueError(f"`labels.shape` must equal `logits.shape` except for the last dimension. Received: "
                             f"labels.shape={label_shape} and logits.shape={logit_shape}")
        if logit_shape.ndims == 2:
            return apply_op("SparseSoftmaxCrossEntropyWithLogits", [logits, labels], None,
                            name or "SparseSoftmaxCrossEntropyWithLogits").outputs[0]
        num_classes = array_ops.shape(logits)[math_ops.subtract(array_ops.rank(logits), 1, name="sub")]
        flat_logits = array_ops.reshape(logits, [-1, num_classes])
        flat_labels = array_ops.reshape(labels, [-1])
        cost = apply_op("SparseSoftmaxCrossEntropyWithLogits", [flat_logits, flat_labels], None,
                        name or "SparseSoftmaxCrossEntropyWithLogits").outputs[0]
        cost = array_ops.reshape(cost, labels_shape)
        cost.set_shape(label_shape)
        return cost


def _xent_args(name, labels, logits):
    if labels is None or logits is None:
        raise ValueError(f"Both `labels` and `logits` must be provided for {name}"
                         f"Received: labels={labels} and logits={logits}")



# -- more activations (their gradients are LeakyReluGrad, EluGrad... in grad_table.py) ------------------
def leaky_relu(features, alpha=0.2, name=None):
    """x above 0, alpha * x below: a small slope keeps negative units learning. Integer input is
    cast to float32 first, as TF does."""
    with name_scope(name, "LeakyRelu", [features, alpha]) as scope:
        x = convert_to_tensor(features, name="features")
        if x.dtype.is_integer:
            x = math_ops.cast(x, dtypes.float32)
        check_input_type("LeakyRelu", "features", x.dtype)
        return apply_op_output("LeakyRelu", [x], {"alpha": float(alpha)}, scope)


def _activation(op_type, features, name):
    """One activation op, its ``features`` checked against the dtypes TF's OpDef allows."""
    with name_scope(name, op_type, [features]) as scope:
        x = convert_to_tensor(features, name="features")
        check_input_type(op_type, "features", x.dtype)
        return apply_op_output(op_type, [x], None, scope)


def elu(features, name=None):
    """e^x - 1 below 0, x above (Clevert et al.)."""
    return _activation("Elu", features, name)


def selu(features, name=None):
    """elu scaled so activations keep mean 0 and variance 1 (Klambauer et al.)."""
    return _activation("Selu", features, name)


def softplus(features, name=None):
    """log(e^x + 1), a smooth relu; its gradient is sigmoid(x)."""
    return _activation("Softplus", features, name)


def relu6(features, name=None):
    """min(max(x, 0), 6)."""
    return _activation("Relu6", features, name)


def softsign(features, name=None):
    """x / (1 + |x|), a tanh-like squashing with polynomial tails."""
    return _activation("Softsign", features, name)


def crelu(features, name=None, axis=-1):
    """relu of [x, -x] concatenated along ``axis``: both signs kept, twice the channels (Shang et al.)."""
    with name_scope(name, "CRelu", [features]) as scope:
        features = convert_to_tensor(features, name="features")
        c = array_ops.concat([features, -features], axis, name=scope)
        return relu(c)


# -- ranking ------------------------------------------------------------------------------------------
TopKV2 = collections.namedtuple("TopKV2", ["values", "indices"])


def top_k(input, k=1, sorted=True, index_type=None, name=None):  # noqa: A002 - TF's names
    """The ``k`` largest entries of the last axis and their indices (one ``TopKV2`` op; its ``k``
    is an int32 Const input)."""
    attrs = {"sorted": bool(sorted), "index_type": dtypes.as_dtype(index_type or dtypes.int32)}
    op = array_ops.op("TopKV2", name, [("input", input, None), ("k", k, dtypes.int32)], attrs)
    return TopKV2(*op.outputs)


def in_top_k(predictions, targets, k, name=None):
    """Whether each row's ``targets`` class is among its ``k`` highest ``predictions`` (ties count
    as in): the usual precision@k. ``k`` becomes a Const of the targets' dtype."""
    with name_scope(name, "in_top_k"):
        with name_scope(name, "InTopKV2") as scope:
            p = convert_to_tensor(predictions, name="predictions")
            check_input_type("InTopKV2", "predictions", p.dtype)
            t = convert_to_tensor(targets, name="targets")
            check_input_type("InTopKV2", "targets", t.dtype)
            k = convert_to_tensor(k, dtype=t.dtype.base_dtype, name="k")
            return apply_op_output("InTopKV2", [p, t, k], None, scope)
