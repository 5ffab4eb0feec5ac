"""The variable values of one session, and the rules by which runs change them.

Committed values live in one dict that a commit *replaces* and never mutates, so a run reads a
consistent snapshot (its ``base``) however many other runs commit meanwhile. A run keeps its
writes to itself (``Run.writes``) and commits them only when every step and every fetch
succeeded; a run holds the lock of each variable it writes (``locked``) from start to commit, so
read-modify-writes of one variable are serialised as TF's ``use_locking`` serialises them, while
runs that write other variables go on: a run that waits in a queue's dequeue never stops the run
that would fill the queue, unless both write the same variable.

Optimizer kernels update variables "in place" without breaking that: they write into a *spare*
buffer and the run commits it. The value it replaced becomes the variable's next spare, but
only if the store made that buffer itself (never a constant's or a feed's array that an Assign
stored), no variable holds it any more, no other run is open (a stepper, another thread)
that could still be reading it, and nothing else refers to it (a stepper's checkpoint). A steady
training loop therefore allocates nothing for its variables.

A sparse write (``ScatterSub``, ``SparseApply*``: SGD on an embedding) changes a few rows of a
large variable, yet its buffer must first hold the whole current value. The store remembers in
which rows a spare is out of date (the rows the write that replaced it changed), so the next
sparse write copies just those rows into it, not the whole variable (``copy_for_rows``).

Better still, a sparse write goes into the variable's array itself when nothing but the store can
see that array (``rows_in_place``): no other run is open, and no value, view, fetch or checkpoint
holds a reference to it (Python's reference count says so, as TF's copy-on-write asks
``RefCountIsOne``). The run keeps the old values of the rows it is about to write (its undo log)
and puts them back if it fails, so a failed run still leaves every variable as it was; a run that
opens meanwhile reads the variable as it was committed, rebuilt from the log (``open_run``).
"""
import sys
import threading

import numpy as np

from ..framework import dtypes, errors


