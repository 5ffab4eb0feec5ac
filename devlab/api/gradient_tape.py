"""``tf.GradientTape`` in graph mode: gradients through the ops built while the tape records.

TF's tape, in a TF1 graph, records each op its wrappers build while the tape is active, and
differentiates only through those, from the tensors it watches (``tape.watch``) and the trainable
resource variables read while it records. devlab keeps which ops the tape saw (creation order
ranges, less ``stop_recording`` blocks) and runs ``tf.gradients`` with every other way in
stopped: an input of a recorded op that neither comes from a recorded op nor is watched passes
no gradient, and a source the tape does not watch gets None, as TF's.

The gradient ops are named as ``tf.gradients`` names them (under ``gradients/``), not as TF's
tape names them (in the current name scope); values, shapes and placement are the same rules.
Ref variables cannot be watched (TF's tape fails on them too); ``jacobian`` is not built.
"""
import contextlib
import threading

from ..framework.graph import get_default_graph
from ..framework.graph_keys import GraphKeys
from ..framework.tensor import Tensor
from ..ops.build import convert_to_tensor
from ..unimplemented import call
from .array_ops import zeros_like
from .custom_gradient import _flatten, _pack
from .gradients import UnconnectedGradients, _GradientsHelper

_READS = ("ReadVariableOp", "ResourceGather", "ResourceGatherNd")  # ops that read a resource variable
_active = threading.local()  # .tapes: the tapes recording in this thread


def _recording_tapes():
    if not hasattr(_active, "tapes"):
        _active.tapes = []
    return _active.tapes


@contextlib.contextmanager
def stop_recording():
    """No tape records the ops built inside the block (TF's ``tape.stop_recording()`` for all)."""
    tapes = list(_recording_tapes())
    for tape in tapes:
        tape._pop()
    try:
        yield
    finally:
        for tape in tapes:
            tape._push()


def _is_variable(x):
    return hasattr(x, "initializer") and hasattr(x, "op") and not isinstance(x, Tensor)


def _handle(variable, api):
    """A resource variable's handle; a ref variable cannot be on a tape (TF fails on it too)."""
    handle = getattr(variable, "handle", None)
    if not isinstance(handle, Tensor):
        raise call(f"{api} of a ref variable ({variable.name}: a tape watches resource variables, made with "
                   "use_resource=True)")
    return handle


