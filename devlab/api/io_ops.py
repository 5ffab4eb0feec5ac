"""``tf.io.read_file`` and ``tf.io.write_file``: a file's bytes as a string tensor, and back.

Both are ops with CPU kernels only (TF has no GPU kernel for them), so under a GPU device scope
they need soft placement, as in TF.
"""
from ..framework import dtypes
from ..ops.build import op, op_output


def read_file(filename, name=None):
    """A ReadFile op: the contents of the file named by the scalar string ``filename``."""
    return op_output("ReadFile", name, [("filename", filename, dtypes.string)])


def write_file(filename, contents, name=None):
    """A WriteFile op: writes the scalar string ``contents`` to ``filename`` when run."""
    return op("WriteFile", name, [("filename", filename, dtypes.string), ("contents", contents, dtypes.string)])