class VariableStore:
    def __init__(self):
        self.values = {}  # variable name -> committed array (the dict is replaced on commit)
        self._locks = {}  # variable name -> the RLock its writers hold from a run's start to its commit
        self._locks_of = {}  # names (a plan's written variables) -> their locks, in name order
        self._lock = threading.Lock()  # guards the swap of ``values``, the open count and the spares
        self._open = 0
        self._holders = {}  # id of a buffer the store made -> how many variables hold it
        self._spares = {}  # variable name -> a buffer nobody reads: the next in-place write goes there
        self._stale = {}  # name -> (value, rows): its spare equals that committed value but in these rows
        self._pending = {}  # name -> (buffer, value, rows): a run's sparse write, rows of a copy of value
        self._dirty = {}  # name -> undo entries (name, array, rows, old rows) of an open run's in-place writes
        self.resources = set()  # the resource variables ever written (TF's "localhost" container exists)

    def lock_of(self, name):
        """The write lock of one variable."""
        with self._lock:
            lock = self._locks.get(name)
            if lock is None:
                lock = self._locks[name] = threading.RLock()
            return lock

    def locked(self, names):
        """Holds the write locks of the variables ``names`` for a block (in name order, so two runs
        never wait for each other's locks)."""
        names = tuple(names)  # a plan's are a tuple already; any other iterable is keyed as one too
        locks = self._locks_of.get(names)
        if locks is None:  # a run's plan asks with the same names each time: look them up once
            locks = self._locks_of[names] = [self.lock_of(n) for n in sorted(set(names))]
        return hold(locks)

    def open_run(self):
        """Registers a run; returns the committed values it will read. While another run has
        written rows of a variable in place, this one reads a copy with those rows put back."""
        with self._lock:
            self._open += 1
            if not self._dirty:
                return self.values
            values = dict(self.values)
            for name, entries in self._dirty.items():
                old = entries[0][1].copy()
                _undo(old, entries)
                values[name] = old
            return values

    def close_run(self, writes=None, made=(), undo=()):
        """Ends a run, committing ``writes`` ({name: array}) if given (None: the run failed).
        ``made`` holds the ids of the buffers the run got from ``new_buffer``; ``undo`` the run's
        log of in-place writes (``rows_in_place``), undone if the run failed."""
        with self._lock:
            self._open -= 1
            if undo:
                if writes is None:
                    _undo(None, undo)
                for name, *_ in undo:
                    self._dirty.pop(name, None)
            if writes:
                self._commit(writes, made)
            else:
                self._pending.clear()  # a failed run's buffers: forget them (a later copy is whole)

    def assign(self, values):
        """Sets committed values directly ({name: array}: ``Variable.load``, ``Saver.restore``)."""
        with self._lock:
            self._commit(values, ())

    def _commit(self, writes, made):
        old = self.values
        self.values = {**old, **writes}
        holders = self._holders
        for new in writes.values():
            if id(new) in made or id(new) in holders:
                holders[id(new)] = holders.get(id(new), 0) + 1
        for name, new in writes.items():
            pending = self._pending.pop(name, None)
            self._stale.pop(name, None)
            prev = old.get(name)  # ``new`` itself after an in-place write: counted once up, once down
            if prev is None or id(prev) not in holders:
                continue
            holders[id(prev)] -= 1
            if holders[id(prev)] == 0:
                del holders[id(prev)]
                # no open run can still read it, nor anything else (a stepper's checkpoint): beyond
                # ``prev`` (and ``pending``) here, only the old dict refers to it
                held_here = 1 + (pending is not None and pending[1] is prev)
                if not self._open and _same_layout(prev, new) and \
                        _references(old, name) - _CALL_REFERENCES - held_here == 1:
                    self._spares[name] = prev
                    if pending is not None and pending[0] is new and pending[1] is prev:
                        self._stale[name] = (new, pending[2])  # prev is new but in the rows written

    def new_buffer(self, name, like, xp):
        """A buffer laid out like ``like`` that nobody reads: the variable's spare, or a new one."""
        with self._lock:
            spare = self._spares.pop(name, None)
            self._stale.pop(name, None)
        if spare is not None and _same_layout(spare, like):
            return spare
        return xp.empty_like(like)

    def copy_for_rows(self, name, value, xp, rows):
        """A buffer nobody reads holding a copy of ``value`` (the variable's current value), for a
        write that will change only ``rows`` (indices along the first axis). When the spare is
        known to equal ``value`` but in some rows, only those rows are copied."""
        with self._lock:
            spare = self._spares.pop(name, None)
            stale = self._stale.pop(name, None)
        if spare is None or not _same_layout(spare, value):
            buffer = xp.empty_like(value)
            xp.copyto(buffer, value)
        elif stale is not None and stale[0] is value:
            buffer = spare
            buffer[stale[1]] = value.take(stale[1], axis=0)  # ``take`` gathers rows faster than value[rows]
        else:
            buffer = spare
            xp.copyto(buffer, value)
        with self._lock:
            self._pending[name] = (buffer, value, rows)
        return buffer

    def rows_in_place(self, run, name, rows):
        """The array of variable ``name`` itself, for ``run`` to write ``rows`` (indices along the
        first axis) of it in place, their old values kept in the run's undo log; None when
        another could see the write: another run is open, ``run`` is watched or runs lanes side
        by side, or something beyond the store's and the run's dicts refers to the array (a
        value or view read earlier, a constant or feed that an Assign stored, a checkpoint)."""
        if not run.in_place:
            return None
        with self._lock:
            if self._open != 1:
                return None
            writes, base, values = run.writes, run.base, self.values
            holder = writes if name in writes else base
            value = holder.get(name)
            if type(value) is not np.ndarray or not value.flags.writeable:
                return None
            known = (values.get(name) is value) + (base is not values and base.get(name) is value) + \
                (writes.get(name) is value)  # the dicts that hold it, and this run's undo entries:
            known += sum(1 for entry in self._dirty.get(name, ()) if entry[1] is value)
            if _references(holder, name) - _CALL_REFERENCES - 1 != known:  # 1: ``value`` here
                return None
            entry = (name, value, rows, value.take(rows, axis=0))  # ``take``: a copy of the rows
            run.undo.append(entry)
            self._dirty.setdefault(name, []).append(entry)
            self._spares.pop(name, None)  # its spare's stale rows are no longer known
            self._stale.pop(name, None)
            return value

    def is_initialized(self, name):
        return name in self.values


def _undo(target, entries):
    """Puts back the old rows of ``entries`` (latest first), into ``target`` or, when None, into
    the arrays written."""
    for _, array, rows, old in reversed(entries):
        (array if target is None else target)[rows] = old


def _references(mapping, name):
    """How many references the value ``mapping[name]`` has, counting the mapping's and this call's."""
    value = mapping[name]
    return sys.getrefcount(value)


# The references ``_references`` itself adds (its local and its argument, whatever Python counts):
# measured once on an array that only a dict holds.
_CALL_REFERENCES = _references({"a": np.empty(1)}, "a") - 1


class hold:  # noqa: N801 - used as a ``with`` block
    """Acquires ``locks`` in the order given; releases them (in reverse) at the end of the block.
    A class, not an ExitStack: every training step takes its variables' locks."""

    __slots__ = ("locks", "held")

    def __init__(self, locks):
        self.locks, self.held = tuple(locks), 0

    def __enter__(self):
        try:
            for lock in self.locks:
                lock.acquire()
                self.held += 1
        except BaseException:
            self.__exit__()
            raise

    def __exit__(self, *exc):
        while self.held:
            self.held -= 1
            self.locks[self.held].release()
        return False


