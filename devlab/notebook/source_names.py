"""Source locations in a notebook as ``cell 3, line 2`` instead of the kernel's temporary file
(``/tmp/ipykernel_12890/1840441934.py:4``), in explanations and reports.

IPython remembers which execution count each cell's file belongs to; a ``%%placement`` cell is
compiled from its body, whose line 1 is the cell's line 2, so the magic records that offset here.
"""
from .. import config

_cells = {}  # filename -> (execution count, line offset)
_shell = None


def remember(filename, number, line_offset=0):
    _cells[filename] = (number, line_offset)


def name(filename, lineno):
    """``cell N, line L`` for a notebook cell's file (N its execution count, as error messages say),
    else None."""
    found = _cells.get(filename)
    if found is None and _shell is not None:
        number = getattr(_shell.compile, "_filename_map", {}).get(filename)
        if number is not None:
            found = (number, 0)
    if found is None:
        return None
    number, offset = found
    return f"cell {number}, line {lineno + offset}"


def install(shell):
    global _shell
    _shell = shell
    config.add_source_namer(name)


def uninstall():
    config.remove_source_namer(name)
