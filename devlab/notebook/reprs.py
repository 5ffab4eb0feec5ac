"""Rich reprs for the core objects, registered with IPython when the extension loads (so the
lower layers carry no HTML): Graph, Operation and Session render as small HTML tables, with
deterministic text beside them (no addresses, no timings)."""
import html


def graph_html(graph):
    rows = "".join(f"<tr><td>{html.escape(op.name)}</td><td>{html.escape(op.type)}</td>"
                   f"<td>{html.escape(op.device or '')}</td></tr>" for op in graph.get_operations()[:200])
    more = f"<p>... and {graph.version - 200} more ops</p>" if graph.version > 200 else ""
    return (f"<b>Graph</b> with {graph.version} ops<table><tr><th>op</th><th>type</th>"
            f"<th>requested device</th></tr>{rows}</table>{more}")


def operation_html(op):
    groups = ", ".join(g.decode() for g in op.colocation_groups())
    return (f"<b>{html.escape(op.name)}</b> ({html.escape(op.type)}) requested device "
            f"<code>{html.escape(op.device or '(none)')}</code>, colocation <code>{html.escape(groups)}</code>")


def session_html(sess):
    rows = "".join(f"<tr><td>{html.escape(d.name)}</td><td>{'simulated ' if d.simulated else ''}{d.backend}</td></tr>"
                   for d in sess.devices)
    return f"<b>Session</b><table><tr><th>device</th><th>backed by</th></tr>{rows}</table>"


def register_reprs(ipython):
    from ..framework.graph import Graph
    from ..framework.operation import Operation
    from ..runtime.session import Session
    formatter = ipython.display_formatter.formatters["text/html"]
    formatter.for_type(Graph, graph_html)
    formatter.for_type(Operation, operation_html)
    formatter.for_type(Session, session_html)
