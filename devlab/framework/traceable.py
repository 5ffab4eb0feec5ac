"""Source locations: where an op was created and where each scope that shaped it was opened."""
import os
import sys

_HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # the devlab package
_STDLIB = os.path.dirname(os.__file__)


class TraceableObject:
    """An object (a device string, a function's name, None) and the file and line it came from."""

    __slots__ = ("obj", "filename", "lineno")

    def __init__(self, obj, filename="<unknown>", lineno=0):
        self.obj, self.filename, self.lineno = obj, filename, lineno

    def location(self):
        return f"{self.filename}:{self.lineno}"

    def __eq__(self, other):
        return isinstance(other, TraceableObject) and (self.obj, self.filename, self.lineno) == (
            other.obj, other.filename, other.lineno)

    def __hash__(self):
        return hash((self.obj, self.filename, self.lineno))

    def __repr__(self):
        return f"TraceableObject(obj={self.obj!r}, filename={self.filename!r}, lineno={self.lineno})"


_INTERNAL = {}  # code object -> whether it belongs to devlab or the standard library


def user_location():
    """(filename, line) of the innermost frame outside devlab and the standard library: the
    user's line. Which code objects are internal is remembered, since this runs for every op."""
    frame = sys._getframe(1)
    while frame is not None:
        code = frame.f_code
        internal = _INTERNAL.get(code)
        if internal is None:
            fn = code.co_filename
            internal = _INTERNAL[code] = fn.startswith(_HERE) or fn.startswith(_STDLIB)
        if not internal:
            return code.co_filename, frame.f_lineno
        frame = frame.f_back
    return "<unknown>", 0
