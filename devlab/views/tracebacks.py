"""Showing a placement or run error as the op, the reason and the user's source line."""
from .. import config


def short_traceback(error):
    """The lines IPython shows for a devlab/TF error raised in a cell (no internal frames)."""
    message = str(error)
    head, _, rest = message.partition("\n\nDetected at node")
    lines = [f"{type(error).__name__}: {head.strip()}"]
    op = getattr(error, "op", None)
    if op is not None:
        filename, lineno = op.traceback
        lines.append(f"  op: {op.name} ({op.type}), requested device {op.device or '(none)'!r}")
        lines.append(f"  defined at {config.source_location(filename, lineno)}")
        src = _source_line(filename, lineno)
        if src:
            lines.append(f"    {src}")
    return lines


def _source_line(filename, lineno):
    import linecache
    return linecache.getline(filename, lineno).strip()
