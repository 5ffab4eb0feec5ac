"""``tf.summary``: scalar and histogram summaries and their merge. Summary ops have CPU kernels
only, as in TensorFlow. (``FileWriter`` comes later; a summary here is a line of text.)"""
import contextlib
import re

from .framework.graph import get_default_graph
from .framework.graph_keys import GraphKeys
from .framework.scopes import name_scope
from .ops.array_ops import constant
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
