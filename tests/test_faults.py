"""Faults never corrupt state: a property test over random programs.

Hypothesis builds small random graphs: variables of random shapes and dtypes on random devices
(some that do not exist, so soft placement moves them), writes to them (``assign_add``,
``assign_sub``, a gradient-descent update, a ``scatter_add`` or ``scatter_sub`` of some rows, which
after a first run goes into the variable's array itself) whose deltas are constants or feeds computed on random
devices and under ``colocate_with`` another variable, and one faulty op. The fault is injected
at a random point of a run: it waits (through control edges, made in a ``control_dependencies``
block or added afterwards with ``_add_control_input``) for a random subset of the writes. The
faults: a kernel that fails on its input (a MatMul fed a non-square matrix), an uninitialized
variable read, a write of the wrong shape, a feed of the wrong shape, a failure while fetching
(after every step succeeded), and a stepper abandoned half-way.

Every program first runs cleanly 0-2 times (so the faulty run may be the plan's compiled
program rather than the interpreter), then once with the fault. Afterwards every variable must be
exactly (bytes and dtype) what it was before the faulty run, and the next run must work and
give exactly what a numpy model of the writes says. Writes are additive, so the model does not
depend on the order in which independent writes run.
"""
import time
from unittest import mock

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import devlab as tf
from devlab.runtime.run import Run

DEVICES = ["", "/cpu:0", "/cpu:1", "/gpu:0", "/gpu:1", "/gpu:7"]
SHAPES = [(), (2,), (2, 3)]
DTYPES = [np.float32, np.float64, np.int32]
FAULTS = ["kernel", "uninitialized", "bad_write", "bad_feed", "fetch", "stepper"]
ERRORS = {"kernel": tf.errors.InvalidArgumentError, "uninitialized": tf.errors.FailedPreconditionError,
          "bad_write": tf.errors.InvalidArgumentError, "bad_feed": ValueError, "fetch": RuntimeError}


@st.composite
def programs(draw):
    n_vars = draw(st.integers(1, 3))
    variables = [(draw(st.sampled_from(SHAPES)), draw(st.sampled_from(DTYPES)), draw(st.sampled_from(DEVICES)))
                 for _ in range(n_vars)]
    writes = [dict(var=draw(st.integers(0, n_vars - 1)),
                   kind=draw(st.sampled_from(["add", "sub", "sgd", "scatter_add", "scatter_sub"])),
                   delta=draw(st.integers(-3, 3)), device=draw(st.sampled_from(DEVICES)),
                   fed=draw(st.booleans()), colocate=draw(st.integers(-1, n_vars - 1)),
                   hops=draw(st.integers(0, 2)), rows=draw(st.lists(st.integers(0, 1), min_size=1, max_size=3)))
              for _ in range(draw(st.integers(1, 5)))]
    return dict(variables=variables, writes=writes, fault=draw(st.sampled_from(FAULTS)),
                waits_for=draw(st.lists(st.booleans(), min_size=len(writes), max_size=len(writes))),
                late_edges=draw(st.booleans()), fault_device=draw(st.sampled_from(DEVICES)),
                warmups=draw(st.integers(0, 2)), stop_at=draw(st.floats(0, 1)))


