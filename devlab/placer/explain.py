"""``explain(op)``: why an op is on its device, as a chain of reasons with source lines."""


class Explanation:
    """The placement of one op and the reasons for it, as text lines (``views.html`` has its HTML)."""

    def __init__(self, op, device, reasons, group):
        self.op = op
        self.device = device
        self.reasons = list(reasons)
        self.group = group

    @property
    def requested(self):
        return self.op.device

    def lines(self):
        filename, lineno = self.op.traceback
        out = [f"{self.op.name} ({self.op.type}) -> {self.device.name}",
               f"  requested device: {self.op.device or '(none)'}",
               f"  created at {filename}:{lineno}"]
        if self.group and self.group != self.op.name:
            out.append(f"  colocation group: loc:@{self.group}")
        for i, r in enumerate(self.reasons, 1):
            out.append(f"  {i}. {r.text}" + (f"  [{r.location}]" if r.location else ""))
        return out

    def __str__(self):
        return "\n".join(self.lines())

    def __repr__(self):
        return str(self)

    def _repr_pretty_(self, p, cycle):
        p.text(str(self))


def explain(op, placement):
    """The Explanation of ``op`` under ``placement``."""
    return Explanation(op, placement.device_of(op), placement.reasons.get(op.name, []),
                       placement.groups.get(op.name))
