"""``Scaffold``: the ops a MonitoredSession needs around the model, built as TF's Scaffold builds them.

``finalize()`` takes each op from its collection, or builds TF's default and puts it there, in
this order, then finalizes the graph:

* ``init_op``: ``group(global_variables_initializer(), initialize_resources(...), ...)``
  (``init``, ``init_1``, ``group_deps``);
* ``ready_op``: ``concat([report_uninitialized_variables(), report_uninitialized_resources()], 0)``:
  the names of what is not initialized, computed on ``/cpu:0`` (``concat``);
* ``ready_for_local_init_op``: the same for the global variables only (``concat_1``);
* ``local_init_op``: ``group(local_variables_initializer(), tables_initializer(), ...)``;
* ``summary_op``: ``tf.summary.merge_all()`` (None without summaries);
* ``saver``: the one Saver of the SAVERS collection, or a new *sharded* Saver (one save and restore
  op per device).
"""
import threading

from ..framework.graph import get_default_graph
from ..framework.graph_keys import GraphKeys
from ..api.array_ops import concat
from ..api.control_flow_ops import group
from ..api.lookup_ops import tables_initializer
from ..api.resources import initialize_resources, local_resources, shared_resources
from ..api.uninitialized import report_uninitialized_resources, report_uninitialized_variables
from ..api.variables import global_variables, global_variables_initializer, local_variables_initializer
from .. import summary
from .. import tf_logging as logging
from .saver import Saver

# TF builds a graph from one thread. devlab's tests (and notebooks) run several monitored sessions
# of one graph in threads; the graph-building steps of TF's helpers take this lock so they never
# interleave (the second finds what the first built in the collections).
BUILD_LOCK = threading.RLock()


class Scaffold:
    def __init__(self, init_op=None, init_feed_dict=None, init_fn=None, ready_op=None, ready_for_local_init_op=None,
                 local_init_op=None, summary_op=None, saver=None, copy_from_scaffold=None, local_init_feed_dict=None):
        if copy_from_scaffold is not None:
            if not isinstance(copy_from_scaffold, Scaffold):
                raise TypeError("copy_from_scaffold is not a Scaffold instance.")
            other = copy_from_scaffold

            def coalesce(a, b):
                return a if a is not None else b
            init_op = coalesce(init_op, other.init_op)
            init_feed_dict = coalesce(init_feed_dict, other.init_feed_dict)
            init_fn = coalesce(init_fn, other._user_init_fn)
            ready_op = coalesce(ready_op, other.ready_op)
            ready_for_local_init_op = coalesce(ready_for_local_init_op, other.ready_for_local_init_op)
            local_init_op = coalesce(local_init_op, other.local_init_op)
            local_init_feed_dict = coalesce(local_init_feed_dict, other.local_init_feed_dict)
            summary_op = coalesce(summary_op, other.summary_op)
            saver = coalesce(saver, other.saver)
        self._user_init_fn = init_fn
        self._init_fn = (lambda sess: init_fn(self, sess)) if init_fn else None
        self._init_op, self._init_feed_dict = init_op, init_feed_dict
        self._ready_op, self._ready_for_local_init_op = ready_op, ready_for_local_init_op
        self._local_init_op, self._local_init_feed_dict = local_init_op, local_init_feed_dict
        self._summary_op, self._saver = summary_op, saver

    def finalize(self):
        """Builds (or finds) every op the session needs, then finalizes the graph."""
        with BUILD_LOCK:
            if self._init_op is None:
                self._init_op = Scaffold.get_or_default("init_op", GraphKeys.INIT_OP, _default_init_op)
            if self._ready_op is None:
                self._ready_op = Scaffold.get_or_default("ready_op", GraphKeys.READY_OP, _default_ready_op)
            if self._ready_for_local_init_op is None:
                self._ready_for_local_init_op = Scaffold.get_or_default(
                    "ready_for_local_init_op", GraphKeys.READY_FOR_LOCAL_INIT_OP, _default_ready_for_local_init_op)
            if self._local_init_op is None:
                self._local_init_op = Scaffold.get_or_default("local_init_op", GraphKeys.LOCAL_INIT_OP,
                                                              Scaffold.default_local_init_op)
            if self._summary_op is None:
                self._summary_op = Scaffold.get_or_default("summary_op", GraphKeys.SUMMARY_OP, summary.merge_all)
            if self._saver is None:
                self._saver = _get_saver_or_default()
            self._saver.build()
            get_default_graph().finalize()
        logging.info("Graph was finalized.")
        return self

    init_fn = property(lambda self: self._init_fn)
    init_op = property(lambda self: self._init_op)
    ready_op = property(lambda self: self._ready_op)
    ready_for_local_init_op = property(lambda self: self._ready_for_local_init_op)
    local_init_op = property(lambda self: self._local_init_op)
    local_init_feed_dict = property(lambda self: self._local_init_feed_dict)
    summary_op = property(lambda self: self._summary_op)
    saver = property(lambda self: self._saver)
    init_feed_dict = property(lambda self: self._init_feed_dict)

    @staticmethod
    def get_or_default(arg_name, collection_key, default_constructor):
        """The one item of the collection, or ``default_constructor()`` (added to it)."""
        elements = get_default_graph().get_collection(collection_key)
        if elements:
            if len(elements) > 1:  # TF passes the values as arguments, not into the text: kept
                raise RuntimeError('More than one item in the collection "%s". Please indicate which one to use '
                                   'by passing it to the tf.Scaffold constructor as:  tf.Scaffold(%s=item to use)',
                                   collection_key, arg_name)
            return elements[0]
        op = default_constructor()
        if op is not None:
            get_default_graph().add_to_collection(collection_key, op)
        return op

    @staticmethod
    def default_local_init_op():
        """Initializes the local variables, the tables and the local resources."""
        return group(local_variables_initializer(), tables_initializer(), initialize_resources(local_resources()))


def _default_init_op():
    return group(global_variables_initializer(), initialize_resources(shared_resources()),
                 get_default_graph().get_collection("saved_model_initializers"))


def _default_ready_op():
    return concat([report_uninitialized_variables(), report_uninitialized_resources()], 0)


def _default_ready_for_local_init_op():
    return concat([report_uninitialized_variables(global_variables()),
                   report_uninitialized_resources(shared_resources())], 0)


def _get_saver_or_default():
    """The Saver of the SAVERS collection, or a new sharded one added to it (TF's rule)."""
    savers = get_default_graph().get_collection(GraphKeys.SAVERS)
    if savers:
        if len(savers) > 1:
            raise RuntimeError(f"More than one item in collection {GraphKeys.SAVERS}. "
                               "Please indicate which one to use by passing it to the constructor.")
        return savers[0]
    saver = Saver(sharded=True, allow_empty=True)
    get_default_graph().add_to_collection(GraphKeys.SAVERS, saver)
    return saver
