"""The copies table: every tensor a run moves between devices (TF's ``_Send``/``_Recv`` pairs),
with where it goes, how many bytes, the op that made it and the user's line that built that op.

Read from public run results only: the plans' transfer steps (what the run copies, one per tensor
and destination) and, when the run was traced, its ``RunMetadata.step_stats`` (the bytes each
``_Recv`` really moved). An untraced run's bytes come from the tensor's static shape, or are
unknown (None) when the shape is not fully known. The same rows make the notebook's sortable
table (``copies_html``) and ``devlab place``'s text (``copies_text``).
"""
import html
import itertools
from dataclasses import dataclass

from .. import config
from .colours import device_colour, short_device
from .sizes import human_bytes, tensor_bytes

_ids = itertools.count()
TEXT_LIMIT = 40  # rows ``copies_text`` prints before saying how many more there are


@dataclass(frozen=True)
class Copy:
    """One cross-device tensor of a run."""
    tensor: str
    source: str  # full device names
    destination: str
    nbytes: object  # int, or None when neither a trace nor the static shape says
    op_name: str  # the producing op
    op_type: str
    where: str  # the user's line that built the producing op ("cell 3, line 2" in a notebook)


def _where(op):
    tb = getattr(op, "traceback", None)
    if not tb or not tb[0]:
        return ""
    return config.source_location(*tb)


def _traced_bytes(step_stats):
    """{(tensor name, destination device): bytes moved} from a traced run's ``_Recv`` nodes."""
    out = {}
    for dev in getattr(step_stats, "dev_stats", ()) or ():
        for node in dev.node_stats:
            if node.op == "_Recv" and node.tensor:
                out[(node.tensor, dev.device)] = max(node.bytes, out.get((node.tensor, dev.device), 0))
    return out


def copies(plans, run_metadata=None, lines=True):
    """The copies of ``plans`` (one run's plan, or several: each tensor and destination once),
    in plan order; bytes from ``run_metadata``'s step stats where the run was traced. ``lines``
    False: no user's line (a graph loaded from a file was made by no line of the user's)."""
    if not isinstance(plans, (list, tuple)):
        plans = [plans]
    traced = _traced_bytes(getattr(run_metadata, "step_stats", None))
    seen = {}
    for plan in plans:
        for step in plan.transfers:
            key = (step.tensor.name, step.device.name)
            if key in seen:
                continue
            nbytes = traced.get(key)
            if nbytes is None:
                nbytes = tensor_bytes(step.tensor)
            op = step.tensor.op
            seen[key] = Copy(step.tensor.name, step.src.name, step.device.name, nbytes, op.name, op.type, _where(op) if lines else "")
    return list(seen.values())


def total_bytes(rows):
    """Bytes of all copies whose size is known."""
    return sum(c.nbytes for c in rows if c.nbytes is not None)


def _size(n):
    return "?" if n is None else human_bytes(n)


def by_route(rows):
    """{(source, destination): [copies]}, in order of first appearance: the device view's arrows."""
    out = {}
    for c in rows:
        out.setdefault((c.source, c.destination), []).append(c)
    return out


def copies_text(rows, limit=TEXT_LIMIT):
    """The table as aligned text, largest copies first (``devlab place``); None limit: every row."""
    if not rows:
        return "devlab: no copies between devices"
    ordered = sorted(rows, key=lambda c: (-(c.nbytes or 0), c.tensor))
    shown = ordered if limit is None else ordered[:limit]
    header = ("tensor", "from", "to", "bytes", "op", "line")
    table = [header] + [(c.tensor, short_device(c.source), short_device(c.destination), _size(c.nbytes),
                         f"{c.op_name} ({c.op_type})", c.where) for c in shown]
    widths = [max(len(r[i]) for r in table) for i in range(len(header) - 1)]
    lines = [f"devlab: {len(rows)} cop{'ies' if len(rows) != 1 else 'y'} between devices "
             f"({human_bytes(total_bytes(rows))} per run), largest first:"]
    for r in table:
        lines.append("  " + "  ".join(r[i].ljust(widths[i]) if i != 3 else r[i].rjust(widths[i])
                                      for i in range(len(header) - 1)) + "  " + r[-1])
    if len(ordered) > len(shown):
        lines.append(f"  ... {len(ordered) - len(shown)} more copies")
    return "\n".join(line.rstrip() for line in lines)


def copies_html(rows, open_=False):
    """The table as folded HTML that sorts (click a header; bytes sort as numbers) and filters. The
    device columns come first, so they stay in view however long the tensor names are."""
    tid = f"devlab-copies-{next(_ids)}"
    body = "".join(
        f"<tr data-bytes='{-1 if c.nbytes is None else c.nbytes}'>"
        f"<td style='color:{device_colour(c.source)}'>{html.escape(short_device(c.source))}</td>"
        f"<td style='color:{device_colour(c.destination)}'>{html.escape(short_device(c.destination))}</td>"
        f"<td style='text-align:right' data-sort='{-1 if c.nbytes is None else c.nbytes}'>{_size(c.nbytes)}</td>"
        f"<td>{html.escape(c.tensor)}</td><td>{html.escape(c.op_type)}</td><td>{html.escape(c.where)}</td></tr>"
        for c in rows)
    heads = "".join(f"<th style='cursor:pointer;text-align:left' onclick=\"devlabSortBy('{tid}', {i})\">{h}</th>"
                    for i, h in enumerate(("from", "to", "bytes", "tensor", "producing op", "line")))
    return (f"<details class='devlab-copies'{' open' if open_ else ''}><summary>copies table ({len(rows)} "
            f"cop{'ies' if len(rows) != 1 else 'y'}, {human_bytes(total_bytes(rows))} per run)</summary>"
            f"<input placeholder='filter tensors, devices, lines' oninput=\"devlabFilter('{tid}', this.value)\">"
            f"<div style='max-height:24em;overflow:auto'><table id='{tid}' style='table-layout:auto'>"
            f"<thead><tr>{heads}</tr></thead><tbody>{body}</tbody></table></div></details>")
