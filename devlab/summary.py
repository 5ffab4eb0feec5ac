"""``tf.summary``: scalar and histogram summaries, their merge, and ``FileWriter``, which writes
TensorBoard event files. Summary ops have CPU kernels only, as in TensorFlow."""
import contextlib
import re
import threading

from .framework.graph import get_default_graph
from .framework.graph_keys import GraphKeys
from .framework.scopes import name_scope
from .api.array_ops import constant
from .ops.build import apply_op_output, convert_to_tensor
from .unimplemented import module_getattr

__getattr__ = module_getattr("tf.summary", __name__)


def _clean_tag(name):
    """TF's ``clean_tag``: characters a tag may not hold become '_' (a leading '/' is dropped)."""
    if name is None:
        return None
    cleaned = re.sub(r"[^-/\w\.]", "_", name)
    return cleaned.lstrip("/")


@contextlib.contextmanager
def _summary_scope(name, family, default_name, values):
    """The name scope of a summary op and its tag (the scope's name, with the family before it)."""
    name, family = _clean_tag(name), _clean_tag(family)
    base = name if family is None else f"{family}/{name}"
    with name_scope(base, default_name, values) as scope:
        tag = scope.rstrip("/") if family is None else f"{family}/{scope.rstrip('/')}"
        yield tag, scope


def _collect(value, collections, default):
    get_default_graph().add_to_collections(default if collections is None else collections, value)


def scalar(name, tensor, collections=None, family=None):
    """A ScalarSummary of ``tensor`` tagged ``name``, added to the SUMMARIES collection."""
    with _summary_scope(name, family, None, [tensor]) as (tag, scope):
        out = apply_op_output("ScalarSummary", [constant(tag, name="tags"), convert_to_tensor(tensor)], None, scope)
    _collect(out, collections, [GraphKeys.SUMMARIES])
    return out


def histogram(name, values, collections=None, family=None):
    """A HistogramSummary of ``values`` tagged ``name``, added to the SUMMARIES collection."""
    with _summary_scope(name, family, "HistogramSummary", [values]) as (tag, scope):
        out = apply_op_output("HistogramSummary", [constant(tag, name="tag"), convert_to_tensor(values)], None, scope)
    _collect(out, collections, [GraphKeys.SUMMARIES])
    return out


def merge(inputs, collections=None, name=None):
    """One MergeSummary of several summaries."""
    with name_scope(name, "Merge", inputs):
        out = apply_op_output("MergeSummary", [convert_to_tensor(x) for x in inputs], {"N": len(inputs)},
                              name or "MergeSummary")
    _collect(out, collections, [])
    return out


def merge_all(key=GraphKeys.SUMMARIES, scope=None, name=None):
    """The merge of every summary in the collection ``key`` (None when there is none)."""
    summaries = get_default_graph().get_collection(key, scope)
    return merge(summaries, name=name) if summaries else None


