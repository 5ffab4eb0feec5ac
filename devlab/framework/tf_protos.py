"""TensorFlow's protocol buffers, from the maintained copy TensorBoard ships.

devlab never imports TensorFlow. TensorBoard's package carries the generated Python modules of
TF's ``GraphDef``, ``MetaGraphDef``, ``RunMetadata``, ``Event`` and friends
(``tensorboard.compat.proto``), plus the event-file writer and reader; the ``graphs`` extra
installs it (``pip install 'devlab[graphs]'``). Everything here is imported on first use, so
the rest of devlab works without it.
"""
import functools
import types

from .extras import require

FEATURE = "reading and writing TensorFlow's graph files, event files and summaries"


@functools.lru_cache(maxsize=None)
def pb():
    """The proto modules, as one namespace: ``pb().GraphDef``, ``pb().text_format``..."""
    message = require("google.protobuf.message", FEATURE, "graphs")
    text_format = require("google.protobuf.text_format", FEATURE, "graphs")
    (attr_value_pb2, config_pb2, event_pb2, graph_pb2, meta_graph_pb2, node_def_pb2, step_stats_pb2, summary_pb2,
     tensor_pb2, tensor_shape_pb2, types_pb2, variable_pb2) = (
        require(f"tensorboard.compat.proto.{name}", FEATURE) for name in (
            "attr_value_pb2", "config_pb2", "event_pb2", "graph_pb2", "meta_graph_pb2", "node_def_pb2",
            "step_stats_pb2", "summary_pb2", "tensor_pb2", "tensor_shape_pb2", "types_pb2", "variable_pb2"))
    return types.SimpleNamespace(
        GraphDef=graph_pb2.GraphDef, NodeDef=node_def_pb2.NodeDef, AttrValue=attr_value_pb2.AttrValue,
        NameAttrList=attr_value_pb2.NameAttrList, TensorProto=tensor_pb2.TensorProto,
        TensorShapeProto=tensor_shape_pb2.TensorShapeProto, MetaGraphDef=meta_graph_pb2.MetaGraphDef,
        VariableDef=variable_pb2.VariableDef, SaveSliceInfoDef=variable_pb2.SaveSliceInfoDef,
        RunMetadata=config_pb2.RunMetadata,
        StepStats=step_stats_pb2.StepStats, Event=event_pb2.Event, SessionLog=event_pb2.SessionLog,
        Summary=summary_pb2.Summary, HistogramProto=summary_pb2.HistogramProto,
        TaggedRunMetadata=event_pb2.TaggedRunMetadata, DataType=types_pb2.DataType,
        text_format=text_format, DecodeError=message.DecodeError, Message=message.Message)


def available():
    """Whether the protos can be imported (the ``graphs`` extra is installed)."""
    try:
        pb()
    except ImportError:
        return False
    return True
