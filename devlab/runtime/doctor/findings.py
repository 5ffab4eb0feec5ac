"""What the doctor returns: a Finding per costly pattern, a Diagnosis listing them (its repr is
the text a learner reads)."""
from dataclasses import dataclass, field


def human_bytes(n):
    for unit in ("B", "KB", "MB", "GB"):
        if n < 1024 or unit == "GB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024


@dataclass
class Finding:
    """One costly pattern: ``copies`` copies moving ``nbytes`` bytes per step (of the tensors in
    ``tensors``), removed by ``fix``. ``after`` is (copies, bytes) of the run re-placed with the fix
    applied, or None where the fix needs new ops and was not re-placed (``note`` says why)."""
    pattern: str
    what: str
    copies: int
    nbytes: int
    fix: str
    tensors: list = field(default_factory=list)
    before: tuple = None  # (copies, bytes, busiest link's bytes) of the whole run as placed
    after: tuple = None  # the same, of the whole run re-placed with the fix
    note: str = ""

    @property
    def saved_bytes(self):
        """Bytes per step the fix saves: measured when re-placed, else the copies it removes."""
        if self.after is not None and self.before is not None:
            return max(self.before[1] - self.after[1], self.before[2] - self.after[2])
        return self.nbytes

    def lines(self):
        out = [f"{self.pattern}: {self.what}",
               f"  costs {self.copies} cop{'y' if self.copies == 1 else 'ies'}, {human_bytes(self.nbytes)} per step"
               + (f" ({', '.join(self.tensors[:4])}{', ...' if len(self.tensors) > 4 else ''})" if self.tensors else ""),
               f"  fix: {self.fix}"]
        if self.after is not None:
            out.append(f"  checked: re-placed with the fix, the run makes {self.after[0]} copies, "
                       f"{human_bytes(self.after[1])} (was {self.before[0]}, {human_bytes(self.before[1])}); "
                       f"the busiest device moves {human_bytes(self.after[2])} (was {human_bytes(self.before[2])})")
        elif self.note:
            out.append(f"  not re-placed: {self.note}")
        return out


class Diagnosis(list):
    """The findings of one run, costliest first; prints as text, shows as a <pre> in a notebook."""

    def __init__(self, findings, copies, nbytes):
        super().__init__(sorted(findings, key=lambda f: -f.saved_bytes))
        self.copies, self.nbytes = copies, nbytes

    def text(self):
        head = (f"placement doctor: the last run makes {self.copies} cop{'y' if self.copies == 1 else 'ies'} "
                f"({human_bytes(self.nbytes)}) per step; ")
        if not self:
            return head + "no costly pattern found."
        lines = [head + f"{len(self)} finding{'s' if len(self) != 1 else ''}:"]
        for i, f in enumerate(self, 1):
            first, *rest = f.lines()
            lines += [f"{i}. {first}"] + [" " + r for r in rest]
        return "\n".join(lines)

    def __repr__(self):
        return self.text()

    __str__ = __repr__

    def _repr_html_(self):
        import html
        return f"<pre style='white-space:pre-wrap'>{html.escape(self.text())}</pre>"
