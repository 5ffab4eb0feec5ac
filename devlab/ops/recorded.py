"""TensorFlow's recorded per-op tables (``data/tf_op_defs.json``, ``data/tf_kernels.json``), read
an op at a time.

The files are JSON objects written with one op per line (``tools/per_op_json.py``), so the
reader keeps each op's line as text and parses it the first time that op is asked for: a
program that uses twenty op types parses twenty lines, not two thousand entries, and building a
graph does not begin by filling memory with objects Python's garbage collector then walks.
"""
import functools
import json
import os

_DATA = os.path.join(os.path.dirname(__file__), "data")


class PerOpTable:
    """``get(op_type)``: one op's recorded entry (a dict, shared: never mutate it) or None."""

    def __init__(self, filename):
        self.path = os.path.join(_DATA, filename)

    @functools.cached_property
    def _lines(self):
        """{op name: its entry's JSON text} (the ``_meta`` entry says how the file was made)."""
        with open(self.path) as f:
            lines = f.read().split("\n")
        if lines[0] != "{" or lines[-2:] != ["}", ""]:
            raise ValueError(f"{self.path} is not one op per line (tools/per_op_json.py writes it)")
        out = {}
        for line in lines[1:-2]:
            name, _, entry = line.rstrip(",").partition(":")
            out[json.loads(name)] = entry
        out.pop("_meta", None)
        return out

    def __contains__(self, op_type):
        return op_type in self._lines

    @functools.lru_cache(maxsize=None)
    def get(self, op_type):
        text = self._lines.get(op_type)
        return None if text is None else json.loads(text)


OP_DEFS = PerOpTable("tf_op_defs.json")
KERNELS = PerOpTable("tf_kernels.json")
