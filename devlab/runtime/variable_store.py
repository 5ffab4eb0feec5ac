"""Variable values of one session, with writes staged until a run succeeds.

A run writes into ``pending``; ``commit`` makes the writes visible, ``discard`` forgets them.
So a run that fails half-way leaves every variable as it was before the run.
"""
from ..framework import errors


class VariableStore:
    def __init__(self):
        self.values = {}  # variable op name -> array on its device
        self.pending = {}

    def ref(self, name, device):
        return VarRef(self, name, device)

    def commit(self):
        self.values.update(self.pending)
        self.pending.clear()

    def discard(self):
        self.pending.clear()

    def snapshot(self):
        return dict(self.values)

    def restore(self, snapshot):
        self.values = dict(snapshot)
        self.pending.clear()


class VarRef:
    """The output of a VariableV2 op: a handle that reads and writes the session's value."""

    __slots__ = ("store", "name", "device")

    def __init__(self, store, name, device):
        self.store, self.name, self.device = store, name, device

    def is_initialized(self):
        return self.name in self.store.pending or self.name in self.store.values

    def read(self):
        store = self.store
        if self.name in store.pending:
            return store.pending[self.name]
        if self.name in store.values:
            return store.values[self.name]
        raise errors.FailedPreconditionError(None, None, f"Attempting to use uninitialized value {self.name}")

    def assign(self, value):
        self.store.pending[self.name] = value
