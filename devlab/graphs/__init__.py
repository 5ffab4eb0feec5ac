"""TensorFlow's graph files: open them, place them on any devices, model their runs, compare
devlab's placement with the one TensorFlow recorded, and write graphs and event files back.

Needs the ``graphs`` extra (TensorBoard's copy of TensorFlow's protocol buffers):
``pip install 'devlab[graphs]'``. Layer: beside ``train`` (it reads what Savers write).
"""
from .files import GRAPH_EXTENSIONS, GraphFileError, read_graph_file
from . import compare  # noqa: F401
from .compare import PlacementComparison, compare_placement, recorded_placement
from .encode import graph_def, write_graph
from .load import KernelReport, import_graph_def, kernel_report, load_graph

__all__ = ["GRAPH_EXTENSIONS", "GraphFileError", "KernelReport", "PlacementComparison", "compare_placement",
           "recorded_placement", "graph_def", "import_graph_def", "kernel_report",
           "load_graph", "read_graph_file", "write_graph"]