class FileWriter:
    """TF1's ``tf.summary.FileWriter``: writes TensorBoard event files (``events.out.tfevents...``)
    in ``logdir``, through TensorBoard's own event-file writer (the ``graphs`` extra).

    ``FileWriter(logdir, sess.graph)`` writes the graph, each node with its device: the device a
    session placed it on when ``session=`` (or the default session, on this graph) has placed it,
    else its requested device as TensorFlow writes it. devlab does this on purpose: TensorBoard's
    "color by device" then shows the placement, which is what devlab is for.
    ``add_summary``, ``add_graph``, ``add_run_metadata`` (step stats and partition graphs, so
    TensorBoard shows compute time and memory per node), ``add_event``, ``flush``, ``close``.
    """

    def __init__(self, logdir, graph=None, max_queue=10, flush_secs=120, graph_def=None, filename_suffix=None,
                 session=None):
        from .framework.tf_protos import pb
        self._pb = pb()
        self._logdir = str(logdir)
        self._args = (max_queue, flush_secs, filename_suffix or "")
        self._session = session
        self._closed = False
        self._writer = self._open()
        if graph is not None or graph_def is not None:
            self.add_graph(graph, graph_def=graph_def)

    def _open(self):
        from .framework.extras import require
        EventFileWriter = require("tensorboard.summary.writer.event_file_writer",  # noqa: N806 - TensorBoard's class
                                  "tf.summary.FileWriter").EventFileWriter
        max_queue, flush_secs, suffix = self._args
        return EventFileWriter(self._logdir, max_queue, flush_secs, suffix)

    def get_logdir(self):
        return self._logdir

    def add_event(self, event):
        """Writes one ``Event`` message (its ``wall_time`` set now if unset)."""
        if self._closed:
            raise RuntimeError("FileWriter is closed; call reopen() first.")
        if not event.wall_time:
            import time
            event.wall_time = time.time()
        self._writer.add_event(event)

    def _event(self, global_step=None, **fields):
        event = self._pb.Event(**fields)
        if global_step is not None:
            event.step = int(global_step)
        self.add_event(event)

    def _placed_devices(self, graph):
        """{op name: device} a session placed ``graph`` on, or None."""
        from .framework.default_session import get_default_session
        for session in (self._session, get_default_session()):
            if session is not None and session.graph is graph and getattr(session, "placement", None) is not None:
                return {name: device.name for name, device in session.placement.assigned.items()}
        return None

    def add_graph(self, graph, global_step=None, graph_def=None):
        """Writes the graph (a devlab Graph, or a GraphDef message)."""
        from .graphs.encode import graph_def as to_graph_def
        source = graph if graph is not None else graph_def
        if source is None:
            raise ValueError("add_graph needs a graph or a graph_def")
        devices = self._placed_devices(graph) if hasattr(source, "get_operations") else None
        message = to_graph_def(source, devices)
        self._event(global_step, graph_def=message.SerializeToString(deterministic=True))

    def add_summary(self, summary, global_step=None):
        """Writes a summary: a ``Summary`` message or its bytes (as TF's summary ops give), or the
        value of devlab's ``tf.summary.scalar`` (``"tag: value"``), or a list of them."""
        message = self._summary(summary)
        self._event(global_step, summary=message)

    def _summary(self, summary):
        p = self._pb
        if isinstance(summary, p.Summary):
            return summary
        if isinstance(summary, (bytes, bytearray)):
            return p.Summary.FromString(bytes(summary))
        if type(summary).__name__ == "Summary" and hasattr(summary, "SerializeToString"):
            return p.Summary.FromString(summary.SerializeToString())
        raise TypeError(f"add_summary takes a Summary or its serialized bytes (what a summary op "
                        f"returns), got {type(summary).__name__}")

    def add_run_metadata(self, run_metadata, tag, global_step=None):
        """Writes a run's metadata under ``tag``: its step stats (devlab's, modelled where devices are
        simulated) and partition graphs, as TensorBoard's graph view reads them."""
        message = run_metadata_proto(run_metadata)
        tagged = self._pb.TaggedRunMetadata(tag=str(tag), run_metadata=message.SerializeToString())
        self._event(global_step, tagged_run_metadata=tagged)

    def add_session_log(self, session_log, global_step=None):
        self._event(global_step, session_log=session_log)

    def flush(self):
        if not self._closed:
            self._writer.flush()

    def close(self):
        if not self._closed:
            self._writer.close()
            self._closed = True

    def reopen(self):
        """Opens a new event file after ``close()``."""
        if self._closed:
            self._writer = self._open()
            self._closed = False

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False


class FileWriterCache:
    """One FileWriter per log directory, shared by everything that writes there (TF's
    ``tf.summary.FileWriterCache``): a Supervisor's or a MonitoredTrainingSession's hooks write into
    one event file. A new writer starts with the default graph, as TF's does."""
    _cache = {}
    _lock = threading.RLock()

    @staticmethod
    def get(logdir):
        with FileWriterCache._lock:
            writer = FileWriterCache._cache.get(logdir)
            if writer is None:
                writer = FileWriterCache._cache[logdir] = FileWriter(logdir, graph=get_default_graph())
            return writer

    @staticmethod
    def clear():
        with FileWriterCache._lock:
            for writer in FileWriterCache._cache.values():
                writer.close()
            FileWriterCache._cache.clear()


def run_metadata_proto(run_metadata):
    """TensorFlow's RunMetadata message of devlab's RunMetadata (or of a message, unchanged)."""
    from .graphs.encode import graph_def
    from .framework.tf_protos import pb
    p = pb()
    if isinstance(run_metadata, p.RunMetadata):
        return run_metadata
    if type(run_metadata).__name__ == "RunMetadata" and hasattr(run_metadata, "SerializeToString"):
        return p.RunMetadata.FromString(run_metadata.SerializeToString())
    out = p.RunMetadata()
    for dev in run_metadata.step_stats.dev_stats:
        d = out.step_stats.dev_stats.add(device=dev.device)
        for n in dev.node_stats:
            start, dur = int(round(n.all_start_micros)), int(round(n.all_end_rel_micros))
            d.node_stats.add(node_name=n.node_name, all_start_micros=start, op_start_rel_micros=0,
                             op_end_rel_micros=dur, all_end_rel_micros=dur, timeline_label=n.timeline_label,
                             scheduled_micros=start)
    for g in run_metadata.partition_graphs:
        out.partition_graphs.add().CopyFrom(graph_def(g))
    return out
