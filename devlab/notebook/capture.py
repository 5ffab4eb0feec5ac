"""Collecting what the sessions of one cell did: their device mappings, placement records and
the plan and step stats of their last run."""
from dataclasses import dataclass, field

from ..runtime.session import add_listener, remove_listener


@dataclass
class SessionReport:
    session: object
    records: list = field(default_factory=list)
    plan: object = None
    run_metadata: object = None


class Capture:
    """``with Capture() as cap:`` records every session created or run inside the block."""

    def __init__(self):
        self.reports = []

    def _on_event(self, event, session, **info):
        report = next((r for r in self.reports if r.session is session), None)
        if report is None:
            report = SessionReport(session)
            self.reports.append(report)
        if event == "placed":
            report.records.extend(info["records"])
        elif event == "ran":
            report.plan = info["plan"]
            if info.get("run_metadata") is not None:
                report.run_metadata = info["run_metadata"]

    def __enter__(self):
        add_listener(self._on_event)
        return self

    def __exit__(self, *exc):
        remove_listener(self._on_event)
        return False

    @property
    def last(self):
        """The last session that ran something, or None."""
        ran = [r for r in self.reports if r.plan is not None]
        return ran[-1] if ran else None
