"""A comparison of devlab's placement with the one TensorFlow recorded, as HTML: the ops that
differ first (with devlab's reasons), then the rest folded away."""
import html


def _cell(text):
    return f"<td>{html.escape(text or '-')}</td>"


def comparison_html(comparison, everything=False):
    """HTML of a ``devlab.graphs.compare.PlacementComparison``."""
    head = html.escape(comparison.table()[0])
    rows = [r for r in comparison.rows if everything or r.status != "same"]
    colour = {"same": "#E8F5E9", "differs": "#FFEBEE", "devlab only": "#FFF8E1", "TensorFlow only": "#E3F2FD"}
    body = "".join(f"<tr style='background:{colour.get(r.status, 'white')}'>" + _cell(r.op) + _cell(r.op_type)
                   + _cell(r.devlab) + _cell(r.tensorflow) + _cell(r.status) + _cell(r.why) + "</tr>" for r in rows)
    verdict = "<b>devlab and TensorFlow agree</b> on every op both placed. " if comparison.agree else ""
    if not rows:
        return f"<p>{verdict}{head}</p>"
    return (f"<div class='devlab-placement-diff'><p>{verdict}{head}</p><table><thead><tr><th>op</th><th>type</th>"
            f"<th>devlab</th><th>TensorFlow</th><th>status</th><th>why devlab put it there</th></tr></thead>"
            f"<tbody>{body}</tbody></table></div>")


def comparison_text(comparison, everything=False):
    """The same as aligned text lines."""
    return "\n".join(comparison.table(everything))
