"""The op layer: one op table (``table.py``), kernels written once against an array module
(``kernels.py``), static shape rules (``shapes.py``), gradient rules (``grad_table.py``), and the
graph-building functions TensorFlow users call (``math_ops``, ``array_ops``, ``variables``...)."""
