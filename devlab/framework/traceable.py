"""Source locations: where an op was created and where each scope that shaped it was opened."""
import os
import sys
from dataclasses import dataclass

_HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # the devlab package
_STDLIB = os.path.dirname(os.__file__)


@dataclass(frozen=True)
class TraceableObject:
    """An object (a device string, a function's name, None) and the file and line it came from."""

    obj: object
    filename: str = "<unknown>"
    lineno: int = 0

    def location(self):
        return f"{self.filename}:{self.lineno}"


def user_location():
    """(filename, line) of the innermost frame outside devlab and contextlib: the user's line."""
    frame = sys._getframe(1)
    while frame is not None:
        fn = frame.f_code.co_filename
        if not (fn.startswith(_HERE) or fn.startswith(_STDLIB)):
            return fn, frame.f_lineno
        frame = frame.f_back
    return "<unknown>", 0