class Program:
    """The graph of one drawn program, the feeds of a good and a faulty run, and a numpy model."""

    def __init__(self, spec):
        self.spec = spec
        self.graph = tf.Graph()
        with self.graph.as_default():
            self._build()

    def _build(self):
        spec = self.spec
        self.variables = []
        for i, (shape, dtype, device) in enumerate(spec["variables"]):
            with tf.device(device):
                self.variables.append(tf.Variable(np.full(shape, i + 1, dtype), name=f"v{i}"))
        self.model = {v.op.name: np.full(shape, i + 1, dtype) for i, (v, (shape, dtype, _)) in
                      enumerate(zip(self.variables, spec["variables"]))}
        self.good_feed, self.effects, self.writes = {}, [], []
        for j, w in enumerate(spec["writes"]):
            var = self.variables[w["var"]]
            shape, dtype, _ = spec["variables"][w["var"]]
            kind = "add" if w["kind"] == "sgd" and dtype == np.int32 else w["kind"]
            if kind.startswith("scatter") and shape == ():
                kind = kind[len("scatter_"):]  # a scalar has no rows
            rows = w["rows"] if kind.startswith("scatter") else None
            value = np.full(shape if rows is None else (len(rows),) + shape[1:], w["delta"], dtype)
            colocation = (tf.colocate_with(self.variables[w["colocate"]]) if w["colocate"] >= 0 else _nothing())
            with tf.device(w["device"]), colocation:
                if w["fed"]:
                    delta = tf.placeholder(tf.as_dtype(dtype), value.shape, name=f"delta{j}")
                    self.good_feed[delta] = value
                else:
                    delta = tf.constant(value, name=f"delta{j}")
                for _ in range(w["hops"]):  # computed on the way, exactly
                    delta = tf.negative(tf.negative(delta))
            if kind == "add":
                op = tf.assign_add(var, delta)
            elif kind == "sub":
                op = tf.assign_sub(var, delta)
            elif kind == "scatter_add":
                op = tf.scatter_add(var, rows, delta)
            elif kind == "scatter_sub":
                op = tf.scatter_sub(var, rows, delta)
            else:
                op = tf.train.GradientDescentOptimizer(1.0).apply_gradients([(delta, var)])
            self.writes.append(op)
            if rows is not None:  # the rows' deltas as one of the variable's shape (a row listed twice gets both)
                full = np.zeros(shape, dtype)
                np.add.at(full, rows, value)
                value = full
            self.effects.append((var.op.name, value if kind in ("add", "scatter_add") else -value))
        self._build_fault()

    def _build_fault(self):
        spec, fault = self.spec, self.spec["fault"]
        self.bad_feed, self.fault_op = dict(self.good_feed), None
        waits = [w for w, wait in zip(self.writes, spec["waits_for"]) if wait]
        deps = [] if spec["late_edges"] else waits
        with tf.device(spec["fault_device"]), tf.control_dependencies(deps):
            if fault == "kernel":
                p = tf.placeholder(tf.float32, [None, None], name="p")
                self.fault_op = tf.matmul(p, p, name="fault")
                self.good_feed[p] = [[2.0]]
                self.bad_feed[p] = [[1.0, 2.0]]  # not square: the MatMul kernel fails
            elif fault == "uninitialized":
                u = tf.Variable(0.0, name="never_initialized")
                self.fault_op = tf.identity(u.value(), name="fault")
            elif fault == "bad_write":
                shape, dtype, _ = spec["variables"][0]
                q = tf.placeholder(tf.as_dtype(dtype), name="q")
                self.fault_op = tf.assign_add(self.variables[0], q, name="fault")
                self.good_feed[q] = np.zeros(shape, dtype)  # adds nothing
                # a scalar for a tensor variable (TF never broadcasts a write), two values for a scalar one
                self.bad_feed[q] = np.ones((2,) if shape == () else (), dtype)
            elif fault == "bad_feed":
                r = tf.placeholder(tf.float32, [2], name="r")
                self.fault_op = tf.identity(r, name="fault")
                self.good_feed[r] = [1.0, 2.0]
                self.bad_feed[r] = [1.0, 2.0, 3.0]
        if self.fault_op is not None and spec["late_edges"]:
            for w in waits:
                self.fault_op.op._add_control_input(w if isinstance(w, tf.Operation) else w.op)

    def fetches(self, with_fault):
        return self.writes + ([self.fault_op] if with_fault and self.fault_op is not None else [])

    def apply_writes(self):
        for name, delta in self.effects:
            self.model[name] = self.model[name] + delta


class _nothing:
    def __enter__(self):
        return None

    def __exit__(self, *exc):
        return False


def state(sess, variables):
    """Every variable's bytes and dtype, as the session holds them."""
    values = sess.variables.values
    return {v.op.name: (values[v.op.name].dtype, values[v.op.name].tobytes()) for v in variables}


def check_matches_model(sess, program):
    for v in program.variables:
        got = sess.run(v)
        want = program.model[v.op.name]
        assert got.dtype == want.dtype and np.array_equal(got, want), (v.op.name, got, want)


def run_program(spec):
    program = Program(spec)
    fault = spec["fault"]
    with program.graph.as_default():
        sess = tf.Session(config=tf.ConfigProto(device_count={"CPU": 2, "GPU": 2}, allow_soft_placement=True))
        sess.run(tf.variables_initializer(program.variables))
        data_dependent = fault in ("kernel", "bad_write", "bad_feed", "fetch")
        for _ in range(spec["warmups"]):  # clean runs first: the faulty run may then be a compiled program
            sess.run(program.fetches(with_fault=data_dependent), program.good_feed)
            program.apply_writes()
        check_matches_model(sess, program)
        before = state(sess, program.variables)

        if fault == "stepper":
            stepper = sess.stepper(program.fetches(with_fault=False), program.good_feed)
            stepper.run_to(int(spec["stop_at"] * len(stepper.steps)))
            assert state(sess, program.variables) == before  # its writes are its own until finish()
            stepper.reset()
            del stepper
        elif fault == "fetch":
            def failing_fetch(run):
                raise RuntimeError("injected: the fetch failed after every step succeeded")
            with mock.patch.object(Run, "fetch", failing_fetch), pytest.raises(RuntimeError, match="injected"):
                sess.run(program.fetches(with_fault=True), program.good_feed)
        else:
            with pytest.raises(ERRORS[fault]):
                sess.run(program.fetches(with_fault=True), program.bad_feed)
        assert state(sess, program.variables) == before, f"a failed run ({fault}) changed a variable"

        sess.run(program.fetches(with_fault=False), program.good_feed)  # the next run works
        program.apply_writes()
        check_matches_model(sess, program)


EXAMPLES = 500  # the floor; they run in well under the minute it allows (timed below)


def test_a_failed_run_leaves_every_variable_as_it_was_and_the_next_run_works():
    count = 0

    @settings(max_examples=EXAMPLES, deadline=None)
    @given(spec=programs())
    def check(spec):
        nonlocal count
        count += 1
        run_program(spec)

    start = time.perf_counter()
    check()
    elapsed = time.perf_counter() - start
    print(f"fault property: {count} examples in {elapsed:.1f} s")
    assert count >= EXAMPLES and elapsed < 60, f"{count} examples in {elapsed:.1f} s"
