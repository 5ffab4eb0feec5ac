"""``explain(op)``: why an op is on its device, as a chain of reasons with source lines.

The placer records only a compact Decision per op (its group and the rule that chose); the
sentences are written here, when a learner asks.
"""
from .. import config
from .placer import Reason, colocation_partners


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
               f"  created at {config.source_location(filename, lineno)}"]
        groups = [g.decode() for g in self.op.colocation_groups()] if "_class" in self.op.attrs else []
        if groups:
            out.append(f"  colocation group{'s' if len(groups) > 1 else ''}: {', '.join(groups)}")
        for i, r in enumerate(self.reasons, 1):
            out.append(f"  {i}. {r.text}" + (f"  [{r.location}]" if r.location else ""))
        return out

    def __str__(self):
        return "\n".join(self.lines())

    def __repr__(self):
        return str(self)

    def _repr_pretty_(self, p, cycle):
        p.text(str(self))


def reasons(op, placement):
    """The reasons, in order, that put ``op`` on its device under ``placement``."""
    decision = placement.decisions[op.name]
    group, device = decision.group, placement.device_of(op)
    by_name = {m.name: m for m in group.members}
    out = [Reason(why) for _, why in colocation_partners(op, by_name)]
    if decision.rule == "group":
        others = [m.name for m in sorted(group.members, key=lambda m: -1 if m.id is None else m.id) if m is not op]
        if others:
            shown = ", ".join(f"'{n}'" for n in others[:4])
            shown += f" and {len(others) - 4} more" if len(others) > 4 else ""
            out.append(Reason(f"it shares a device with {shown}: that group was already placed on {device.short_name}"))
        return out
    for loc in op.device_code_locations:
        if loc.obj != "None":
            out.append(Reason(f"device scope tf.device({loc.obj}) active when it was created", _where(loc)))
    for name, loc in op.colocation_code_locations.items():
        out.append(Reason(f"created inside colocate_with('{name}')", _where(loc)))
    request = group.request
    if request.to_string():
        out.append(Reason(f"requested device {request.to_string()}"
                          + (" (merged over its colocation group)" if len(group.members) > 1 else "")))
    chooser = decision.detail if decision.rule in ("generator", "metadata") else decision
    if chooser is not None and chooser.rule == "soft":
        out.append(Reason(chooser.detail))
    if not request.device_type:
        out.append(Reason(f"no device type requested: kernels exist for {' and '.join(group.types)}; "
                          f"TF picks the highest priority (GPU before CPU), lowest index"))
    if decision.rule == "generator":
        out.append(Reason(f"a generator (no inputs, one output): placed with its consumers on {device.short_name}"))
    elif decision.rule == "metadata":
        out.append(Reason(f"a {op.type} op: placed with its input '{op.inputs[0].op.name}' on {device.short_name}"))
    return out


def _where(loc):
    return config.source_location(loc.filename, loc.lineno)


def explain(op, placement):
    """The Explanation of ``op`` under ``placement``."""
    return Explanation(op, placement.device_of(op), reasons(op, placement), placement.groups.get(op.name))
