"""What ``%%placement`` shows for one session after the cell's own output: a one-line summary (ops,
devices, copies, bytes) and the placement table, folded, that sorts (click a header) and filters
(type in the box). The placement log itself is printed once, as TensorFlow's lines, from the
session's events (``log_text``); when it is long only its head is printed and this table holds
all of it.
"""
import html
import itertools

from .colours import device_colour, short_device, swatch
from .copies import copies, copies_html, total_bytes
from .sizes import bytes_label

_ids = itertools.count()
LOG_HEAD = 12  # placement lines printed when a log is long
LOG_LIMIT = 20  # a log up to this many lines is printed whole


class PlacementReport:
    def __init__(self, session, records, plans=(), run_metadata=None):
        self.session = session
        self.run_metadata = run_metadata  # a traced run's: the copies table's bytes are the ones it moved
        self.records = list(records)
        self.plans = list({id(p): p for p in plans}.values())  # each different run once

    def counts(self):
        """{short device name: ops placed there}, in the session's device order."""
        order = {d.name: i for i, d in enumerate(self.session.devices)}
        out = {}
        for r in sorted(self.records, key=lambda r: order.get(r.device, len(order))):
            out[r.device] = out.get(r.device, 0) + 1
        return out

    def transfers(self):
        seen = {}
        for plan in self.plans:
            for s in plan.transfers:
                seen.setdefault((s.tensor, s.device.name), s)
        return list(seen.values())

    def summary(self):
        counts = self.counts()
        rows = copies(self.plans, self.run_metadata)
        nbytes = total_bytes(rows)
        where = ", ".join(f"{short_device(d)} {n}" for d, n in counts.items())
        runs = len(self.plans)
        return (f"devlab: {len(self.records)} ops placed on {len(counts)} device{'s' if len(counts) != 1 else ''} "
                f"({where}); {len(rows)} cop{'ies' if len(rows) != 1 else 'y'} between devices "
                f"({bytes_label(nbytes, sum(c.nbytes is None for c in rows))}) " + ("in 1 run" if runs == 1 else f"across {runs} different runs"))

    def text(self):
        return self.summary()

    def __repr__(self):
        return self.text()

    def _repr_pretty_(self, p, cycle):
        p.text(self.text())

    def _repr_html_(self):
        # The id is a per-kernel counter, not id(): the same notebook renders the same HTML.
        tid = f"devlab-placement-{next(_ids)}"
        counts = "".join(f"<span style='margin-right:1em'>{swatch(d)}{html.escape(short_device(d))}: {n}</span>"
                         for d, n in self.counts().items())
        # The device column comes first and the table scrolls in a box of its own, so a long op name
        # never pushes the device off-screen and the header stays at the top of a 1,000-op table.
        rows = "".join(
            f"<tr><td style='color:{device_colour(r.device)};white-space:nowrap'>{html.escape(short_device(r.device))}"
            f"</td><td>{html.escape(r.op_type)}</td><td>{html.escape(r.op_name)}</td></tr>" for r in self.records)
        mapping = html.escape(self.session.device_mapping)
        return (f"<div class='devlab-placement'><div><b>{html.escape(self.summary())}</b></div>"
                f"<details><summary>placement table ({len(self.records)} ops) and device mapping: "
                f"{counts}</summary><pre style='white-space:pre;overflow-x:auto'>{mapping}</pre>"
                f"<input placeholder='filter ops, types, devices' oninput=\"devlabFilter('{tid}', this.value)\">"
                f"<div style='max-height:24em;overflow:auto'><table id='{tid}' style='text-align:left'><thead><tr>"
                + "".join(f"<th style='cursor:pointer;text-align:left' onclick=\"devlabSortBy('{tid}', {i})\">{h}</th>"
                          for i, h in enumerate(("device", "type", "op")))
                + f"</tr></thead><tbody>{rows}</tbody></table></div></details>"
                + copies_html(copies(self.plans, self.run_metadata)) + f"{_SCRIPT}</div>")


def report_text(report, copies_limit=20, lines=True):
    """What ``devlab place`` prints for one session (a ``runtime.events.SessionReport``): its device
    mapping, the summary line, the copies table (largest first, ``copies_limit`` rows; None: all)
    and then the raw placement log, as TensorFlow prints it."""
    from .copies import copies_text
    out = [report.session.device_mapping]
    if report.records:
        placed = PlacementReport(report.session, report.records, report.plans, report.run_metadata)
        out.append(placed.summary())
        if report.plans:
            out.append(copies_text(copies(report.plans, report.run_metadata, lines=lines), limit=copies_limit))
        out.append(f"placement log ({len(report.records)} lines):")
        out += [str(r) for r in report.records]
    return "\n".join(out)


def log_text(records, head=LOG_HEAD, limit=LOG_LIMIT):
    """The placement log lines of ``records``; more than ``limit`` (None: no limit) are cut to the
    first ``head``, with a line saying where the rest is."""
    lines = [str(r) for r in records]
    if limit is None or len(lines) <= limit:
        return "\n".join(lines)
    return "\n".join(lines[:head] + [f"... {len(lines) - head} more placement lines: open the placement table "
                                      f"below, or print(sess.placement_log)"])


_SCRIPT = """<style>.devlab-placement table td, .devlab-placement table th { text-align: left; }</style>
<script>
window.devlabFilter = window.devlabFilter || function (id, q) {
  q = q.toLowerCase();
  document.querySelectorAll('#' + id + ' tbody tr').forEach(function (tr) {
    tr.style.display = tr.textContent.toLowerCase().indexOf(q) >= 0 ? '' : 'none'; });
};
window.devlabSortBy = window.devlabSortBy || function (id, col) {
  var body = document.querySelector('#' + id + ' tbody');
  var rows = Array.prototype.slice.call(body.rows);
  var th = document.querySelector('#' + id + ' thead').rows[0].cells[col];
  var dir = th.dataset.dir === 'up' ? -1 : 1;  // a second click sorts the other way
  th.dataset.dir = dir === 1 ? 'up' : 'down';
  rows.sort(function (a, b) {
    var x = a.cells[col], y = b.cells[col];
    if (x.dataset.sort !== undefined) { return dir * (Number(x.dataset.sort) - Number(y.dataset.sort)); }
    return dir * x.textContent.localeCompare(y.textContent); });
  rows.forEach(function (r) { body.appendChild(r); });
};
</script>"""
