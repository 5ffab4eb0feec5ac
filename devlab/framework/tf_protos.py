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
    (attr_value_pb2, config_pb2, event_pb2, graph_pb2, meta_graph_pb2, node_def_pb2, op_def_pb2, step_stats_pb2,
     summary_pb2, tensor_pb2, tensor_shape_pb2, types_pb2, variable_pb2) = (
        require(f"tensorboard.compat.proto.{name}", FEATURE) for name in (
            "attr_value_pb2", "config_pb2", "event_pb2", "graph_pb2", "meta_graph_pb2", "node_def_pb2", "op_def_pb2",
            "step_stats_pb2", "summary_pb2", "tensor_pb2", "tensor_shape_pb2", "types_pb2", "variable_pb2"))
    return types.SimpleNamespace(
        GraphDef=graph_pb2.GraphDef, NodeDef=node_def_pb2.NodeDef, OpDef=op_def_pb2.OpDef, AttrValue=attr_value_pb2.AttrValue,
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


@functools.lru_cache(maxsize=None)
def queue_runner_def():
    """TF's ``QueueRunnerDef`` message class (``tensorflow/core/protobuf/queue_runner.proto``), which
    TensorBoard's copy lacks: built here from its five fields, in a pool of its own so that it never
    clashes with TensorFlow's. Its bytes are TF's (the error codes are plain varints, as the enum's are)."""
    descriptor_pb2 = require("google.protobuf.descriptor_pb2", FEATURE, "graphs")
    descriptor_pool = require("google.protobuf.descriptor_pool", FEATURE, "graphs")
    message_factory = require("google.protobuf.message_factory", FEATURE, "graphs")
    field = descriptor_pb2.FieldDescriptorProto
    file = descriptor_pb2.FileDescriptorProto(name="tensorflow/core/protobuf/queue_runner.proto",
                                              package="tensorflow", syntax="proto3")
    message = file.message_type.add(name="QueueRunnerDef")
    for number, (name, label, kind) in enumerate([
            ("queue_name", field.LABEL_OPTIONAL, field.TYPE_STRING),
            ("enqueue_op_name", field.LABEL_REPEATED, field.TYPE_STRING),
            ("close_op_name", field.LABEL_OPTIONAL, field.TYPE_STRING),
            ("cancel_op_name", field.LABEL_OPTIONAL, field.TYPE_STRING),
            ("queue_closed_exception_types", field.LABEL_REPEATED, field.TYPE_INT32)], start=1):
        message.field.add(name=name, number=number, label=label, type=kind)
    pool = descriptor_pool.DescriptorPool()
    pool.Add(file)
    return message_factory.GetMessageClass(pool.FindMessageTypeByName("tensorflow.QueueRunnerDef"))


def saver_def_class():
    """TF's ``SaverDef`` message class (TensorBoard's copy of ``saver.proto``)."""
    return require("tensorboard.compat.proto.saver_pb2", FEATURE, "graphs").SaverDef
