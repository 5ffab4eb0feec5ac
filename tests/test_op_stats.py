"""TF's op statistics registry (``ops.RegisterStatistics``, ``ops.get_stats_for_node_def``,
``ops.OpStats``): registered functions answer for their op type; others give an empty OpStats."""
import pytest

import devlab as tf
from devlab.framework import op_stats
from devlab.framework.operation import _NodeDef


@op_stats.RegisterStatistics("DevlabStatsTestOp", "flops")
def _flops(graph, node):
    return op_stats.OpStats("flops", 20 if node.name == "a" else 7)


def test_registered_and_unregistered_statistics():
    graph = tf.Graph()
    assert op_stats.get_stats_for_node_def(graph, _NodeDef("DevlabStatsTestOp", "a"), "flops").value == 20
    assert op_stats.get_stats_for_node_def(graph, _NodeDef("DevlabStatsTestOp", "b"), "flops").value == 7
    missing = op_stats.get_stats_for_node_def(graph, _NodeDef("DevlabStatsTestOp", "a"), "weight_params")
    assert (missing.statistic_type, missing.value) == ("weight_params", None)


def test_accumulating_and_registration_errors():
    total = op_stats.OpStats("flops")
    total += op_stats.OpStats("flops", 3)
    total += op_stats.OpStats("flops")
    total += op_stats.OpStats("flops", 4)
    assert total.value == 7
    with pytest.raises(ValueError, match="^Can't add an OpStat of type flops to one of bytes.$"):
        total += op_stats.OpStats("bytes", 1)
    with pytest.raises(TypeError, match="^op_type must not contain a comma.$"):
        op_stats.RegisterStatistics("a,b", "flops")
    with pytest.raises(KeyError, match="Registering two statistical functions"):
        op_stats.RegisterStatistics("DevlabStatsTestOp", "flops")(_flops)
