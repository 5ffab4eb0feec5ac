"""The one stream of events a session and its runs emit, and everything else reads.

Session events (``SessionCreated``, ``OpsPlaced``, ``RunFinished``) go to every listener added
with ``add_listener`` (the notebook's per-cell capture, the command line, ``explain``). Step
events (``StepStarted``, ``StepFinished``, ``Transfer``, ``Value``) go to the subscribers of one
run: the tracer that builds ``RunMetadata.step_stats`` and the timeline, and the stepper. A run
nobody subscribes to emits no step events at all, which is what lets a steady run be fast.
"""
from dataclasses import dataclass


# -- session events -----------------------------------------------------------------------------
@dataclass(frozen=True)
class SessionCreated:
    session: object


@dataclass(frozen=True)
class OpsPlaced:
    """Ops placed for the first time (the lines of the placement log), in TF's log order."""
    session: object
    records: tuple


@dataclass(frozen=True)
class RunFinished:
    """A run that completed: its plan, its RunMetadata (None unless one was asked for) and the
    values it fed, on their devices, in the order of ``plan.feed_slots``. A modelled run
    (``sess.modelled_run``) is one too, with its ModelledRun as ``modelled``."""
    session: object
    plan: object
    run_metadata: object
    feeds: tuple = ()
    modelled: object = None


# -- step events ---------------------------------------------------------------------------------
@dataclass(frozen=True)
class StepStarted:
    step: object
    time: float


@dataclass(frozen=True)
class StepFinished:
    """An op step ran: its measured start and end (perf_counter seconds) and its values."""
    step: object
    start: float
    end: float
    inputs: tuple
    outputs: tuple


@dataclass(frozen=True)
class Transfer:
    """A transfer step ran (an alias between host-memory devices still moves ``nbytes``)."""
    step: object
    start: float
    end: float
    value: object
    nbytes: int


@dataclass(frozen=True)
class Value:
    """A fetched value, as the run hands it back."""
    tensor: object
    value: object


_listeners = []


def add_listener(fn):
    """Calls ``fn(event)`` for every session event, from every session."""
    _listeners.append(fn)


def remove_listener(fn):
    if fn in _listeners:
        _listeners.remove(fn)


def emit(event):
    for fn in list(_listeners):
        fn(event)


class Recorder:
    """``with Recorder() as rec:`` keeps the session events emitted inside the block, by session
    (what one notebook cell or one ``devlab place`` script did)."""

    def __init__(self):
        self.reports = []

    def _on_event(self, event):
        report = next((r for r in self.reports if r.session is event.session), None)
        if report is None:
            report = SessionReport(event.session)
            self.reports.append(report)
        if isinstance(event, OpsPlaced):
            report.records.extend(event.records)
        elif isinstance(event, RunFinished):
            report.plans.append(event.plan)
            report.feeds = event.feeds
            report.modelled = event.modelled
            if event.run_metadata is not None:
                report.run_metadata = event.run_metadata

    def __enter__(self):
        add_listener(self._on_event)
        return self

    def __exit__(self, *exc):
        remove_listener(self._on_event)
        return False

    @property
    def last(self):
        """The last session that ran something, or None."""
        ran = [r for r in self.reports if r.plans]
        return ran[-1] if ran else None


class SessionReport:
    """What one session did inside a Recorder: placement records, the plans it ran, the values its
    last run fed (in the order of its plan's ``feed_slots``), the last RunMetadata with step stats,
    and the ModelledRun when its last run was modelled."""

    def __init__(self, session):
        self.session = session
        self.records = []
        self.plans = []
        self.feeds = ()
        self.run_metadata = None
        self.modelled = None

    @property
    def plan(self):
        return self.plans[-1] if self.plans else None
