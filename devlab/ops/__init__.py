"""The op layer: one op table (``table.py``) of OpDefs, kernels written once against an array
module (``kernels.py`` and its siblings), static shape rules (``shapes.py``), TensorFlow's recorded
facts (``recorded.py``, ``tf_ops.py``), and ``build.py``, the one place an op is added to a graph.
The ``tf.*`` functions that call it live one layer up, in ``devlab/api``."""