def _same_layout(a, b):
    return type(a) is type(b) and getattr(a, "shape", None) == getattr(b, "shape", None) and \
        getattr(a, "dtype", None) == getattr(b, "dtype", None)


class VarRef:
    """The output of a VariableV2 op inside one run: reads and writes go through that run.

    ``shape`` is the variable's declared shape (None when it was made with validate_shape=False):
    a write of another shape is TF's InvalidArgumentError, unless the writing op allows it.
    """

    __slots__ = ("run", "name", "shape", "xp")

    def __init__(self, run, name, shape, xp):
        self.run, self.name, self.shape, self.xp = run, name, shape, xp

    def is_initialized(self):
        return self.name in self.run.writes or self.name in self.run.base

    def read(self):
        run = self.run
        value = run.writes.get(self.name)
        if value is None:
            value = run.base.get(self.name)
            if value is None:
                raise errors.FailedPreconditionError(
                    None, None, f"Attempting to use uninitialized value {self.name}")
        return value

    def assign(self, value, validate_shape=True):
        """Stages ``value`` as the variable's new value in this run. Its shape must be the declared
        one (unless the op allows otherwise) and its dtype the variable's current dtype: a write
        never changes what a variable is."""
        if validate_shape and self.shape is not None and tuple(value.shape) != self.shape:
            raise WriteError(self.name, self.shape, value.shape)
        run = self.run
        current = run.writes.get(self.name)
        if current is None:
            current = run.base.get(self.name)
        if current is not None and getattr(current, "dtype", None) != getattr(value, "dtype", None):
            raise errors.InvalidArgumentError(
                None, None, f"Trying to assign variable with wrong dtype. Expected "
                f"{_dtype_name(current)} got {_dtype_name(value)}")
        run.writes[self.name] = value

    def new_buffer(self):
        """An array laid out like the current value, which no one else reads, to write into."""
        buffer = self.run.store.new_buffer(self.name, self.read(), self.xp)
        self.run.made.add(id(buffer))
        return buffer

    def copy_for_rows(self, rows):
        """A buffer no one else reads holding the current value, for a write that changes only
        ``rows`` of it: the variable's array itself where the store allows (``rows_in_place``),
        else a copy (the store copies as little as it can)."""
        run = self.run
        in_place = getattr(run.store, "rows_in_place", None)
        if in_place is not None:
            found = in_place(run, self.name, rows)
            if found is not None:
                return found
        value = self.read()
        if self.name in run.writes:  # a second write in this run: the store knows nothing of it
            buffer = self.xp.empty_like(value)
            self.xp.copyto(buffer, value)
        else:
            buffer = run.store.copy_for_rows(self.name, value, self.xp, rows)
        run.made.add(id(buffer))
        return buffer

    def __repr__(self):
        return f"<ref to variable {self.name!r}>"


class ResourceRef(VarRef):
    """The value of a VarHandleOp inside one run: a resource variable's handle. It reads and
    writes the store as a ``VarRef`` does, with TF's words for a variable that does not exist
    yet (a resource variable is created by its first write), and without a declared shape
    (``AssignVariableOp`` may change it, as TF's may)."""

    __slots__ = ()

    def read(self):
        run = self.run
        value = run.writes.get(self.name)
        if value is None:
            value = run.base.get(self.name)
            if value is None:
                if not run.store.resources:  # TF makes the container with its first resource variable
                    raise errors.NotFoundError(None, None, "Container localhost does not exist. (Could not find "
                                                           f"resource: localhost/{self.name})")
                raise errors.NotFoundError(
                    None, None, f"Resource localhost/{self.name}/N10tensorflow3VarE does not exist.")
        return value

    def assign(self, value, validate_shape=False):
        self.run.store.resources.add(self.name)
        super().assign(value, validate_shape)

    def __repr__(self):
        return f"<handle of resource variable {self.name!r}>"


class WriteError(Exception):
    """A write whose shape differs from the variable's; the executor names the op in TF's words."""

    def __init__(self, name, declared, got):
        super().__init__(name)
        self.name, self.declared, self.got = name, tuple(declared), tuple(got)


def _dtype_name(array):
    """TF's name for an array's dtype (``float``, ``double``, ``int32``...)."""
    try:
        return dtypes.as_dtype(array.dtype).tf_type_name
    except (TypeError, ValueError, AttributeError):
        return str(getattr(array, "dtype", type(array).__name__))
