"""The TF1 surface that the programs p26 (slim-style deployment) and p27 (queue-fed towers) reach:
regularisation losses that ``get_variable`` collects as thunks, rebuilt beside their variable at
each use; ``tf.div`` (Python 2's division: floor for integers); ``tf.model_variables``; no DType
equal to None; ``str`` of a tensor; ``slice_input_producer`` and the graphs of the batching functions (their
``keep_input`` constant and fullness summaries).
The same functions run under TensorFlow 2.21 (``tools/record_cases.py program_surface
tests/data/tf_program_surface.json``) and under devlab (tests/test_program_surface.py compares)."""
import numpy as np

from control_flow_cases import graph_facts
from script_cases import _error
from variable_api_cases import run


def _values(value):
    if isinstance(value, (list, tuple)):
        return [_values(v) for v in value]
    return np.round(np.asarray(value, dtype=np.float64), 6).tolist()


def case_regularization_losses_are_rebuilt_at_each_use(tf, rewrites_off=False):
    """Each use of a collected loss (``add_n``, ``get_regularization_loss``, an operator, a
    gradient) builds ``<var>/Regularizer/...`` again beside the variable; the collection's entry
    answers the first copy's name and is what a session fetches."""
    with tf.device('/cpu:1'):
        with tf.variable_scope('layer', regularizer=lambda v: tf.reduce_sum(tf.square(v)) * 0.5):
            w = tf.get_variable('w', initializer=np.array([[1.0, -2.0], [0.5, 3.0]], np.float32))
        b = tf.get_variable('b', initializer=np.array([0.25, -1.0], np.float32),
                            regularizer=lambda v: tf.multiply(0.1, tf.nn.l2_loss(v), name='decay'))
        tf.get_variable('none', [1], regularizer=lambda v: None)
    losses = tf.get_collection(tf.GraphKeys.REGULARIZATION_LOSSES)
    with tf.device('/cpu:2'), tf.name_scope('use'):
        first = tf.add_n(losses, name='first')
        again = tf.add_n(losses, name='again')
        doubled = losses[0] * 2.0
        total = tf.losses.get_regularization_loss()
        packed = tf.reduce_sum(losses, name='packed')  # the list autopacks: a Pack of fresh copies
        summed = sum(losses)  # Python's sum: 0 + copy, then + copy
        grads = tf.gradients(first, [w, b])
    facts = {"ops": graph_facts(tf), "collected": [t.name for t in losses],
             "ops_of_collected": [t.op.name for t in losses], "dtypes": [t.dtype.name for t in losses],
             "shapes": [t.get_shape().as_list() for t in losses], "devices": [t.device for t in losses]}
    placed, value = run(tf, [losses, first, again, doubled, total, packed, summed, grads], rewrites_off=rewrites_off)
    facts.update(placed=placed, values=_values(value))
    return facts


def case_div_is_python_2_division(tf, rewrites_off=False):
    """``tf.div``: RealDiv for floating-point tensors, FloorDiv (toward minus infinity) for
    integers; ``y`` converted to ``x``'s dtype, or TF's error."""
    f = tf.constant([7.0, -7.0, 1.5])
    i = tf.constant([7, -7, 8])
    out = [tf.div(f, 2.0), tf.div(i, 2), tf.div(i, tf.constant([3, 3, -3]), name='q'), tf.div(3.0, f),
           tf.div(tf.constant([9, -9], tf.int64), 4), tf.div(tf.constant([5, 250], tf.uint8), 3)]
    errors = [_error(lambda: tf.div(f, i))["error"], _error(lambda: tf.div(f, 'x'))["error"]]
    facts = {"ops": graph_facts(tf), "errors": errors, "dtypes": [t.dtype.name for t in out]}
    placed, value = run(tf, out, rewrites_off=rewrites_off)
    facts.update(placed=placed, values=_values(value))
    return facts


