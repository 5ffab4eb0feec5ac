"""The global step: an int64 variable counting training steps, in the GLOBAL_STEP collection.

Hooks (``StopAtStepHook``, ``CheckpointSaverHook``...) do not fetch the variable itself: they
fetch TF's *global step read tensor*, ``global_step/add``, built once per graph as
``cond(is_variable_initialized(global_step), global_step.read_value, lambda: initial_value) + 0``.
The cond makes it safe to fetch before the chief has initialised the step; the ``+ 0`` makes a
copy, the value *before* the step's own update when fetched together with ``train_op``.
"""
from ..framework import dtypes
from ..framework.graph import get_default_graph
from ..framework.graph_keys import GraphKeys
from ..framework.scopes import name_scope
from ..framework.tensor import Tensor
from ..api import init_ops
from ..api.control_flow import cond
from ..api.state_ops import assign_add, is_variable_initialized
from ..api.variable_scope import get_variable
from ..api.variables import Variable
from .. import tf_logging as logging

GLOBAL_STEP_READ_KEY = "global_step_read_op_cache"


def global_step(sess, global_step_tensor):
    """The value of the global step, as a Python int."""
    return int(sess.run(global_step_tensor))


def get_global_step(graph=None):
    """The global step of ``graph``: the one item of its GLOBAL_STEP collection, else the tensor
    named ``global_step:0``, else None."""
    graph = graph or get_default_graph()
    found = graph.get_collection(GraphKeys.GLOBAL_STEP)
    if len(found) > 1:
        logging.error("Multiple tensors in global_step collection.")
        return None
    if found:
        step = found[0]
    else:
        try:
            step = graph.get_tensor_by_name("global_step:0")
        except KeyError:
            return None
    assert_global_step(step)
    return step


def assert_global_step(global_step_tensor):
    """TF's TypeErrors for a global step that is not an integer scalar Variable or Tensor."""
    if not isinstance(global_step_tensor, (Variable, Tensor)):
        raise TypeError(f'Existing "global_step" must be a Variable or Tensor: {global_step_tensor}.')
    if not global_step_tensor.dtype.base_dtype.is_integer:
        raise TypeError(f'Existing "global_step" does not have integer type: {global_step_tensor.dtype}')
    shape = global_step_tensor.shape
    if shape.ndims != 0 and shape.is_fully_defined():
        raise TypeError(f'Existing "global_step" is not scalar: {shape}')


def create_global_step(graph=None):
    """An int64 scalar ``global_step``, made with ``get_variable`` and a zeros initializer as TF
    makes it (so its initial value is ``global_step/Initializer/zeros``)."""
    graph = graph or get_default_graph()
    if get_global_step(graph) is not None:
        raise ValueError('"global_step" already exists.')
    with graph.as_default(), name_scope(None):
        return get_variable(GraphKeys.GLOBAL_STEP, shape=[], dtype=dtypes.int64, initializer=init_ops.Zeros(),
                            trainable=False, collections=[GraphKeys.GLOBAL_VARIABLES, GraphKeys.GLOBAL_STEP])


def get_or_create_global_step(graph=None):
    graph = graph or get_default_graph()
    step = get_global_step(graph)
    return step if step is not None else create_global_step(graph)


def _get_global_step_read(graph=None):
    graph = graph or get_default_graph()
    found = graph.get_collection(GLOBAL_STEP_READ_KEY)
    if len(found) > 1:
        raise RuntimeError(f"There are multiple items in collection {GLOBAL_STEP_READ_KEY}. "
                           "There should be only one.")
    return found[0] if found else None


def _get_or_create_global_step_read(graph=None):
    """The global step read tensor (see the module docstring), made on first use; None without a
    global step."""
    graph = graph or get_default_graph()
    read = _get_global_step_read(graph)
    if read is not None:
        return read
    step = get_global_step(graph)
    if step is None:
        return None
    with graph.as_default(), name_scope(None), name_scope(step.op.name + "/"):
        if isinstance(step, Variable):
            value = cond(is_variable_initialized(step), step.read_value, lambda: step.initial_value)
        else:
            value = step
        read = value + 0
        graph.add_to_collection(GLOBAL_STEP_READ_KEY, read)
    return _get_global_step_read(graph)


def _increment_global_step(increment, graph=None):
    """TF's ``training_util._increment_global_step``: ``global_step += increment`` (an AssignAdd
    in the step's name scope, after the step's read tensor, so a hook fetching both sees the value
    before the increment). Without a global step: TF's ValueError."""
    graph = graph or get_default_graph()
    step = get_global_step(graph)
    if step is None:
        raise ValueError("Global step tensor should be created by tf.train.get_or_create_global_step before "
                         "calling increment.")
    read = _get_or_create_global_step_read(graph)
    with graph.as_default(), name_scope(None), name_scope(step.op.name + "/"):
        with graph.control_dependencies([read]):
            return assign_add(step, increment)
