"""Showing a placement or run error as the op, the reason and the user's source line."""
import re

from .. import config


def short_traceback(error):
    """The lines IPython shows for a devlab/TF error raised in a cell (no internal frames)."""
    message = str(error)
    head, _, rest = message.partition("\n\nDetected at node")
    lines = [f"{type(error).__name__}: {head.strip()}"]
    op = getattr(error, "op", None)
    culprit = _cannot_follow(message, op)
    if culprit is not None:  # TF names the group's op; the learner needs the member without the kernel
        member, device_type = culprit
        lines.append(f"  the op that cannot follow: {member.name} ({member.type}) has no {device_type} kernel, "
                     f"and it is colocated with {op.name} ({op.type}), which asks for {device_type}")
        op = member
    if op is not None:
        filename, lineno = op.traceback
        lines.append(f"  op: {op.name} ({op.type}), requested device {op.device or '(none)'!r}")
        lines.append(f"  defined at {config.source_location(filename, lineno)}")
        src = _source_line(filename, lineno)
        if src:
            lines.append(f"    {src}")
    return lines


def _cannot_follow(message, op):
    """(the colocation member with no kernel for the device type asked for, that type), read from
    TF's "Colocation Debug Info" block of ``message``; None when the error is not that one."""
    wanted = re.search(r"no supported kernel for (\w+) devices", message)
    if op is None or wanted is None:
        return None
    device_type = wanted.group(1)
    kinds = {t: devs.split() for t, devs in re.findall(r"^(\w+): ((?:\w+ ?)*)$", message, re.M)}
    lacking = {t for t, devs in kinds.items() if device_type not in devs}
    for name, op_type in re.findall(r"^  (\S+) \((\w+)\)", message, re.M):
        if op_type in lacking and name != op.name:
            try:
                return op.graph.get_operation_by_name(name), device_type
            except (KeyError, ValueError):
                return None
    return None


def _source_line(filename, lineno):
    import linecache
    return linecache.getline(filename, lineno).strip()
