"""A session's plans, one per (fetches, feeds), and beside each what its runs make of it.

A ``Plan`` never changes once compiled: several runs, and threads, read it at once. What does
change as it is used lives in its cache entry: how often it ran, and the compiled program
(``program.py``; ``flow_program.py`` for a plan with control flow) a steady run gets once the plan runs a second time.
"""
from . import flow_program
from . import program as program_mod


class CachedPlan:
    """A plan and its executable: ``program()`` builds the compiled program on the second run."""

    __slots__ = ("plan", "runs", "_program", "_threads")

    def __init__(self, plan, threads=1):
        self.plan, self.runs, self._program, self._threads = plan, 0, None, threads

    def program(self):
        """The plan's compiled program once it ran before (None: it is interpreted)."""
        if self.runs == 0:
            return None
        if self._program is None:
            if self.plan.has_control_flow:
                self._program = flow_program.build(self.plan) or False
            else:
                self._program = program_mod.build(self.plan, self._threads) or False
        return self._program or None

    @property
    def built(self):
        """The compiled program if one was built (without building it)."""
        return self._program or None


class PlanCache:
    def __init__(self, threads=1):
        self._by_key, self._by_plan = {}, {}
        self.threads = threads  # the session's inter-op threads: its programs' lanes (``lanes.py``)

    def get(self, key, compile_plan):
        """The plan cached under ``key``, compiled by ``compile_plan()`` the first time."""
        entry = self._by_key.get(key)
        if entry is None:
            entry = self._by_key[key] = CachedPlan(compile_plan(), self.threads)
            self._by_plan[entry.plan] = entry
        return entry.plan

    def entry(self, plan):
        """The cache entry of ``plan`` (None for a plan this cache did not compile)."""
        return self._by_plan.get(plan)

    def clear(self):
        self._by_key.clear()
        self._by_plan.clear()