def case_model_variables_is_the_collection(tf, rewrites_off=False):
    """``tf.model_variables(scope)``: the MODEL_VARIABLES collection, filtered by scope; neither
    ``get_variable`` nor ``tf.layers`` adds to it."""
    with tf.variable_scope('net'):
        a = tf.get_variable('a', [1])
        tf.layers.dense(tf.ones([1, 2]), 1, name='fc')
    other = tf.Variable([2.0], name='other')
    before = [v.name for v in tf.model_variables()]
    tf.add_to_collection(tf.GraphKeys.MODEL_VARIABLES, a)
    tf.add_to_collection(tf.GraphKeys.MODEL_VARIABLES, other)
    return {"before": before, "all": [v.name for v in tf.model_variables()],
            "net": [v.name for v in tf.model_variables('net')], "none": [v.name for v in tf.model_variables('x')]}


def case_a_dtype_never_equals_none(tf, rewrites_off=False):
    """The collected loss checks the dtype it is asked for against None: no DType equals None, and
    ``as_dtype(None)`` is TF's TypeError (numpy alone would read None as float64)."""
    return {"equal": [tf.float64 == None, None == tf.float64, tf.float32 != None],  # noqa: E711 - the point
            "in": [tf.float64 in (None, tf.float32), tf.float32 in (None, tf.float32)],
            "errors": [_error(lambda v=v: tf.as_dtype(v))["error"] for v in (None, 'foo', 0)]}


def case_batching_graphs(tf, rewrites_off=False):
    """The ops of ``slice_input_producer``, ``batch``, ``shuffle_batch``, ``batch_join`` and
    ``shuffle_batch_join`` (built, not run), the summaries they add, and their errors."""
    with tf.device('/cpu:0'):
        x, y = tf.train.slice_input_producer([tf.constant(np.arange(6.0).reshape(3, 2)), tf.constant([1, 2, 3])],
                                             shuffle=False, capacity=4, name='slices')
        tf.train.batch([x, y], 2, capacity=5)
        tf.train.shuffle_batch({'x': x, 'y': y}, 2, capacity=6, min_after_dequeue=2, seed=1)
        tf.train.batch_join([[x, y], [x * 2.0, y]], 2, capacity=7)
        tf.train.shuffle_batch_join([[x], [x + 1.0]], 2, capacity=8, min_after_dequeue=3)
    errors = [_error(lambda: tf.train.shuffle_batch([x], 2, capacity=3, min_after_dequeue=3))["error"],
              _error(lambda: tf.train.slice_input_producer([]))["error"]]
    return {"ops": graph_facts(tf), "errors": errors,
            "summaries": [t.op.name for t in tf.get_collection(tf.GraphKeys.SUMMARIES)],
            "runners": [[op.name for op in qr.enqueue_ops] for qr in tf.get_collection(tf.GraphKeys.QUEUE_RUNNERS)]}


def case_tensors_print_and_compare_as_tensorflow(tf, rewrites_off=False):
    """``print(tensor)`` (``str``: shape only with a known rank, the device when asked for) and
    ``repr``; a collected loss prints as its first copy and, like any TF1 graph tensor, equals
    only itself (each comparison builds a copy first)."""
    a = tf.placeholder(tf.float32, [None, 3])
    b = tf.placeholder(tf.float32)
    with tf.device('/cpu:0'):
        c = tf.constant([1, 2])
    tf.get_variable('w', [2], regularizer=tf.nn.l2_loss)
    loss = tf.get_collection(tf.GraphKeys.REGULARIZATION_LOSSES)[0]
    shown = [[str(t), repr(t), '%s' % (t,), '{}'.format(t)] for t in (a, b, c)]
    return {"shown": shown, "loss": [str(loss), loss == loss, loss != loss, loss in [loss], loss == a],
            "ops": [op.name for op in tf.get_default_graph().get_operations()]}


CASES = {name[len("case_"):]: fn for name, fn in sorted(globals().items()) if name.startswith("case_")}
