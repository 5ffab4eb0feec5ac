"""``Session``: places the graph on the session's devices, runs fetches, keeps variable values.

A run goes: place the whole graph (once, and again only when it has grown), compile a plan
for (fetches, feeds) (once, then cached), then make a ``Run`` of it: execute, fetch, and only
then commit the variable writes (a failure anywhere commits nothing). With
``log_device_placement`` the device mapping and one line per op are printed to ``sys.stdout``
(so a notebook cell shows them, once, without logging noise) and kept in
``session.placement_log``. Everything a session does is also told to ``events`` listeners.
"""
import contextlib
import sys
from dataclasses import dataclass

import numpy as np

from .. import config as devlab_config
from ..devices.device_set import build_devices, device_mapping
from ..devices.transfer import transfer
from ..framework import default_session
from ..framework.graph import get_default_graph
from ..framework.operation import Operation
from ..framework.tensor import Tensor
from ..framework.tensor_shape import TensorShape
from ..placer import explain as explain_mod
from ..placer.placer import place
from . import cluster as cluster_mod
from . import events
from . import fetches as fetch_mod
from .plan import compile_plan
from .protos import ConfigProto, RunMetadata, RunOptions
from .run import Run
from .steps import RandomGenerators
from .trace import Tracer
from .variable_store import VariableStore


@dataclass(frozen=True)
class PlacementRecord:
    """One line of the placement log, kept as data."""
    op_name: str
    op_type: str
    device: str

    def __str__(self):
        return f"{self.op_name}: ({self.op_type}): {self.device}"


class Session:
    """TF1's ``tf.Session``: ``Session(target="", graph=None, config=None)``."""

    def __init__(self, target="", graph=None, config=None):
        self.graph = graph or get_default_graph()
        self.config = config or ConfigProto()
        server = cluster_mod.lookup(target)
        tasks = server.cluster.tasks() if server else [("localhost", 0)]
        self.local_task = (server.job_name, server.task_index) if server else None
        # A cluster bound to a backend runs each task's part of a plan where that task lives
        # (a Dask worker); the session still places and plans here. None: everything in-process.
        self.backend = server.backend if server else None
        devices = self.backend.devices(self.config.device_count) if self.backend else \
            build_devices(self.config.device_count, tasks)
        self.devices = sorted(devices, key=lambda d: d.sort_key())
        self._host = next(d for d in self.devices if d.device_type == "CPU")
        self.variables = self.backend.variables(self) if self.backend else VariableStore()
        self.placement = None
        self._placed_version = -1
        self._plans = {}
        self._rngs = RandomGenerators(self.graph)
        self.placement_log = []
        self.last_plan = None
        self.plans_run = []  # every plan this session ran, in the order of their first run
        self.last_run_metadata = None
        self._closed = False
        self.device_mapping = device_mapping(self.devices)
        if self._log_on:
            print(self.device_mapping, file=sys.stdout)
        events.emit(events.SessionCreated(self))

    # -- lifecycle -------------------------------------------------------------------------------
    @property
    def _log_on(self):
        return bool(self.config.log_device_placement or devlab_config.get("force_log"))

    def close(self):
        if self.backend is not None and not self._closed:
            self.backend.close_session(self)
        self._closed = True

    def __enter__(self):
        default_session.push(self)
        self.graph_ctx = self.graph.as_default()
        self.graph_ctx.__enter__()
        return self

    def __exit__(self, *exc):
        self.graph_ctx.__exit__(*exc)
        default_session.pop(self)
        self.close()
        return False

    def as_default(self):
        return _DefaultSession(self)

    def list_devices(self):
        return list(self.devices)

    # -- placement -----------------------------------------------------------------------------
    def _ensure_placed(self):
        """Places the whole graph if it is new or has grown since the last placement."""
        if self._placed_version == self.graph.version:
            return self.placement
        soft = self.config.allow_soft_placement or devlab_config.get("force_soft_placement")
        ops = self.graph.get_operations()
        placement = place(ops, self.devices, soft, self.local_task)
        old = self.placement.assigned if self.placement else {}
        by_name = {op.name: op for op in ops}
        new_records = [PlacementRecord(name, by_name[name].type, placement.assigned[name].name)
                       for name in placement.log_order if name not in old]
        self.placement, self._placed_version = placement, self.graph.version
        self._plans.clear()
        self.placement_log.extend(new_records)
        if self._log_on and new_records:
            print("\n".join(map(str, new_records)), file=sys.stdout)
        events.emit(events.OpsPlaced(self, tuple(new_records)))
        return placement

    def explain(self, op):
        """Why ``op`` (an Operation, Tensor, Variable or name) is on its device."""
        self._ensure_placed()
        return explain_mod.explain(_as_op(self.graph, op), self.placement)

    # -- running ---------------------------------------------------------------------------------
    def run(self, fetches, feed_dict=None, options=None, run_metadata=None):
        """Runs the ops needed for ``fetches``; returns their values in the same structure."""
        if self._closed:
            raise RuntimeError("Attempted to use a closed Session.")
        plan, feed_values = self._prepare(fetches, feed_dict)
        traced = (options is not None and options.trace_level >= RunOptions.FULL_TRACE) or devlab_config.get("trace_all")
        tracer = Tracer() if traced else None
        lock = self.variables.write_lock if plan.writes_variables else contextlib.nullcontext()
        with lock:
            new_run = self.backend.new_run if self.backend else Run
            run = new_run(plan, self.variables, feed_values, self._host, (tracer,) if tracer else ())
            try:
                run.run_to_end()
                results = run.fetch()
            except BaseException:
                run.abandon()
                raise
            run.commit()
        if run_metadata is None and tracer is not None:
            run_metadata = RunMetadata()
        if run_metadata is not None:
            run_metadata.Clear()
            if options is not None and options.output_partition_graphs:
                run_metadata.partition_graphs = list(plan.partition_graphs)
            if tracer is not None:
                run_metadata.step_stats = tracer.step_stats()
        self._ran(plan, run_metadata)
        return fetch_mod.pack(fetches, results)

    def _ran(self, plan, run_metadata):
        if plan is not self.last_plan and plan not in self.plans_run:
            self.plans_run.append(plan)
        self.last_plan, self.last_run_metadata = plan, run_metadata
        events.emit(events.RunFinished(self, plan, run_metadata))

    def _prepare(self, fetches, feed_dict):
        """Resolves fetches and feeds, places the graph, and returns (the cached plan, fed values)."""
        leaves = [_as_fetch(self.graph, f) for f in fetch_mod.flatten(fetches)]
        feeds = {}
        for key, value in (feed_dict or {}).items():
            t = _as_feed(self.graph, key)
            feeds[t] = _feed_array(t, value)
        placement = self._ensure_placed()
        key = (tuple(leaves), tuple(feeds))
        plan = self._plans.get(key)
        if plan is None:
            plan = compile_plan(leaves, list(feeds), placement, self._rngs)
            self._plans[key] = plan
        return plan, [transfer(v, self._host, device) for (_, _, device), v in zip(plan.feed_slots, feeds.values())]

    # -- stepping and loading ------------------------------------------------------------------
    def stepper(self, fetches, feed_dict=None):
        """A Stepper that runs ``fetches`` one step at a time (see ``runtime/stepper.py``)."""
        from .stepper import Stepper
        return Stepper(self, fetches, feed_dict)

    def load_variables(self, values):
        """Sets several variables at once ({Variable: value}), all or none: every value is checked
        (dtype, shape) before any variable changes."""
        self._ensure_placed()
        staged = {}
        for variable, value in values.items():
            arr = _feed_array(variable.value(), value)
            staged[variable.op.name] = transfer(arr, self._host, self.placement.device_of(variable.op))
        self.variables.assign(staged)

    def load_variable(self, variable, value):
        self.load_variables({variable: value})

    def __repr__(self):
        gpus = sum(d.device_type == "GPU" for d in self.devices)
        cpus = sum(d.device_type == "CPU" for d in self.devices)
        return f"<devlab.Session: {cpus} CPU, {gpus} GPU, {self.graph.version} ops>"


