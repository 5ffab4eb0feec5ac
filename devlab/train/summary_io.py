"""Where the training helpers write TensorBoard events: the shared ``FileWriter`` of a directory.

TF's Supervisor and its hooks always write event files (the graph, step rates, summaries,
checkpoint notes). devlab writes them through TensorBoard's event writer, the ``graphs`` extra;
without it installed, ``writer_for`` gives None and those helpers train, save checkpoints and log
as TF's do, writing no event files.
"""
from ..api.python_io import tf_record_iterator
from ..framework import tf_protos as protos
from ..summary import FileWriter, FileWriterCache


def writer_for(logdir):
    """The cached FileWriter of ``logdir``, or None without a directory or without the graphs extra."""
    if not logdir or not protos.available():
        return None
    return FileWriterCache.get(logdir)


def new_writer(logdir):
    """A FileWriter of its own for ``logdir`` (the Supervisor's), or None as for ``writer_for``."""
    if not logdir or not protos.available():
        return None
    return FileWriter(logdir)


def session_log(status, checkpoint_path=None):
    """TF's ``SessionLog`` message (``"START"``, ``"STOP"``, ``"CHECKPOINT"``)."""
    pb = protos.pb()
    log = pb.SessionLog(status=getattr(pb.SessionLog, status))
    if checkpoint_path:
        log.checkpoint_path = checkpoint_path
    return log


def scalar_summary(tag, value):
    """A ``Summary`` message with one simple value (what StepCounterHook writes)."""
    pb = protos.pb()
    return pb.Summary(value=[pb.Summary.Value(tag=tag, simple_value=float(value))])


def write_graph(graph, logdir, name="graph.pbtxt"):
    """Writes ``graph`` as text into ``logdir/name`` where the graphs extra is installed."""
    if protos.available():
        from ..graphs.encode import write_graph as write
        write(graph, logdir, name)


def summary_iterator(path):
    """``tf.train.summary_iterator``: the ``Event`` messages of the event file at ``path``, in order."""
    event = protos.pb().Event
    for record in tf_record_iterator(path):
        yield event.FromString(record)
