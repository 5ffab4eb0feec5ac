"""``Session``: places the graph on the session's devices, runs fetches, keeps variable values.

A run goes: place the whole graph (once, and again only when it has grown), compile a plan
for (fetches, feeds) (once, then cached), execute it step by step, then commit the variable
writes. With ``log_device_placement`` the device mapping and one line per op are printed to
``sys.stdout`` (so a notebook cell shows them, once, without logging noise) and kept in
``session.placement_log``.
"""
import sys
import zlib
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
from . import fetches as fetch_mod
from .executor import KernelContext, run_step
from .plan import compile_plan
from .protos import ConfigProto, RunMetadata, RunOptions
from .trace import Tracer
from .variable_store import VarRef, VariableStore

# Sessions report here (the notebook layer listens, to show each cell's placement).
_listeners = []


def add_listener(fn):
    """Calls ``fn(event, session, **info)`` on "created", "placed" and "ran"."""
    _listeners.append(fn)


def remove_listener(fn):
    if fn in _listeners:
        _listeners.remove(fn)


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
        self.devices = sorted(build_devices(self.config.device_count, tasks), key=lambda d: d.sort_key())
        self._host = next(d for d in self.devices if d.device_type == "CPU")
        self.variables = VariableStore()
        self.placement = None
        self._placed_version = -1
        self._plans = {}
        self._rngs = {}
        self.placement_log = []
        self.last_plan = None
        self.last_run_metadata = None
        self._closed = False
        self.device_mapping = device_mapping(self.devices)
        if self._log_on:
            print(self.device_mapping, file=sys.stdout)
        self._notify("created")

    # -- lifecycle -------------------------------------------------------------------------------
    @property
    def _log_on(self):
        return bool(self.config.log_device_placement or devlab_config.get("force_log"))

    def close(self):
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

    def _notify(self, event, **info):
        for fn in list(_listeners):
            fn(event, self, **info)

    # -- placement -----------------------------------------------------------------------------
    def _ensure_placed(self):
        """Places the whole graph if it is new or has grown since the last placement."""
        if self._placed_version == self.graph.version:
            return self.placement
        soft = self.config.allow_soft_placement or devlab_config.get("force_soft_placement")
        placement = place(self.graph.get_operations(), self.devices, soft, self.local_task)
        old = self.placement.assigned if self.placement else {}
        new_records = [PlacementRecord(name, self.graph.get_operation_by_name(name).type, placement.assigned[name].name)
                       for name in placement.log_order if name not in old]
        self.placement, self._placed_version = placement, self.graph.version
        self._plans.clear()
        self.placement_log.extend(new_records)
        if self._log_on:
            for rec in new_records:
                print(rec, file=sys.stdout)
        self._notify("placed", records=new_records)
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
        plan, leaves, feeds = self._prepare(fetches, feed_dict)
        trace = (options is not None and options.trace_level >= RunOptions.FULL_TRACE) or devlab_config.get("trace_all")
        tracer = Tracer() if trace else None
        values = self._start_values(plan, feeds)
        try:
            record = tracer.record if tracer else None
            for step in plan.steps:
                run_step(step, values, record)
        except BaseException:
            self.variables.discard()
            raise
        self.variables.commit()
        if run_metadata is None and tracer is not None:
            run_metadata = RunMetadata()
        if run_metadata is not None:
            run_metadata.Clear()
            if options is not None and options.output_partition_graphs:
                run_metadata.partition_graphs = list(plan.partition_graphs)
            if tracer is not None:
                run_metadata.step_stats = tracer.step_stats()
        self.last_plan, self.last_run_metadata = plan, run_metadata
        held = self._held_arrays(plan, feeds)
        results = [self._fetch_value(values, slot, leaf, held) for slot, leaf in zip(plan.fetch_slots, leaves)]
        self._notify("ran", plan=plan, run_metadata=run_metadata)
        return fetch_mod.pack(fetches, results)

    def _prepare(self, fetches, feed_dict):
        """Resolves fetches and feeds, places the graph, and returns the cached plan."""
        leaves = [_as_fetch(self.graph, f) for f in fetch_mod.flatten(fetches)]
        feeds = {}
        for key, value in (feed_dict or {}).items():
            t = _as_feed(self.graph, key)
            feeds[t] = _feed_array(t, value)
        placement = self._ensure_placed()
        key = (tuple(leaves), tuple(feeds))
        plan = self._plans.get(key)
        if plan is None:
            plan = compile_plan(leaves, list(feeds), placement, self._kernel_context)
            self._plans[key] = plan
        return plan, leaves, [feeds[t] for t in feeds]

    def _start_values(self, plan, feed_values):
        values = [None] * plan.num_slots
        for (slot, _, device), value in zip(plan.feed_slots, feed_values):
            values[slot] = transfer(value, self._host, device)
        return values

    def _held_arrays(self, plan, feed_values):
        """Ids of the arrays a fetch must not hand out as they are: feeds, variables, constants."""
        held = {id(v) for v in feed_values}
        held.update(id(v) for v in self.variables.values.values())
        held.update(id(s.op.attrs["value"]) for s in plan.steps if s.kind == "op" and s.op.type == "Const")
        return held

    def _fetch_value(self, values, slot, leaf, held=None):
        """The fetched value on the host. Results never alias session state or the graph: a value
        that is (or views) a feed, a variable or a constant is copied; a fresh kernel output is not."""
        if slot is None:
            return None
        value = values[slot]
        if isinstance(value, VarRef):
            value = value.read()
        device = self.placement.device_of(leaf.op)
        host = transfer(value, device, self._host)
        if not isinstance(host, np.ndarray) or held is None or id(host) in held or not host.flags.owndata:
            host = np.array(host)
        return host[()] if host.ndim == 0 else host

    def _kernel_context(self, op, device):
        return KernelContext(op, device, self.variables, self._rng(op))

    def _rng(self, op):
        """A per-op generator: seeded from the graph and op seeds, else from the op's name."""
        if op.name not in self._rngs:
            graph_seed = self.graph.seed
            op_seed = op.attrs.get("seed")
            if op_seed is None:
                op_seed = zlib.crc32(op.name.encode())
            self._rngs[op.name] = np.random.default_rng([graph_seed or 0, op_seed])
        return self._rngs[op.name]

    # -- stepping ------------------------------------------------------------------------------
    def stepper(self, fetches, feed_dict=None):
        """A Stepper that runs ``fetches`` one step at a time (see ``runtime/stepper.py``)."""
        from .stepper import Stepper
        return Stepper(self, fetches, feed_dict)

    def load_variable(self, variable, value):
        self._ensure_placed()
        device = self.placement.device_of(variable.op)
        arr = np.asarray(value, dtype=variable.dtype.base_dtype.as_numpy_dtype)
        self.variables.values[variable.op.name] = transfer(arr, self._host, device)

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
    if isinstance(value, Tensor):
        raise TypeError("The value of a feed cannot be a tf.Tensor object. Acceptable feed values include "
                        "Python scalars, strings, lists, numpy ndarrays, or TensorHandles.")
    arr = np.asarray(value, dtype=t.dtype.base_dtype.as_numpy_dtype)
    if not t.shape.is_compatible_with(arr.shape):
        raise ValueError(f"Cannot feed value of shape {arr.shape} for Tensor '{t.name}', which has shape "
                         f"'{TensorShape(t.shape)}'")
    return arr