class InteractiveSession(Session):
    """A Session that makes itself the default on creation."""

    def __init__(self, target="", graph=None, config=None):
        super().__init__(target, graph, config)
        default_session.push(self)

    def close(self):
        default_session.pop(self)
        super().close()


class _DefaultSession:
    def __init__(self, session):
        self.session = session

    def __enter__(self):
        default_session.push(self.session)
        return self.session

    def __exit__(self, *exc):
        default_session.pop(self.session)
        return False


def _as_op(graph, obj):
    el = graph.as_graph_element(obj)
    return el.op if isinstance(el, Tensor) else el


def _as_fetch(graph, f):
    if f is None:
        raise TypeError(f"Fetch argument None has invalid type {type(None)}")
    try:
        el = graph.as_graph_element(f)
    except (TypeError, KeyError, ValueError) as e:
        raise type(e)(f"Fetch argument {f!r} cannot be interpreted as a Tensor. ({e})") from None
    if not isinstance(el, (Tensor, Operation)):
        raise TypeError(f"Fetch argument {f!r} has invalid type {type(f)}")
    return el


def _as_feed(graph, key):
    try:
        t = graph.as_graph_element(key, allow_operation=False)
    except (KeyError, ValueError) as e:
        raise TypeError(f"Cannot interpret feed_dict key as Tensor: {e}") from None
    if not isinstance(t, Tensor):
        raise TypeError(f"Cannot interpret feed_dict key as Tensor: {key!r}")
    return t


def _feed_array(t, value):
    """``value`` as an array for tensor ``t``, with TF's errors for a wrong type or shape."""
    if isinstance(value, Tensor):
        raise TypeError("The value of a feed cannot be a tf.Tensor object. Acceptable feed values include "
                        "Python scalars, strings, lists, numpy ndarrays, or TensorHandles.")
    arr = np.asarray(value, dtype=t.dtype.base_dtype.as_numpy_dtype)
    if not t.shape.is_compatible_with(arr.shape):
        raise ValueError(f"Cannot feed value of shape {arr.shape} for Tensor '{t.name}', which has shape "
                         f"'{TensorShape(t.shape)}'")
    return arr


