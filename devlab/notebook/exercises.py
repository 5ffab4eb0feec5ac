"""The tutorials' exercise checks: one line that starts with ✔ when the learner's answer is right,
or with ✘ and a hint (never the answer) when it is not, or not given yet.

An exercise cell ships open (``prediction = ...``); its check cell computes the right answer from
the program itself (by running it), so the check never spells the answer out.
"""
from ..views.colours import short_device

UNANSWERED = (Ellipsis, None)


def check(answer, expected, hint, same=None, well_done="right"):
    """Prints ``✔ ...`` if ``answer`` matches ``expected`` (``same(answer, expected)`` when given),
    else ``✘ ...`` with ``hint``. Returns nothing, so a check at the end of a cell shows only its line."""
    if any(answer is u for u in UNANSWERED):
        print(f"\u2718 not answered yet: replace the ... in the exercise cell above. Hint: {hint}")
        return
    try:
        ok = same(answer, expected) if same is not None else answer == expected
    except Exception:  # noqa: BLE001 - an answer of the wrong kind is just wrong
        ok = False
    if ok:
        print(f"\u2714 {well_done}")
    elif _wrong_kind(answer, expected):
        # "2" for 2 is the right idea written as the wrong kind: say so, never "('2' is not it)"
        print(f"\u2718 not yet: the answer is {_kind(expected)}, and {answer!r} is {_kind(answer)}. Hint: {hint}")
    else:
        said = "" if isinstance(answer, bool) else f" ({answer!r} is not it)"
        print(f"\u2718 not yet{said}. Hint: {hint}")


def _kind(value):
    """"a number", "a string", ... : how a learner would name a value's type."""
    if isinstance(value, bool):
        return "True or False"
    if isinstance(value, (int, float)) or type(value).__module__ == "numpy" and hasattr(value, "dtype"):
        return "a number"
    if isinstance(value, str):
        return "a string (in quotes)"
    if isinstance(value, (list, tuple, set)):
        return "a list"
    if isinstance(value, dict):
        return "a dict"
    return f"a {type(value).__name__}"


def _wrong_kind(answer, expected):
    """Whether ``answer`` is a different kind of value than ``expected`` (a string for a number...)."""
    if expected is None or any(answer is u for u in UNANSWERED):
        return False
    return _kind(answer) != _kind(expected)


def same_device(a, b):
    """Whether two device names mean the same device: ``"GPU:1"``, ``"/gpu:1"``, ``"/device:GPU:1"``
    and ``"/job:localhost/replica:0/task:0/device:GPU:1"`` all do."""
    if not isinstance(a, str) or not isinstance(b, str) or not a.strip():
        return False
    return short_device(a) == short_device(b)
