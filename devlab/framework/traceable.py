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


_INTERNAL = {}  # file name -> whether it belongs to devlab or the standard library
_LOCATIONS = {}  # (file name, line) -> the (file name, line) that every op made there shares


_LIBRARIES = ("site-packages", "dist-packages")  # where installed libraries (wrappers of TF) live


def user_and_library_locations():
    """((filename, line) of the user's line, (filename, line) of the library line that called
    devlab for it or None). The first frame outside devlab and the standard library may be an
    installed library wrapping TF (tf_slim, a Keras layer...); the user's line is then the first
    frame past it that is not in an installed library. Without one, the library's line is the
    user's."""
    frame = sys._getframe(1)
    first = None
    while frame is not None:
        fn = frame.f_code.co_filename
        if not (fn.startswith(_HERE) or fn.startswith(_STDLIB) or fn.startswith("<frozen")):
            if first is None:
                first = (fn, frame.f_lineno)
            if not any(part in fn for part in _LIBRARIES):
                user = (fn, frame.f_lineno)
                return user, (first if first != user else None)
        frame = frame.f_back
    return (first or ("<unknown>", 0)), None


def user_location():
    """(filename, line) of the innermost frame outside devlab and the standard library: the
    user's line. This runs for every op, so which files are internal is remembered (by file
    name: a string keeps its hash), and the ops of one line share one location: a loop making
    10,000 ops makes one, not 10,000."""
    frame = sys._getframe(1)
    while frame is not None:
        fn = frame.f_code.co_filename
        internal = _INTERNAL.get(fn)
        if internal is None:
            internal = _INTERNAL[fn] = fn.startswith(_HERE) or fn.startswith(_STDLIB)
        if not internal:
            key = (fn, frame.f_lineno)
            location = _LOCATIONS.get(key)
            if location is None:
                location = key
                if len(_LOCATIONS) < 4096:
                    _LOCATIONS[key] = key
            return location
        frame = frame.f_back
    return "<unknown>", 0