class GradientTape:
    """Records the ops built inside ``with GradientTape() as tape:``; ``tape.gradient(target,
    sources)`` differentiates through them. ``persistent=True`` allows more than one gradient."""

    def __init__(self, persistent=False, watch_accessed_variables=True):
        self._persistent = persistent
        self._watch_accessed_variables = watch_accessed_variables
        self._reset_state()

    def _reset_state(self):
        self._watched = []  # tensors and variables, in watch order
        self._spans = []  # (graph, first op id, end op id) of each recording stretch
        self._graph = self._start = None  # the stretch recording now
        self._used = False

    # -- recording -------------------------------------------------------------------------------
    def __enter__(self):
        self._push()
        return self

    def __exit__(self, exc_type, exc_value, tb):
        if self._start is not None:
            self._pop()

    def _push(self):
        if self._start is not None:
            raise ValueError("Tape is still recording, This can happen if you try to re-enter an already-active "
                             "tape.")
        self._graph = get_default_graph()
        self._start = self._graph.version
        _recording_tapes().append(self)

    def _pop(self):
        self._spans.append((self._graph, self._start, self._graph.version))
        self._start = None
        _recording_tapes().remove(self)

    @contextlib.contextmanager
    def stop_recording(self):
        """The ops built inside the block are not recorded (their inputs get no gradient through them)."""
        if self._start is None:
            raise ValueError("Tape must be recording.")
        self._pop()
        try:
            yield
        finally:
            self._push()

    def reset(self):
        """Forgets what was recorded and watched; a recording tape goes on recording from here."""
        recording = self._start is not None
        if recording:
            self._pop()
        self._reset_state()
        if recording:
            self._push()

    def watch(self, tensor):
        """Gradients may flow from ``tensor`` (a tensor, a resource variable, or a nest of them)."""
        for t in _flatten(tensor):
            if _is_variable(t):
                _handle(t, "GradientTape.watch")
            elif not isinstance(t, Tensor):
                t = convert_to_tensor(t)
            if not any(t is w for w in self._watched):
                self._watched.append(t)

    def _recorded(self, op):
        return any(op.graph is g and start <= op.id < end for g, start, end in self._spans_now())

    def _spans_now(self):
        spans = list(self._spans)
        if self._start is not None:
            spans.append((self._graph, self._start, self._graph.version))
        return spans

    def _recorded_ops(self):
        return [op for g, start, end in self._spans_now() for op in g.get_operations()[start:end]]

    def watched_variables(self):
        """The variables watched: given to ``watch``, and the trainable ones read while recording."""
        found = [w for w in self._watched if _is_variable(w)]
        if self._watch_accessed_variables:
            for op in self._recorded_ops():
                if op.type in _READS:
                    var = _variable_of_handle(op.inputs[0])
                    if var is not None and var.trainable and not any(var is f for f in found):
                        found.append(var)
        return tuple(found)

    # -- gradients -------------------------------------------------------------------------------
    def gradient(self, target, sources, output_gradients=None, unconnected_gradients=UnconnectedGradients.NONE):
        """d(target)/d(source) for each source (a nest, packed as ``sources``): None where the
        target does not depend on it through the recorded ops, or where the tape does not watch it."""
        if self._start is not None and not self._persistent:
            self._pop()  # TF: a non-persistent tape stops recording when asked for its gradient
        if self._used and not self._persistent:
            raise RuntimeError("A non-persistent GradientTape can only be used to compute one set of gradients "
                               "(or jacobians)")
        unconnected_gradients = UnconnectedGradients(unconnected_gradients)
        flat_sources = _flatten(sources)
        watched = [w.handle if _is_variable(w) else w for w in self._watched]
        watched += [v.handle for v in self.watched_variables()]
        xs = [_handle(s, "GradientTape.gradient") if _is_variable(s) else convert_to_tensor(s)
              for s in flat_sources]
        targets = [convert_to_tensor(t) for t in _flatten(target)]
        grad_ys = _flatten(output_gradients) if output_gradients is not None else [None] * len(targets)
        is_watched = {id(t) for t in watched}
        live = [(t, g) for t, g in zip(targets, grad_ys) if id(t) in is_watched or self._recorded(t.op)]
        asked = [i for i, x in enumerate(xs) if id(x) in is_watched]
        found = [None] * len(xs)
        if live and asked:
            stop = [t for op in self._recorded_ops() for t in op.inputs
                    if id(t) not in is_watched and not self._recorded(t.op)]
            grads = _GradientsHelper([t for t, _ in live], [xs[i] for i in asked], grad_ys=[g for _, g in live],
                                     stop_gradients=stop or None)
            for i, g in zip(asked, grads):
                found[i] = g
        if unconnected_gradients is UnconnectedGradients.ZERO:
            found = [zeros_like(x) if g is None else g for x, g in zip(xs, found)]
        self._used = True
        return _pack(sources, iter(found))

    def jacobian(self, target, sources, unconnected_gradients=UnconnectedGradients.NONE, parallel_iterations=None,
                 experimental_use_pfor=True):
        raise call("tf.GradientTape.jacobian", target=target, sources=sources, unconnected=unconnected_gradients,
                   parallel_iterations=parallel_iterations, experimental_use_pfor=experimental_use_pfor)

    def batch_jacobian(self, target, source, unconnected_gradients=UnconnectedGradients.NONE,
                       parallel_iterations=None, experimental_use_pfor=True):
        raise call("tf.GradientTape.batch_jacobian", target=target, source=source, unconnected=unconnected_gradients,
                   parallel_iterations=parallel_iterations, experimental_use_pfor=experimental_use_pfor)


def _variable_of_handle(handle):
    """The resource variable whose handle ``handle`` is (looked up in the graph's variable collections)."""
    graph = handle.graph
    for key in (GraphKeys.GLOBAL_VARIABLES, GraphKeys.LOCAL_VARIABLES):
        for var in graph.get_collection(key):
            if getattr(var, "handle", None) is handle:
                return var
    return None
