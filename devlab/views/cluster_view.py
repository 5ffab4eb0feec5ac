"""A cluster as a small diagram: each task a box (its worker, its process, its variables), and an
arrow per pair of tasks that exchanged tensors in the last run, labelled with the bytes moved.

``cluster_text`` draws it in plain text (for a terminal or a log); ``cluster_graph`` returns the
DOT text as a ``Dot`` (drawn by graphviz's ``dot`` program, shown as SVG in a notebook). Both read
only ``devlab.cluster.tasks(spec)`` and ``devlab.cluster.last_run(sess)``.
"""
from ..cluster.split import task_name
from .graph_view import Dot, dot_quote


def _size(n):
    for unit in ("bytes", "KB", "MB", "GB"):
        if n < 1024 or unit == "GB":
            return f"{n:,} {unit}" if unit == "bytes" else f"{n:.1f} {unit}"
        n /= 1024
    return f"{n}"


def _box(info):
    lines = [info.name, f"{info.address}  pid {info.pid}"]
    if info.variables:
        lines += [f"  {name} {list(shape)} {dtype}" for name, (shape, dtype, _) in sorted(info.variables.items())]
        lines.append(f"  ({_size(sum(v[2] for v in info.variables.values()))} of variables)")
    else:
        lines.append("  (no variables)")
    return lines


def cluster_text(infos, report=None):
    """Each task as a text box, then the bytes moved between tasks in ``report``'s run."""
    out = []
    for info in infos:
        lines = _box(info)
        width = max(map(len, lines)) + 2
        out.append("+" + "-" * width + "+")
        out += [f"| {line:<{width - 2}} |" for line in lines]
        out.append("+" + "-" * width + "+")
    if report is not None:
        out.append(f"last run: {report.bytes_moved:,} bytes moved between tasks in {len(report.transfers)} transfers")
        for (src, dst), n in sorted(report.bytes_between().items()):
            out.append(f"  {task_name(src)} -> {task_name(dst)}: {_size(n)}")
    return "\n".join(out)


def cluster_graph(infos, report=None):
    """A ``Dot``: tasks as boxes with their variables, arrows with bytes per step."""
    lines = ['digraph cluster {', '  graph [fontname="Helvetica" rankdir=LR]',
             '  node [fontname="Helvetica" fontsize=10 shape=box]']
    for info in infos:
        colour = "#FFF3E0" if info.task[0] == "ps" else "#E3F2FD"
        # "\l" ends a left-aligned line in a graphviz label
        label = '"' + dot_quote("\n".join(_box(info)))[1:-1].replace("\\n", "\\l") + '\\l"'
        lines.append(f'  {dot_quote(_id(info.task))} [label={label} fillcolor="{colour}" style=filled]')
    if report is not None:
        for (src, dst), n in sorted(report.bytes_between().items()):
            lines.append(f'  {dot_quote(_id(src))} -> {dot_quote(_id(dst))} [label={dot_quote(f"{_size(n)}/step")} color="#C62828" fontsize=9]')
    lines.append("}")
    return Dot("\n".join(lines) + "\n")


def _id(task):
    return f"{task[0]}_{task[1]}"
