"""HTML for the core objects (Graph, Operation, Session, an op's placement explanation): small
tables and lists, deterministic (no addresses, no timings). The notebook layer registers them
with IPython; the lower layers carry no HTML."""
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




def explanation_html(explanation):
    head, *rest = explanation.lines()
    items = "".join(f"<li>{html.escape(line.strip())}</li>" for line in rest)
    return f"<div class='devlab-explain'><b>{html.escape(head)}</b><ul>{items}</ul></div>"
