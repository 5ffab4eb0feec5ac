"""TensorFlow's graph files: open them, place them on any devices, model their runs, compare
devlab's placement with the one TensorFlow recorded, and write graphs and event files back.

One plan (``plan.py``) and one builder (``build.py``) for every imported graph, with a parser per
format: TensorFlow's GraphDef and MetaGraphDef (``decode.py``, ``meta_graph_def.py``; the ``graphs``
extra, TensorBoard's copy of TensorFlow's protocol buffers: ``pip install 'devlab[graphs]'``) and
devlab's JSON meta graph (``json_decode.py``; ``json_encode.py`` writes it). Layer: beside
``train``, which imports it for ``tf.train.import_meta_graph`` and the Saver.
"""
from .files import GRAPH_EXTENSIONS, GraphFileError, read_graph_file
from . import compare  # noqa: F401
from .compare import PlacementComparison, compare_placement, recorded_placement
from .encode import graph_def, write_graph
from .load import KernelReport, import_graph_def, kernel_report, load_graph

__all__ = ["GRAPH_EXTENSIONS", "GraphFileError", "KernelReport", "PlacementComparison", "compare_placement",
           "recorded_placement", "graph_def", "import_graph_def", "kernel_report",
           "load_graph", "read_graph_file", "write_graph"]
