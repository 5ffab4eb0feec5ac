"""What ``%%placement`` shows for one session: the device mapping and the placement log, as
TF's text lines and as a table that sorts (click a header) and filters (type in the box)."""
import html
import itertools

_ids = itertools.count()


class PlacementReport:
    def __init__(self, session, records):
        self.session = session
        self.records = list(records)

    def text(self):
        return "\n".join([self.session.device_mapping] + [str(r) for r in self.records])

    def __repr__(self):
        return self.text()

    def _repr_pretty_(self, p, cycle):
        p.text(self.text())

    def _repr_html_(self):
        # The id is a per-kernel counter, not id(): the same notebook renders the same HTML.
        tid = f"devlab-placement-{next(_ids)}"
        rows = "".join(
            f"<tr><td>{html.escape(r.op_name)}</td><td>{html.escape(r.op_type)}</td>"
            f"<td>{html.escape(r.device)}</td></tr>" for r in self.records)
        mapping = html.escape(self.session.device_mapping)
        return (f"<div class='devlab-placement'><pre>{mapping}</pre>"
                f"<input placeholder='filter ops, types, devices' oninput=\"devlabFilter('{tid}', this.value)\">"
                f"<table id='{tid}'><thead><tr>"
                + "".join(f"<th style='cursor:pointer' onclick=\"devlabSort('{tid}', {i})\">{h}</th>"
                          for i, h in enumerate(("op", "type", "device")))
                + f"</tr></thead><tbody>{rows}</tbody></table>{_SCRIPT}</div>")


_SCRIPT = """<script>
window.devlabFilter = window.devlabFilter || function (id, q) {
  q = q.toLowerCase();
  document.querySelectorAll('#' + id + ' tbody tr').forEach(function (tr) {
    tr.style.display = tr.textContent.toLowerCase().indexOf(q) >= 0 ? '' : 'none'; });
};
window.devlabSort = window.devlabSort || function (id, col) {
  var body = document.querySelector('#' + id + ' tbody');
  var rows = Array.prototype.slice.call(body.rows);
  rows.sort(function (a, b) { return a.cells[col].textContent.localeCompare(b.cells[col].textContent); });
  rows.forEach(function (r) { body.appendChild(r); });
};
</script>"""
